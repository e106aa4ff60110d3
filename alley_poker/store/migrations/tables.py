"""The tables the migrations create, in the one shape they all share, written once.

A migration names its table, its own columns, and which keys, unique column sets, reference
and indexes it has; these helpers add the named primary key, the constraints and the indexes,
each called as the naming convention in ``store/schema.py`` calls it (``pk_<table>``,
``uq_<table>_<columns>``, ``fk_<table>_<first column>_<referred table>``,
``ix_<table>_<columns>``).

Frozen, like ``columns.py``: migrations 0001-0010 already ran in deployed centres, and
``tests/store/test_migrations_frozen.py`` holds them to the schema they built before these
helpers existed, down to SQLite's text of each ``CREATE``.  The constraints are made in the
order the migrations used to write them (reference, key, unique sets), which is the order of
that text.  Never change what a helper builds or the order it builds it in; a new shape of
table is a new helper.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column, id_column

#: A reference to another table: its name and the columns (named alike on both sides).
Reference = tuple[str, Sequence[str]]


def create_table(name: str, *columns: sa.Column, key: Sequence[str] = ("id",),
                 unique: Sequence[Sequence[str]] = (), refers_to: Reference | None = None,
                 indexes: Sequence[Sequence[str]] = ()) -> None:
    """The table ``name`` with ``columns`` as given, keyed by ``key``, and its indexes."""
    constraints: list[sa.Constraint] = []
    if refers_to is not None:
        referred, referring = refers_to
        constraints.append(sa.ForeignKeyConstraint(
            list(referring), [f"{referred}.{column}" for column in referring],
            name=op.f(f"fk_{name}_{referring[0]}_{referred}")))
    constraints.append(sa.PrimaryKeyConstraint(*key, name=op.f(f"pk_{name}")))
    constraints.extend(sa.UniqueConstraint(*each, name=op.f(f"uq_{name}_{'_'.join(each)}"))
                       for each in unique)
    op.create_table(name, *columns, *constraints)
    for each in indexes:
        op.create_index(_index_name(name, each), name, list(each), unique=False)


def create_centre_table(name: str, *columns: sa.Column, **shape) -> None:
    """A per-centre table with a surrogate key: ``id``, ``centre``, then ``columns``.

    ``shape`` is ``create_table``'s: ``unique``, ``refers_to``, ``indexes``.
    """
    create_table(name, id_column(), centre_column(), *columns, **shape)


def drop_table(name: str, indexes: Sequence[Sequence[str]] = ()) -> None:
    """Undoes ``create_table``: the indexes in reverse, then the table."""
    for each in reversed(indexes):
        op.drop_index(_index_name(name, each), table_name=name)
    op.drop_table(name)


def _index_name(table: str, columns: Sequence[str]) -> str:
    return op.f(f"ix_{table}_{'_'.join(columns)}")
