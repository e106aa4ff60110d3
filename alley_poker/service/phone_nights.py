"""Which night a bowler's phone link is for, and when it ends: the night's close.

A league match belongs to its league night (the date in its league tag).  A match made by
hand counts as a night too: the night going on when the code is made, in the centre's time
zone.  The night ends at ``[night] close`` (``config.NightConfig``); a close before noon is
the next morning's (a night that closes at 01:00 began the evening before).

>>> from zoneinfo import ZoneInfo
>>> chicago = ZoneInfo("America/Chicago")
>>> night_close(date(2026, 11, 24), "23:30", chicago).isoformat()
'2026-11-25T05:30:00+00:00'
>>> night_close(date(2026, 11, 24), "01:00", chicago).isoformat()  # the next morning
'2026-11-25T07:00:00+00:00'
>>> night_going_on(datetime(2026, 11, 25, 6, 30, tzinfo=UTC), "01:00", chicago)  # 00:30
datetime.date(2026, 11, 24)
>>> night_going_on(datetime(2026, 11, 25, 6, 30, tzinfo=UTC), "23:30", chicago)
datetime.date(2026, 11, 25)
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

#: A close at or after noon is that evening's; one before noon is the next morning's.
NOON = time(12, 0)


def _close_time(close: str) -> time:
    hour, minute = (int(part) for part in close.split(":"))
    return time(hour, minute)


def night_close(night_date: date, close: str, zone: tzinfo) -> datetime:
    """When the night of ``night_date`` closes, in UTC."""
    at = _close_time(close)
    day = night_date + timedelta(days=1) if at < NOON else night_date
    return datetime.combine(day, at, tzinfo=zone).astimezone(UTC)


def night_going_on(now: datetime, close: str, zone: tzinfo) -> date:
    """The night under way at ``now``: before a morning close, still the evening before's."""
    local = now.astimezone(zone)
    at = _close_time(close)
    if at < NOON and local.time() < at:
        return local.date() - timedelta(days=1)
    return local.date()


def night_of_match(league: dict[str, Any] | None, now: datetime, close: str,
                   zone: tzinfo) -> tuple[date, datetime]:
    """The night a code made at ``now`` for a match with ``league`` tag is for, and its close.

    >>> from zoneinfo import ZoneInfo
    >>> day, ends = night_of_match({"night_date": "2026-11-24"},
    ...                            datetime(2026, 11, 24, 20, tzinfo=UTC), "23:30",
    ...                            ZoneInfo("Europe/London"))
    >>> day.isoformat(), ends.isoformat()
    ('2026-11-24', '2026-11-24T23:30:00+00:00')
    """
    if league and league.get("night_date"):
        night = date.fromisoformat(str(league["night_date"]))
    else:
        night = night_going_on(now, close, zone)
    return night, night_close(night, close, zone)
