"""A night's side games as the league sets them: brackets, and pots on a number.

Every setting is checked when made, with an error naming the field; ``to_data`` and
:func:`settings_from_data` carry a setting in an event (plain JSON values).

A bracket is eight bowlers, three rounds head to head, one counted game a round:

>>> hdcp = BracketSettings(games=(1, 2, 3), scoring="handicap", entry_cents=500,
...                        payouts_cents=(3000, 1000))
>>> hdcp.bracket_cents, hdcp.prizes_cents(8), hdcp.prizes_cents(7)
(4000, (3000, 1000), (2500, 1000))
>>> reverse = BracketSettings(games=(3, 2, 1), scoring="scratch", entry_cents=500,
...                           payouts_cents=(2500, 1000), organiser_cents=500)
>>> settings_from_data(reverse.to_data()) == reverse
True
>>> BracketSettings(games=(1, 2, 3), scoring="scratch", entry_cents=500,
...                 payouts_cents=(2500, 1000))
Traceback (most recent call last):
...
alley_poker.side_games.side_game_errors.SideGameError: payouts_cents: the payouts ($25.00 + \
$10.00) and the organiser's share ($0.00) must add up to the bracket's $40.00 (8 entries of $5.00)

A pot pays places by percent of what came in (or, for strikes, a share per strike):

>>> PotSettings(kind="high_game", scoring="handicap", games=(1, 2, 3), entry_cents=200,
...             places_percent=(60, 40)).places_percent
(60, 40)
>>> PotSettings(kind="strikes", scoring="scratch", games=(1, 2, 3), entry_cents=100,
...             places_percent=(60, 40))
Traceback (most recent call last):
...
alley_poker.side_games.side_game_errors.SideGameError: places_percent: a strike pot pays a share \
per strike, so its places are (100,), not (60, 40)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from alley_poker.league.exports import dollars
from alley_poker.side_games.side_game_errors import SideGameError

#: Bowlers in a full bracket: three rounds of head-to-head games (8 -> 4 -> 2 -> 1).
BRACKET_SIZE = 8
ROUNDS = 3
#: A game number is 1..MAX_GAME (the ledger's most games a night).
MAX_GAME = 10
MAX_ENTRY_CENTS = 100_000
MAX_ENTRIES_PER_BOWLER = 50
SCORINGS = ("scratch", "handicap")
#: How a tied head-to-head game is decided (docs/league.md, "Side games"):
#: ``next_game`` the higher score on the next counted game, then the one after, then a
#: roll-off the desk records; ``roll_off`` a roll-off at once; ``split`` as ``next_game``
#: in the first two rounds, and a tied final shares first and second prize.
TIE_RULES = ("next_game", "roll_off", "split")
POT_KINDS = ("high_game", "high_series", "strikes")
MAX_ORGANISER_PERCENT = 50
GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


def check_game_id(game_id: object) -> str:
    """A side game's id: 1-32 lower-case letters, digits and dashes ("hdcp", "reverse")."""
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
        raise SideGameError("a side game id is 1-32 lower-case letters, digits and dashes, "
                            f"not {game_id!r}", field="game")
    return game_id


