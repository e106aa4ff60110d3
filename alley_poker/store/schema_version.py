"""Is a database's schema already at the newest migration?  Asked before Alembic is loaded.

Opening the store migrates it to the newest migration (:func:`database.upgrade_to_head`),
but almost every opening finds it there already.  Alembic, with Mako and Pygments behind it,
costs a served process ≈ 11 MB of memory for the whole night it runs, so the store first
reads the database's ``alembic_version`` and the migrations' own ``revision`` lines, and
loads Alembic only when they differ (a new or older database, or anything unexpected).

>>> head_revision()
'0010'
"""

from __future__ import annotations

import re
from pathlib import Path

import sqlalchemy.exc
from sqlalchemy import text
from sqlalchemy.engine import Engine

VERSIONS_DIR = Path(__file__).resolve().parent / "migrations" / "versions"

_REVISION = re.compile(r"""^revision(?:\s*:[^=]*)?=\s*["'](\w+)["']\s*$""", re.MULTILINE)
_DOWN_REVISION = re.compile(r"""^down_revision(?:\s*:[^=]*)?=\s*(.+?)\s*$""", re.MULTILINE)
_QUOTED = re.compile(r"""["'](\w+)["']""")


def head_revision(versions: Path = VERSIONS_DIR) -> str | None:
    """The revision no other migration builds on; None unless there is exactly one."""
    revisions: set[str] = set()
    built_on: set[str] = set()
    for path in versions.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        found = _REVISION.findall(source)
        below = _DOWN_REVISION.findall(source)
        if len(found) != 1 or len(below) != 1:
            return None  # not a migration file this reader understands: let Alembic decide
        revisions.add(found[0])
        built_on.update(_QUOTED.findall(below[0]))
    heads = revisions - built_on
    return heads.pop() if len(heads) == 1 else None


def at_head(engine: Engine) -> bool:
    """True when the database says it is at the newest migration (False when unsure)."""
    head = head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except sqlalchemy.exc.DBAPIError:
        return False  # no version table (a new database), or no database: Alembic says which
    return [tuple(row) for row in rows] == [(head,)]
