"""What the event store refuses, and why: one family of errors for every store module."""

from __future__ import annotations


class StoreError(Exception):
    """The event store cannot do what was asked; the message says why."""


class StoreUnavailable(StoreError):
    """The database could not be opened, reached or migrated."""


class RecordError(StoreError, ValueError):
    """A record handed to :meth:`EventStore.append` cannot be stored as given."""


class ConcurrencyConflict(StoreError):
    """Another writer appended to the match first; reload and decide again.

    ``actual_seq`` is the log's last seq when the store saw it, or ``None`` when the conflict
    was caught by the unique ``(match_id, seq)`` constraint at commit time.
    """

    def __init__(self, match_id: str, expected_seq: int, actual_seq: int | None) -> None:
        self.match_id = match_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq
        where = (
            f"the log is at seq {actual_seq}"
            if actual_seq is not None
            else "another writer stored the same seq first"
        )
        super().__init__(
            f"match {match_id!r}: expected to append after seq {expected_seq}, but {where}"
        )
