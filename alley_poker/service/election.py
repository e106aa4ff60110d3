"""Exactly one active worker per centre: a PostgreSQL session-level advisory lock.

Every ``worker`` of a centre tries ``pg_try_advisory_lock(key)`` on a connection of its own,
where ``key`` is derived from the centre id.  The one that gets it is *active* and holds the
lock for its whole life on that connection; the others stand by and try again every
``poll_s``.  When the active worker dies — even by SIGKILL or a pulled cable — PostgreSQL
closes its session (at once for a dead process, after the TCP keepalive gives up for a lost
machine) and with it the lock, so a standby takes over within a poll or two.

The active worker checks its connection every poll too: should the lock's session be lost
(PostgreSQL restarted, network gone) it must stop dealing at once, because a standby may
already hold the lock; :meth:`CentreElection.still_active` says so.

>>> lock_key("default") == lock_key("default") != lock_key("north")
True
>>> -2**63 <= lock_key("north") < 2**63
True
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading

import sqlalchemy.exc
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

log = logging.getLogger(__name__)

#: The election session gives up on a silent server in ~15 s, idle (keepalives) or waiting
#: for an answer (tcp_user_timeout), so an active worker cut off from PostgreSQL stops
#: dealing before the server frees its lock for a standby.
_KEEPALIVES = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
               "keepalives_count": 5, "tcp_user_timeout": 15_000, "connect_timeout": 5}


class ElectionUnavailable(RuntimeError):
    """The election needs PostgreSQL; the message says what to run instead."""


def lock_key(centre: str) -> int:
    """The advisory-lock key of ``centre``'s worker: a signed 64-bit hash of its id."""
    digest = hashlib.blake2b(f"alley-poker worker {centre}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class CentreElection:
    """Campaigns for, holds and checks the lock of one centre's active worker."""

    def __init__(self, database_url: str, centre: str, *, poll_s: float = 0.5) -> None:
        url = make_url(database_url)
        if url.get_backend_name() != "postgresql":
            raise ElectionUnavailable(
                f"the worker needs PostgreSQL (got {url.get_backend_name()!r}): with the "
                "embedded SQLite ledger run the whole centre in one process, 'alley-poker serve'")
        if url.drivername == "postgresql":
            url = url.set(drivername="postgresql+psycopg")
        self.centre = centre
        self.key = lock_key(centre)
        self.poll_s = poll_s
        self._engine = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT",
                                     connect_args=_KEEPALIVES)
        self._connection: Connection | None = None
        self._unreachable = False

    @property
    def is_active(self) -> bool:
        return self._connection is not None

    def try_acquire(self) -> bool:
        """One attempt: True when this process now holds the centre's lock."""
        if self._connection is not None:
            return True
        connection = self._engine.connect()
        try:
            won = connection.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": self.key})
        except BaseException:
            connection.close()
            raise
        if won:
            self._connection = connection
            return True
        connection.close()
        return False

    def attempt(self) -> bool:
        """:meth:`try_acquire`, but PostgreSQL being unreachable is logged and means no."""
        try:
            won = self.try_acquire()
        except sqlalchemy.exc.OperationalError as error:
            if not self._unreachable:  # once per outage, not every poll
                log.warning("centre %s: cannot reach PostgreSQL for the election (%s)",
                            self.centre, error.orig)
            self._unreachable = True
            return False
        if self._unreachable:
            log.warning("centre %s: PostgreSQL reachable again", self.centre)
            self._unreachable = False
        return won

    def wait_until_active(self, stop: threading.Event) -> bool:
        """Stand by, trying every ``poll_s``, until the lock is ours (True) or ``stop`` is
        set (False)."""
        while not stop.wait(self.poll_s):
            if self.attempt():
                return True
        return False

    def still_active(self) -> bool:
        """True while the session holding the lock is alive (checked with a round trip)."""
        if self._connection is None:
            return False
        try:
            held = self._connection.scalar(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND pid = pg_backend_pid() AND objsubid = 1 "
                "AND objid = CAST(CAST(:key AS bigint) & 4294967295 AS oid) "
                "AND classid = CAST((CAST(:key AS bigint) >> 32) & 4294967295 AS oid)"),
                {"key": self.key})
        except sqlalchemy.exc.DBAPIError as error:
            log.error("centre %s: lost the election's PostgreSQL session (%s)", self.centre,
                      getattr(error, "orig", error))
            self._drop()
            return False
        if not held:
            log.error("centre %s: the worker lock is no longer held by this process", self.centre)
            self._drop()
            return False
        return True

    def release(self) -> None:
        """Give the lock up (closing the session releases it) and dispose of the engine."""
        self._drop()
        self._engine.dispose()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            # The session may be gone already; so is the lock, then.
            with contextlib.suppress(Exception):
                connection.close()
