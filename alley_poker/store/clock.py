"""Times as the store writes and reads them: aware, in UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """The current time as an aware UTC datetime.

    >>> utcnow().utcoffset()
    datetime.timedelta(0)
    """
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A time read back from the store, aware and in UTC.

    >>> as_utc(datetime(2024, 5, 1, 19, 0)).isoformat()
    '2024-05-01T19:00:00+00:00'
    """
    # SQLite keeps no zone: the store only ever writes UTC, so a naive value is UTC.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
