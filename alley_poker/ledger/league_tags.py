"""A league match's tags: which league night it belongs to, who its bowlers are on the
roster, and their handicaps — checked when the match is created, recorded in
``match_created`` and read by the season's standings (``alley_poker.league.standings``).

The ledger knows nothing of rosters: a tag is plain data (a league id, a night, seat names
mapped to roster bowler ids) so a match stays readable without the league tables.

>>> league_tag({"league_id": "tue", "night_id": "tue-2026-11-24", "night_date": "2026-11-24",
...             "people": {"Ann": 17}}, ["Ann", "Bob"])["people"]
{'Ann': 17}
>>> handicap_table({"Ann": 31}, ["Ann", "Bob"])
{'Ann': 31}
>>> handicap_table({"Cy": 3}, ["Ann", "Bob"])
Traceback (most recent call last):
...
alley_poker.ledger.ledger_errors.CommandRefused: handicaps: 'Cy' is not a bowler of this match
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from alley_poker.ledger.context import refuse

LEAGUE_KEYS = ("league_id", "night_id", "night_date", "people")
LEAGUE_ID = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,31})$")
MAX_NIGHT_ID = 64
MAX_HANDICAP = 300


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def league_tag(league: object, bowlers: Sequence[str]) -> dict[str, Any]:
    """The checked, JSON-safe league tag (refused with ``field="league"`` if malformed)."""
    if not isinstance(league, Mapping):
        refuse(f"league must be a table of {', '.join(LEAGUE_KEYS)}, not {league!r}", "league")
    unknown = sorted(set(league) - set(LEAGUE_KEYS), key=str)
    missing = [key for key in LEAGUE_KEYS if key not in league]
    if unknown or missing:
        refuse("; ".join(
            ([f"unknown key(s) {', '.join(map(repr, unknown))}"] if unknown else [])
            + ([f"missing {', '.join(missing)}"] if missing else [])), "league")
    league_id, night_id = league["league_id"], league["night_id"]
    if not isinstance(league_id, str) or not LEAGUE_ID.match(league_id):
        refuse(f"league_id must be 1-32 lower-case letters, digits and dashes, "
               f"not {league_id!r}", "league")
    if not isinstance(night_id, str) or not 0 < len(night_id) <= MAX_NIGHT_ID \
            or night_id != night_id.strip():
        refuse(f"night_id must be 1-{MAX_NIGHT_ID} characters of text, "
               f"not {night_id!r}", "league")
    night_date = league["night_date"]
    if isinstance(night_date, datetime.date) and not isinstance(night_date, datetime.datetime):
        night_date = night_date.isoformat()
    try:
        datetime.date.fromisoformat(night_date)
        if len(night_date) != 10:
            raise ValueError
    except (TypeError, ValueError):
        refuse(f"night_date must be a date as YYYY-MM-DD, not {night_date!r}", "league")
    people = _by_seat(league["people"], bowlers, "league",
                      holds="people must map seat names to roster bowler ids",
                      stranger="people names {name!r}, who is not a bowler of this match",
                      valid=lambda bowler_id: _whole(bowler_id) and bowler_id >= 1,
                      wrong="people: {name}'s bowler id must be a positive whole number, "
                            "not {value!r}")
    if len(set(people.values())) != len(people):
        refuse("people seats one roster bowler twice", "league")
    return {"league_id": league_id, "night_id": night_id, "night_date": night_date,
            "people": people}


def handicap_table(handicaps: object, bowlers: Sequence[str]) -> dict[str, int]:
    """The checked handicaps, pins per game (refused with ``field="handicaps"``)."""
    return _by_seat(handicaps, bowlers, "handicaps",
                    holds="handicaps must map seat names to pins per game",
                    stranger="{name!r} is not a bowler of this match",
                    valid=lambda pins: _whole(pins) and 0 <= pins <= MAX_HANDICAP,
                    wrong=f"{{name}}'s handicap must be a whole number of pins from 0 to "
                          f"{MAX_HANDICAP}, not {{value!r}}")


def _by_seat(table: object, bowlers: Sequence[str], field: str, *, holds: str, stranger: str,
             valid: Callable[[Any], bool], wrong: str) -> dict[str, Any]:
    """``table`` checked as a map of this match's seat names to values ``valid`` accepts, in
    seat order; refused with ``field``: "``holds``, not ...", ``stranger`` (a name not seated)
    or ``wrong`` (a value refused), the last two formatted with the ``name`` and ``value``."""
    if not isinstance(table, Mapping):
        refuse(f"{holds}, not {table!r}", field)
    for name, value in table.items():
        if name not in bowlers:
            refuse(stranger.format(name=name), field)
        if not valid(value):
            refuse(wrong.format(name=name, value=value), field)
    return {name: table[name] for name in bowlers if name in table}
