"""The league at the domain layer: who runs it on which night and lanes, rule book, handicap.

>>> from dataclasses import replace
>>> from datetime import time
>>> tuesday = League("tue-night", "Tuesday Night Poker", "house-rev-1.2", ante_cents=200,
...                  weekday=1, start_time=time(19, 0), time_zone="America/Chicago",
...                  lane_pairs=[[1, 2], [3, 4]])
>>> tuesday.lane_pairs, tuesday.weekday_name, tuesday.start_time_text
(((1, 2), (3, 4)), 'Tuesday', '19:00')
>>> tuesday.handicap.for_average(160)
54
>>> def why(**changes):
...     try:
...         replace(tuesday, **changes)
...     except LeagueError as refused:
...         return refused.field, str(refused)
>>> why(league_id="Tue Night")
('league_id', "a league id is 1-32 lower-case letters, digits and dashes, starting with a \
letter or digit, not 'Tue Night'")
>>> why(time_zone="America/Chikago")
('time_zone', "'America/Chikago' is not a time zone name (use an IANA name such as \
'America/Chicago' or 'Europe/London')")
>>> why(lane_pairs=((1, 2), (2, 3)))[1]
'lane pair (2, 3) must be an odd lane and the even lane beside it, such as (3, 4)'
>>> why(lane_pairs=((1, 2), (1, 2)))[1]
'lane 1 is in two lane pairs'
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import time
from typing import TYPE_CHECKING

from alley_poker.league.handicap import HandicapRule, whole_number
from alley_poker.league.league_errors import LeagueError
from alley_poker.league.zones import zone_named
from alley_poker.ledger.play import MAX_GAMES
from alley_poker.names import clean_name

if TYPE_CHECKING:
    from alley_poker.ledger.rules import RuleBook

__all__ = ["League", "LeagueError", "parse_start_time"]

LEAGUE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
MAX_LEAGUE_NAME = 60
MAX_RULE_BOOK_NAME = 100
#: The highest lane number the scorer feeds carry (docs/feed-protocol.md: 1..999).
MAX_LANE = 999
#: The most an ante may be (the ledger's own limit, ledger/rules.py).
MAX_ANTE_CENTS = 1_000_000
#: Which score the lowest-score draw (rule book III.1) ranks by.
LOWEST_DRAW_BY = ("scratch", "handicap")


@dataclass(frozen=True)
class League:
    """One league of a centre; checked when made, so every League in hand is a good one."""

    league_id: str
    name: str
    rule_book: str
    ante_cents: int
    weekday: int
    start_time: time
    time_zone: str
    lane_pairs: tuple[tuple[int, int], ...]
    games: int = 3
    handicap: HandicapRule = field(default_factory=HandicapRule)
    lowest_draw_by: str = "scratch"

    def __post_init__(self) -> None:
        if not isinstance(self.league_id, str) or not LEAGUE_ID.fullmatch(self.league_id):
            raise LeagueError(
                "a league id is 1-32 lower-case letters, digits and dashes, starting with a "
                f"letter or digit, not {self.league_id!r}", field="league_id")
        object.__setattr__(self, "name", _clean(self.name, "league name", MAX_LEAGUE_NAME,
                                                "name"))
        object.__setattr__(self, "rule_book", _clean(self.rule_book, "rule book name",
                                                     MAX_RULE_BOOK_NAME, "rule_book"))
        whole_number(self.ante_cents, 1, MAX_ANTE_CENTS, "the ante in cents", "ante_cents")
        whole_number(self.weekday, 0, 6, "a league's weekday (0 Monday .. 6 Sunday)",
                     "weekday")
        if not isinstance(self.start_time, time) or self.start_time.tzinfo is not None:
            raise LeagueError("the start time is a local time of day without a time zone, "
                              f"not {self.start_time!r}", field="start_time")
        zone_named(self.time_zone)
        object.__setattr__(self, "lane_pairs", _lane_pairs(self.lane_pairs))
        whole_number(self.games, 1, MAX_GAMES, "games per night", "games")
        if not isinstance(self.handicap, HandicapRule):
            raise LeagueError("the handicap must be a HandicapRule", field="handicap")
        if self.lowest_draw_by not in LOWEST_DRAW_BY:
            raise LeagueError(f"the lowest-score draw goes by 'scratch' or 'handicap', not "
                              f"{self.lowest_draw_by!r}", field="lowest_draw_by")

    @property
    def weekday_name(self) -> str:
        return calendar.day_name[self.weekday]

    @property
    def start_time_text(self) -> str:
        """The start time as the store and the forms write it, ``HH:MM``."""
        return self.start_time.strftime("%H:%M")

    @property
    def lanes(self) -> tuple[int, ...]:
        return tuple(lane for pair in self.lane_pairs for lane in pair)

    def check_rule_book(self, rules: RuleBook) -> None:
        """LeagueError unless this league's ante is at least ``rules``' ante (the ledger
        refuses a match whose ante is below its rule book's)."""
        if self.ante_cents < rules.ante_cents:
            raise LeagueError(
                f"the ante ({self.ante_cents} cents) is below the rule book "
                f"{self.rule_book}'s ante of {rules.ante_cents} cents", field="ante_cents")


def parse_start_time(text: str) -> time:
    """``HH:MM`` (24-hour) as a time; LeagueError naming the text otherwise.

    >>> parse_start_time("19:30"), parse_start_time("7:05")
    (datetime.time(19, 30), datetime.time(7, 5))
    >>> parse_start_time("7pm")
    Traceback (most recent call last):
    ...
    alley_poker.league.league_errors.LeagueError: a start time is HH:MM on a 24-hour clock, not \
'7pm'
    """
    found = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", text.strip()) if isinstance(
        text, str) else None
    if found is None:
        raise LeagueError(f"a start time is HH:MM on a 24-hour clock, not {text!r}",
                          field="start_time")
    return time(int(found[1]), int(found[2]))


def _clean(value: object, what: str, longest: int, field_name: str) -> str:
    if not isinstance(value, str):
        raise LeagueError(f"the {what} must be text, not {value!r}", field=field_name)
    try:
        cleaned = clean_name(value)
    except ValueError as refused:
        raise LeagueError(f"the {what}: {refused}", field=field_name) from None
    if len(cleaned) > longest:
        raise LeagueError(f"the {what} is at most {longest} characters, not {len(cleaned)}",
                          field=field_name)
    return cleaned


def _lane_pairs(value: object) -> tuple[tuple[int, int], ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise LeagueError("a league needs at least one lane pair, such as ((1, 2),)",
                          field="lane_pairs")
    pairs: list[tuple[int, int]] = []
    seen: set[int] = set()
    for raw in value:
        if (isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence) or len(raw) != 2
                or not all(isinstance(lane, int) and not isinstance(lane, bool)
                           for lane in raw)):
            raise LeagueError(f"a lane pair is two lane numbers, not {raw!r}",
                              field="lane_pairs")
        odd, even = raw
        if not (1 <= odd < MAX_LANE and odd % 2 == 1 and even == odd + 1):
            raise LeagueError(f"lane pair {tuple(raw)} must be an odd lane and the even lane "
                              "beside it, such as (3, 4)", field="lane_pairs")
        for lane in (odd, even):
            if lane in seen:
                raise LeagueError(f"lane {lane} is in two lane pairs", field="lane_pairs")
            seen.add(lane)
        pairs.append((odd, even))
    return tuple(pairs)
