"""The backup at the service layer: a nightly online copy of a SQLite ledger, with retention.

A copy is taken with SQLite's online backup API (``sqlite3.Connection.backup``) through its
own read connection: the copy is one consistent snapshot even while the service keeps
writing (the ledger runs in WAL mode, so the writer is never blocked for long).  Each copy is
named for the night it stands for, ``ledger-YYYY-MM-DD.sqlite3``; it is written under a
``.partial`` name, checked (``PRAGMA quick_check``), flushed to disk and only then renamed,
so a file with the final name is always a whole backup.  After each backup only the newest
``keep`` copies are kept.

One copy per night, never two: a backup whose file already exists is not redone, so a server
restarted just after the backup time does not back up twice.  See :class:`NightlyBackup` for
when the job runs and what happens when the server was down at that time.

PostgreSQL is backed up by its own tools (``pg_dump``, the host's snapshots); this module
refuses it with :class:`BackupNotPossible`.

By hand (a centre's IT person, the service may keep running)::

    python -c "from alley_poker.service.backup import backup_now; \\
print(backup_now('sqlite:///var/alley-poker.sqlite3', 'var/backups', keep=14))"

>>> import tempfile, sqlite3, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with sqlite3.connect(folder / "live.sqlite3") as db:
...     _ = db.execute("CREATE TABLE t (x)")
>>> result = backup_now(f"sqlite:///{folder / 'live.sqlite3'}", folder / "copies", keep=2,
...                     night=date(2026, 11, 21))
>>> result.path.name, result.created
('ledger-2026-11-21.sqlite3', True)
>>> backup_now(f"sqlite:///{folder / 'live.sqlite3'}", folder / "copies", keep=2,
...            night=date(2026, 11, 21)).created   # that night's copy exists: not redone
False
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from alley_poker.store.database import PRIVATE_FOLDER_MODE, create_private_file

log = logging.getLogger(__name__)

BACKUP_NAME = re.compile(r"^ledger-(\d{4}-\d{2}-\d{2})\.sqlite3$")
PARTIAL_SUFFIX = ".partial"


class BackupNotPossible(ValueError):
    """This database cannot be backed up here; the message says why and what to use."""


@dataclass(frozen=True)
class BackupResult:
    """What one backup run did."""

    path: Path
    #: False when the night's copy already existed (nothing was copied).
    created: bool
    #: Older copies deleted to keep only the newest ``keep``.
    deleted: list[Path] = field(default_factory=list)


def sqlite_path(database_url: str) -> Path:
    """The file of a SQLite ``database.url``; refuses anything else, naming why.

    >>> sqlite_path("sqlite:///var/alley-poker.sqlite3")
    PosixPath('var/alley-poker.sqlite3')
    >>> sqlite_path("postgresql+psycopg://postgres@db/alley")
    Traceback (most recent call last):
    ...
    alley_poker.service.backup.BackupNotPossible: postgresql+psycopg://postgres@db/alley is \
