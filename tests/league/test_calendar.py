"""League nights in local time: after midnight, and on daylight-saving change days."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

import pytest

from alley_poker.league import (
    League,
    LeagueError,
    night_date_of,
    night_start_utc,
    season_dates,
    to_local,
)

CHICAGO = League("tue", "Tuesday Night", "house-rev-1.2", 200, weekday=6,
                 start_time=time(19, 0), time_zone="America/Chicago", lane_pairs=((1, 2),))
LONDON = replace(CHICAGO, time_zone="Europe/London")


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_a_night_that_crosses_midnight_keeps_its_date():
    late = replace(CHICAGO, start_time=time(22, 30))
    night = date(2026, 11, 24)
    start = night_start_utc(late, night)
    assert start == utc(2026, 11, 25, 4, 30)
    # 22:30 start, 00:45 and 06:59 next morning local: still the 24th's night.
    assert night_date_of(late, start) == night
    assert night_date_of(late, start + timedelta(hours=2, minutes=15)) == night
    assert night_date_of(late, utc(2026, 11, 25, 16, 29)) == night     # 10:29 local
    assert night_date_of(late, utc(2026, 11, 25, 16, 30)) == date(2026, 11, 25)
    # Before the start on the same evening: that evening's night (check-in comes early).
    assert night_date_of(late, start - timedelta(hours=3)) == night


def test_a_morning_league_does_not_reach_back_to_the_day_before():
    morning = replace(CHICAGO, start_time=time(9, 30))
    assert night_date_of(morning, utc(2026, 11, 25, 6, 30)) == date(2026, 11, 25)  # 00:30


@pytest.mark.parametrize(("league", "day", "offset_before", "offset_after"), [
    (CHICAGO, date(2026, 3, 8), -6, -5),      # clocks go forward at 02:00
    (CHICAGO, date(2026, 11, 1), -5, -6),     # clocks go back at 02:00
    (LONDON, date(2026, 3, 29), 0, 1),        # clocks go forward at 01:00
    (LONDON, date(2026, 10, 25), 1, 0),       # clocks go back at 02:00
])
def test_nights_on_daylight_saving_change_days_start_at_the_local_start_time(
        league, day, offset_before, offset_after):
    before = night_start_utc(league, day - timedelta(days=7))
    on_the_day = night_start_utc(league, day)
    # 19:00 local on both dates, so the UTC start moves by the change in offset.
    assert to_local(league, on_the_day).time() == time(19, 0)
    assert to_local(league, before).time() == time(19, 0)
    assert on_the_day - before == timedelta(days=7, hours=offset_before - offset_after)
    assert to_local(league, on_the_day).utcoffset() == timedelta(hours=offset_after)
    assert night_date_of(league, on_the_day) == day


def test_a_night_that_spans_the_fall_back_hour_still_ends_on_its_own_date():
    # Saturday 2026-10-31, 22:00 start in Chicago; the clocks go back at 02:00 that night.
    saturday = replace(CHICAGO, weekday=5, start_time=time(22, 0))
    night = date(2026, 10, 31)
    start = night_start_utc(saturday, night)
    assert start == utc(2026, 11, 1, 3, 0)                        # 22:00 CDT
    first_130 = utc(2026, 11, 1, 6, 30)                           # 01:30 CDT
    second_130 = utc(2026, 11, 1, 7, 30)                          # 01:30 CST, an hour later
    assert to_local(saturday, first_130).time() == to_local(saturday, second_130).time()
    assert night_date_of(saturday, first_130) == night
    assert night_date_of(saturday, second_130) == night


def test_a_start_time_the_clocks_skip_is_taken_an_hour_later():
    early = replace(CHICAGO, start_time=time(2, 30))
    start = night_start_utc(early, date(2026, 3, 8))
    assert to_local(early, start).time() == time(3, 30)


def test_season_dates_fall_on_the_league_weekday_across_a_change():
    dates = season_dates(CHICAGO, date(2026, 10, 20), weeks=4)
    assert dates == [date(2026, 10, 25), date(2026, 11, 1), date(2026, 11, 8),
                     date(2026, 11, 15)]
    assert all(d.weekday() == 6 for d in dates)


def test_a_naive_moment_is_refused():
    with pytest.raises(LeagueError, match="aware datetime"):
        night_date_of(CHICAGO, datetime(2026, 11, 24, 19, 0))
