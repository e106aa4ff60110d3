"""The event log's write path: appends with optimistic concurrency, each sealed into its
match's hash chain (:mod:`alley_poker.store.chain`) in the same transaction.

The caller says which sequence number it last saw; if another writer got there first the
append is refused with :class:`ConcurrencyConflict` and nothing is written.  Mixed into
:class:`~alley_poker.store.event_store.EventStore`, which supplies the engine and centre.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy.exc
from sqlalchemy import Connection, Engine, insert

from alley_poker.store import chain
from alley_poker.store.clock import utcnow
from alley_poker.store.records import check_expected_seq, check_name, to_row
from alley_poker.store.schema import events, matches
from alley_poker.store.store_errors import ConcurrencyConflict, RecordError, StoreError

# Built once: constructing a Core statement per call cost ~4x its execution (a whole ball's
# append is on the path from a scorer's line to the kiosks).
_INSERT_EVENTS = insert(events)


class EventWrites:
    """Appending to the log of one centre's matches."""

    _engine: Engine
    centre: str

    def append(
        self, match_id: str, records: Sequence[Mapping[str, Any]], expected_seq: int
    ) -> int:
        """Append ``records`` (seqs ``expected_seq + 1``, ``+ 2``, ...) in one transaction.

        Returns the match's new last seq.  Raises :class:`ConcurrencyConflict` if the log
        is not at ``expected_seq`` (someone else appended first), and :class:`RecordError`
        for a record that does not belong there or is not plain JSON; either way nothing is
        written.  The first append of a match (``expected_seq=0``) also registers it.
        """
        check_name("match id", match_id)
        check_expected_seq(expected_seq)
        if not records:
            return expected_seq
        recorded_at = utcnow()
        rows = [
            to_row(self.centre, match_id, expected_seq + position, record, recorded_at)
            for position, record in enumerate(records, start=1)
        ]
        try:
            with self.write_transaction() as connection:
                last_seq, last_hash = chain.last_link(connection, self.centre, match_id)
                if last_seq != expected_seq:
                    raise ConcurrencyConflict(match_id, expected_seq, last_seq)
                chain.seal(rows, last_hash)
                if expected_seq == 0:
                    connection.execute(
                        insert(matches).values(
                            match_id=match_id, centre=self.centre, created_at=recorded_at
                        )
                    )
                connection.execute(_INSERT_EVENTS, rows)
        except sqlalchemy.exc.IntegrityError as error:
            # The last defence: a writer that read the same last seq committed first.
            if _is_unique_violation(error):
                raise ConcurrencyConflict(match_id, expected_seq, None) from error
            raise
        return expected_seq + len(rows)

    def append_batch(
        self, appends: Sequence[tuple[str, Sequence[Mapping[str, Any]], int]]
    ) -> list[int | StoreError]:
        """Several appends ``(match_id, records, expected_seq)`` in one transaction.

        Each append is judged as :meth:`append` judges it; one that would fail gets its
        error (``ConcurrencyConflict`` or ``RecordError``) in its place in the answer and
        writes nothing, the others get their new last seq and are committed together (one
        fsync for all of them).  Two appends to the same match in one batch: the second
        must continue the first.
        """
        recorded_at = utcnow()
        outcomes: list[int | StoreError] = []
        accepted: list[tuple[int, str, int, list[dict[str, Any]]]] = []
        for index, (match_id, records, expected_seq) in enumerate(appends):
            try:
                check_name("match id", match_id)
                check_expected_seq(expected_seq)
                rows = [to_row(self.centre, match_id, expected_seq + position, record,
                               recorded_at)
                        for position, record in enumerate(records, start=1)]
            except RecordError as error:
                outcomes.append(error)
                continue
            outcomes.append(expected_seq + len(rows))
            accepted.append((index, match_id, expected_seq, rows))
        if not any(rows for _, _, _, rows in accepted):
            return outcomes
        try:
            with self.write_transaction() as connection:
                last_links: dict[str, tuple[int, str]] = {}
                rows_to_insert: list[dict[str, Any]] = []
                for index, match_id, expected_seq, rows in accepted:
                    if not rows:
                        continue
                    last_seq, last_hash = last_links.get(match_id) or chain.last_link(
                        connection, self.centre, match_id)
                    if last_seq != expected_seq:
                        outcomes[index] = ConcurrencyConflict(match_id, expected_seq, last_seq)
                        continue
                    if expected_seq == 0:
                        connection.execute(insert(matches).values(
                            match_id=match_id, centre=self.centre, created_at=recorded_at))
                    rows_to_insert.extend(rows)
                    last_links[match_id] = (expected_seq + len(rows), chain.seal(rows, last_hash))
                if rows_to_insert:
                    connection.execute(_INSERT_EVENTS, rows_to_insert)
        except sqlalchemy.exc.IntegrityError as error:
            # Another writer committed first to one of these matches (PostgreSQL): decide
            # each append on its own so only that one is refused.
            if not _is_unique_violation(error):
                raise
            pairs = zip(outcomes, appends, strict=True)
            return [outcome if isinstance(outcome, StoreError)
                    else self._append_alone(match_id, records, expected_seq)
                    for outcome, (match_id, records, expected_seq) in pairs]
        return outcomes

    def _append_alone(self, match_id: str, records: Sequence[Mapping[str, Any]],
                      expected_seq: int) -> int | StoreError:
        try:
            return self.append(match_id, records, expected_seq)
        except (ConcurrencyConflict, RecordError) as error:
            return error

    @contextmanager
    def write_transaction(self) -> Iterator[Connection]:
        """A transaction that reads, then writes: it takes the write lock first.

        For every table of the centre's database, not only the events.
        """
        # SQLite: BEGIN IMMEDIATE takes the write lock before reading the last seq, so a
        # racing writer waits (busy timeout) and then sees the new seq, instead of failing
        # late with "database is locked" when it tries to upgrade a stale read snapshot.
        with self._engine.connect() as connection:
            connection.execution_options(sqlite_begin="IMMEDIATE")
            with connection.begin():
                yield connection


def _is_unique_violation(error: sqlalchemy.exc.IntegrityError) -> bool:
    sqlstate = getattr(error.orig, "sqlstate", None)  # psycopg
    if sqlstate is not None:
        return sqlstate == "23505"
    return "UNIQUE constraint failed" in str(error.orig)  # sqlite3