not SQLite: back PostgreSQL up with its own tools (pg_dump, the host's snapshots)
    >>> sqlite_path("sqlite://")
    Traceback (most recent call last):
    ...
    alley_poker.service.backup.BackupNotPossible: sqlite:// is an in-memory database: \
there is no file to back up
    """
    try:
        url = make_url(database_url)
    except ArgumentError:
        raise BackupNotPossible(f"{database_url!r} is not a database URL") from None
    shown = url.render_as_string(hide_password=True)
    if url.get_backend_name() != "sqlite":
        raise BackupNotPossible(
            f"{shown} is not SQLite: back PostgreSQL up with its own tools "
            "(pg_dump, the host's snapshots)")
    if url.database in (None, "", ":memory:"):
        raise BackupNotPossible(f"{shown} is an in-memory database: there is no file to back up")
    return Path(url.database)


def backup_name(night: date) -> str:
    """
    >>> backup_name(date(2026, 11, 22))
    'ledger-2026-11-22.sqlite3'
    """
    return f"ledger-{night.isoformat()}.sqlite3"


def existing_backups(folder: str | os.PathLike[str]) -> list[tuple[date, Path]]:
    """The finished backups in ``folder``, oldest first (other files are not ours: ignored)."""
    found: list[tuple[date, Path]] = []
    with contextlib.suppress(FileNotFoundError):
        for entry in Path(folder).iterdir():
            match = BACKUP_NAME.match(entry.name)
            if match and entry.is_file():
                with contextlib.suppress(ValueError):  # a name like 2026-02-31: not ours
                    found.append((date.fromisoformat(match.group(1)), entry))
    return sorted(found)


def prune(folder: str | os.PathLike[str], keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups in ``folder``; returns what was deleted."""
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    backups = existing_backups(folder)
    doomed = [path for _night, path in backups[:-keep]]
    for path in doomed:
        path.unlink(missing_ok=True)
        log.info("backup: deleted %s (keeping the newest %d)", path, keep)
    return doomed


def _fsync_directory(folder: Path) -> None:
    # Makes the rename itself durable; not every platform can open a directory.
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def copy_database(source: Path, target: Path) -> None:
    """Copy the SQLite database ``source`` to ``target`` (replaced atomically) while it may
    be in use: online backup to ``target.partial``, check, fsync, rename."""
    if not source.is_file():
        raise BackupNotPossible(f"{source}: no such database file")
    partial = target.with_name(target.name + PARTIAL_SUFFIX)
    partial.unlink(missing_ok=True)  # left by a run that died half-way
    # The copy holds what the ledger holds (the deal seeds of matches in play): made owner
    # only before SQLite writes a byte into it, whatever the process's umask.
    create_private_file(partial)
    # mode=ro: the backup must never create, migrate or write the live ledger.
    reader = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        writer = sqlite3.connect(partial)
        try:
            # pages=-1 (all at once): one read transaction, so one consistent snapshot; a
            # stepped copy would restart every time the service writes.
            reader.backup(writer, pages=-1)
            # A self-contained single file: no -wal/-shm beside it to lose when copied on.
            writer.execute("PRAGMA journal_mode = DELETE")
            (verdict,) = writer.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"the copy of {source} fails its check: {verdict}")
        finally:
            writer.close()
        with open(partial, "rb+") as copied:
            os.fsync(copied.fileno())
        os.replace(partial, target)
        _fsync_directory(target.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        reader.close()


def backup_now(database_url: str, folder: str | os.PathLike[str], keep: int, *,
               night: date | None = None, redo: bool = False) -> BackupResult:
    """Back the SQLite ledger at ``database_url`` up into ``folder``, keeping ``keep`` copies.

    The copy is named for ``night`` (default: today, local time).  If that night's copy
    exists it is left alone (``created=False``) unless ``redo`` is true, which replaces it
    with a fresh one.  Raises :class:`BackupNotPossible` for PostgreSQL, an in-memory
    database or a missing file.
    """
    source = sqlite_path(database_url)
    night = night or date.today()
    target_folder = Path(folder)
    target_folder.mkdir(mode=PRIVATE_FOLDER_MODE, parents=True, exist_ok=True)
    target = target_folder / backup_name(night)
    if target.exists() and not redo:
        log.info("backup: %s already exists, not redone", target)
        return BackupResult(target, created=False, deleted=prune(target_folder, keep))
    copy_database(source, target)
    log.info("backup: %s copied to %s (%d bytes)", source, target, target.stat().st_size)
    return BackupResult(target, created=True, deleted=prune(target_folder, keep))


class NightlyBackup:
    """The nightly backup job of a centre: when it is due and running it at most once.

    The job runs at ``hour:minute`` local time and makes the copy for that night (named for
    the date it runs).  At start-up :meth:`missed` says whether the most recent backup time
    has passed with no copy made for it (the server was down at 04:00, or this is the first
    start); the scheduler then runs it once, shortly after start-up, naming the copy for the
    night it stands in for.  A night that already has its copy is never backed up again, so
    a restart, a job that fires twice or an overlap of the two does nothing more.
    """

    def __init__(self, database_url: str, folder: str | os.PathLike[str], keep: int, *,
                 hour: int = 4, minute: int = 0,
                 clock: Callable[[], datetime] = datetime.now) -> None:
        self.source = sqlite_path(database_url)  # refuses PostgreSQL and in-memory up front
        self.database_url = database_url
        self.folder = Path(folder)
        self.keep = keep
        self.hour, self.minute = hour, minute
        self.clock = clock  # naive local time, like the centre's wall clock
        self._lock = threading.Lock()

    def last_due_night(self) -> date:
        """The night of the most recent backup time at or before now (local time)."""
        now = self.clock()
        todays = now.replace(hour=self.hour, minute=self.minute, second=0, microsecond=0)
        return now.date() if now >= todays else now.date() - timedelta(days=1)

    def missed(self) -> bool:
        """True when the most recent backup time passed without its copy being made."""
        return not (self.folder / backup_name(self.last_due_night())).exists()

    def run(self) -> BackupResult | None:
        """The job: back up for the night now due, unless done; never raises (logged)."""
        with self._lock:  # the catch-up and the nightly run may meet: one copies, one skips
            try:
                return backup_now(self.database_url, self.folder, self.keep,
                                  night=self.last_due_night())
            except Exception:
                log.exception("backup of %s into %s failed", self.source, self.folder)
                return None
