"""League nights in the centre's local time; the store keeps UTC.

A night starts at the league's local start time on its date and may run past midnight: a
moment before the night's close (``NIGHT_LENGTH`` after the start, on the local clock) belongs
to the night that started the evening before.  Local times are computed with zoneinfo, so a
night on a daylight-saving change day starts at the right UTC instant.

>>> from datetime import date, datetime, time, UTC
>>> from alley_poker.league.league import League
>>> tue = League("tue", "Tuesday", "house-rev-1.2", 200, weekday=1, start_time=time(21, 0),
...              time_zone="America/Chicago", lane_pairs=((1, 2),))
>>> night_start_utc(tue, date(2026, 11, 24)).isoformat()
'2026-11-25T03:00:00+00:00'
>>> after_midnight = datetime(2026, 11, 25, 6, 30, tzinfo=UTC)    # 00:30 in Chicago
>>> to_local(tue, after_midnight).isoformat()
'2026-11-25T00:30:00-06:00'
>>> night_date_of(tue, after_midnight)        # still Tuesday's night
datetime.date(2026, 11, 24)
>>> night_id("tue", date(2026, 11, 24))
'tue-2026-11-24'
>>> [d.isoformat() for d in season_dates(tue, date(2026, 11, 20), weeks=3)]
['2026-11-24', '2026-12-01', '2026-12-08']
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from alley_poker.league.league_errors import LeagueError
from alley_poker.league.zones import zone_named

if TYPE_CHECKING:
    from alley_poker.league.league import League

#: How long a league night may run on the local clock; a moment within this of the start
#: belongs to that night even after midnight.  Twelve hours covers any real night (three
#: games take about three hours) and closes before the next morning's open.
NIGHT_LENGTH = timedelta(hours=12)


def to_local(league: League, moment_utc: datetime) -> datetime:
    """``moment_utc`` (aware) on the league's local clock, as an aware datetime."""
    return _aware(moment_utc).astimezone(zone_named(league.time_zone))


def local_iso(league: League, moment_utc: datetime) -> str:
    """``moment_utc`` as the league's local time, ``YYYY-MM-DD HH:MM`` (for sheets and CSV).

    >>> from datetime import time
    >>> from alley_poker.league.league import League
    >>> london = League("mon", "Monday", "house-rev-1.2", 100, weekday=0,
    ...                 start_time=time(19, 0), time_zone="Europe/London", lane_pairs=((1, 2),))
    >>> local_iso(london, datetime(2026, 7, 6, 18, 5, tzinfo=UTC))
    '2026-07-06 19:05'
    """
    return to_local(league, moment_utc).strftime("%Y-%m-%d %H:%M")


def night_start_utc(league: League, night_date: date) -> datetime:
    """When the night of ``night_date`` starts, as an aware UTC datetime.

    A start time that the clocks skip on a spring-forward day (02:30 in America/Chicago on
    2026-03-08) is the instant the clocks would show it had they not jumped (03:30 local);
    one that happens twice on a fall-back day is its first occurrence.
    """
    local = datetime.combine(night_date, league.start_time,
                             tzinfo=zone_named(league.time_zone))
    return local.astimezone(UTC)


def night_date_of(league: League, moment_utc: datetime) -> date:
    """The date of the night ``moment_utc`` belongs to: its local date, or the day before
    when it falls after midnight but before the close of a night that began the evening
    before (``NIGHT_LENGTH`` after the start on the local clock)."""
    local = to_local(league, moment_utc)
    start = datetime.combine(date.min, league.start_time)
    close = start + NIGHT_LENGTH
    if close.date() > date.min:  # the night runs past midnight
        close_time: time = close.time()
        if local.time().replace(tzinfo=None) < close_time:
            return local.date() - timedelta(days=1)
    return local.date()


def next_night_date(league: League, on_or_after: date) -> date:
    """The first date on or after ``on_or_after`` that falls on the league's weekday.

    >>> from datetime import time
    >>> from alley_poker.league.league import League
    >>> fri = League("fri", "Friday", "house-rev-1.2", 100, weekday=4, start_time=time(19),
    ...              time_zone="UTC", lane_pairs=((1, 2),))
    >>> next_night_date(fri, date(2026, 11, 27)), next_night_date(fri, date(2026, 11, 28))
    (datetime.date(2026, 11, 27), datetime.date(2026, 12, 4))
    """
    return on_or_after + timedelta(days=(league.weekday - on_or_after.weekday()) % 7)


def season_dates(league: League, first: date, *, weeks: int) -> list[date]:
    """The league's night dates for ``weeks`` weeks from the first league night on or after
    ``first``."""
    if weeks < 0:
        raise LeagueError(f"a season has 0 or more weeks, not {weeks}", field="weeks")
    opening = next_night_date(league, first)
    return [opening + timedelta(weeks=week) for week in range(weeks)]


def night_id(league_id: str, night_date: date) -> str:
    """The id of a league's night: ``<league_id>-<YYYY-MM-DD>``."""
    return f"{league_id}-{night_date.isoformat()}"


def _aware(moment: datetime) -> datetime:
    if not isinstance(moment, datetime) or moment.tzinfo is None \
            or moment.utcoffset() is None:
        raise LeagueError(f"a moment must be an aware datetime (UTC), not {moment!r}",
                          field="moment")
    return moment