def _whole(value: object, low: int, high: int, what: str, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SideGameError(f"{what} must be a whole number from {low} to {high}, "
                            f"not {value!r}", field=name)
    return value


def _numbers(value: object, what: str, name: str, low: int, high: int) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise SideGameError(f"{what} must be a list of whole numbers, not {value!r}",
                            field=name)
    return tuple(_whole(v, low, high, what, name) for v in value)


def _games(value: object, name: str = "games") -> tuple[int, ...]:
    games = _numbers(value, "a counted game", name, 1, MAX_GAME)
    if len(set(games)) != len(games) or not games:
        raise SideGameError(f"the counted games must be different game numbers, not {games}",
                            field=name)
    return games


def _one_of(value: object, choices: tuple[str, ...], what: str, name: str) -> str:
    if value not in choices:
        raise SideGameError(f"{what} is one of {', '.join(choices)}, not {value!r}",
                            field=name)
    return value  # type: ignore[return-value]


def _eligible(value: object) -> frozenset[int] | None:
    if value is None:
        return None
    return frozenset(_numbers(value, "an eligible bowler id", "eligible", 1, 2**63 - 1))


@dataclass(frozen=True)
class BracketSettings:
    """Brackets of eight: round ``n`` is decided on game ``games[n - 1]`` (``(3, 2, 1)`` makes
    reverse brackets), by ``scoring``.  A full bracket takes ``8 * entry_cents``: that is
    ``payouts_cents`` (first, then second place if any) plus ``organiser_cents`` (0 unless
    the league sets it).  With ``seven_bowler_brackets`` a bracket may hold seven and a bye:
    its missing entry comes off first place.  ``eligible``: the bowler ids who may enter
    (None: anyone the caller lets in).  ``rollover_to``: the bracket game that entries this
    draw cannot place join before their own refund (see :mod:`.draw`)."""

    games: tuple[int, ...]
    scoring: str
    entry_cents: int
    payouts_cents: tuple[int, ...]
    organiser_cents: int = 0
    seven_bowler_brackets: bool = True
    entries_per_bowler: int = 10
    eligible: frozenset[int] | None = None
    tie_rule: str = "next_game"
    rollover_to: str | None = None
    kind: str = field(default="bracket", init=False)

    def __post_init__(self) -> None:
        games = _games(self.games)
        if len(games) != ROUNDS:
            raise SideGameError(f"a bracket counts {ROUNDS} games, one a round, not {games}",
                                field="games")
        object.__setattr__(self, "games", games)
        _one_of(self.scoring, SCORINGS, "the scoring", "scoring")
        _whole(self.entry_cents, 1, MAX_ENTRY_CENTS, "the entry fee in cents", "entry_cents")
        payouts = _numbers(self.payouts_cents, "a payout in cents", "payouts_cents", 1,
                           BRACKET_SIZE * MAX_ENTRY_CENTS)
        if len(payouts) not in (1, 2) or sorted(payouts, reverse=True) != list(payouts):
            raise SideGameError("a bracket pays first place, or first and second (first the "
                                f"larger), not {payouts}", field="payouts_cents")
        object.__setattr__(self, "payouts_cents", payouts)
        _whole(self.organiser_cents, 0, self.bracket_cents, "the organiser's share in cents",
               "organiser_cents")
        if sum(payouts) + self.organiser_cents != self.bracket_cents:
            shown = " + ".join(f"${dollars(p)}" for p in payouts)
            raise SideGameError(
                f"payouts_cents: the payouts ({shown}) and the organiser's share "
                f"(${dollars(self.organiser_cents)}) must add up to the bracket's "
                f"${dollars(self.bracket_cents)} ({BRACKET_SIZE} entries of "
                f"${dollars(self.entry_cents)})", field="payouts_cents")
        if not isinstance(self.seven_bowler_brackets, bool):
            raise SideGameError("seven_bowler_brackets is true or false",
                                field="seven_bowler_brackets")
        lowest_first = payouts[1] if len(payouts) == 2 else 1
        if self.seven_bowler_brackets and self.prizes_cents(BRACKET_SIZE - 1)[0] < lowest_first:
            raise SideGameError(
                "with seven-bowler brackets first place pays one entry less, so it must be at "
                f"least one entry (${dollars(self.entry_cents)}) above second place",
                field="seven_bowler_brackets")
        _whole(self.entries_per_bowler, 1, MAX_ENTRIES_PER_BOWLER, "entries per bowler",
               "entries_per_bowler")
        object.__setattr__(self, "eligible", _eligible(self.eligible))
        _one_of(self.tie_rule, TIE_RULES, "the tie rule", "tie_rule")
        if self.rollover_to is not None:
            check_game_id(self.rollover_to)

    @property
    def bracket_cents(self) -> int:
        """What a full bracket takes in."""
        return BRACKET_SIZE * self.entry_cents

    def prizes_cents(self, size: int) -> tuple[int, ...]:
        """First (and second) prize of a bracket of ``size`` (8, or 7 with a bye)."""
        short = (BRACKET_SIZE - size) * self.entry_cents
        return (self.payouts_cents[0] - short, *self.payouts_cents[1:])

    def to_data(self) -> dict[str, Any]:
        return {"kind": "bracket", "games": list(self.games), "scoring": self.scoring,
                "entry_cents": self.entry_cents, "payouts_cents": list(self.payouts_cents),
                "organiser_cents": self.organiser_cents,
                "seven_bowler_brackets": self.seven_bowler_brackets,
                "entries_per_bowler": self.entries_per_bowler,
                "eligible": None if self.eligible is None else sorted(self.eligible),
                "tie_rule": self.tie_rule, "rollover_to": self.rollover_to}


@dataclass(frozen=True)
class PotSettings:
    """A pot on a number, one entry a bowler: ``high_game`` (the best of the counted
    ``games``), ``high_series`` (their sum), by ``scoring``; ``strikes`` (a share per strike
    in the counted games).  ``places_percent`` splits what is left after the organiser's
    ``organiser_percent`` (0 unless the league sets it) between the places."""

    kind: str
    scoring: str
    games: tuple[int, ...]
    entry_cents: int
    places_percent: tuple[int, ...] = (100,)
    organiser_percent: int = 0
    eligible: frozenset[int] | None = None
    entries_per_bowler: int = field(default=1, init=False)

    def __post_init__(self) -> None:
        _one_of(self.kind, POT_KINDS, "a pot", "kind")
        _one_of(self.scoring, SCORINGS, "the scoring", "scoring")
        if self.kind == "strikes" and self.scoring != "scratch":
            raise SideGameError("a strike pot counts strikes: its scoring is scratch",
                                field="scoring")
        object.__setattr__(self, "games", _games(self.games))
        _whole(self.entry_cents, 1, MAX_ENTRY_CENTS, "the entry fee in cents", "entry_cents")
        places = _numbers(self.places_percent, "a place's percent", "places_percent", 1, 100)
        if self.kind == "strikes" and places != (100,):
            raise SideGameError(
                "places_percent: a strike pot pays a share per strike, so its places are "
                f"(100,), not {places}", field="places_percent")
        if sum(places) != 100 or sorted(places, reverse=True) != list(places):
            raise SideGameError(f"the places' percents must add up to 100, first the "
                                f"largest, not {places}", field="places_percent")
        object.__setattr__(self, "places_percent", places)
        _whole(self.organiser_percent, 0, MAX_ORGANISER_PERCENT, "the organiser's percent",
               "organiser_percent")
        object.__setattr__(self, "eligible", _eligible(self.eligible))

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "scoring": self.scoring, "games": list(self.games),
                "entry_cents": self.entry_cents, "places_percent": list(self.places_percent),
                "organiser_percent": self.organiser_percent,
                "eligible": None if self.eligible is None else sorted(self.eligible)}


SideGameSettings = BracketSettings | PotSettings


def settings_from_data(data: Mapping[str, Any]) -> SideGameSettings:
    """Settings from their plain form (``to_data``), checked as when made."""
    if not isinstance(data, Mapping):
        raise SideGameError(f"settings are a table of values, not {data!r}", field="settings")
    values = dict(data)
    kind = values.get("kind")
    try:
        if kind == "bracket":
            del values["kind"]
            return BracketSettings(**values)
        _one_of(kind, ("bracket", *POT_KINDS), "a side game", "kind")
        return PotSettings(**values)
    except TypeError as wrong:
        raise SideGameError(f"settings: {wrong}", field="settings") from None
