"""Time zones by IANA name, checked with zoneinfo.

>>> zone_named("Europe/London").key
'Europe/London'
>>> zone_named("../../etc/passwd")
Traceback (most recent call last):
...
alley_poker.league.league_errors.LeagueError: '../../etc/passwd' is not a time zone name (use an \
IANA name such as 'America/Chicago' or 'Europe/London')
"""

from __future__ import annotations

from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from alley_poker.league.league_errors import LeagueError


def zone_named(name: object) -> ZoneInfo:
    """The zone called ``name``; LeagueError (field ``time_zone``) when there is none."""
    if isinstance(name, str) and name and len(name) <= 64:
        try:
            return _zone(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass  # refused below, with the name
    raise LeagueError(f"{name!r} is not a time zone name (use an IANA name such as "
                      "'America/Chicago' or 'Europe/London')", field="time_zone")


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)
