"""The rule book: every house-rule option of Bowling Poker as validated configuration.

A league ships its rules as a TOML file (``config/rules/house-rev-1.2.toml`` is the default
and documents each key).  Unknown or ill-typed keys are refused with the key's name:

>>> RuleBook.default().streak_cap
3
>>> RuleBook.from_dict({"streak_cap": 2, "gutter_detection": "flag_only"}).streak_cap
2
>>> RuleBook.from_dict({"streak_capp": 2})
Traceback (most recent call last):
...
alley_poker.ledger.rules.RuleBookError: rules: streak_capp: unknown key
>>> RuleBook.from_dict({"ante_cents": "100"})
Traceback (most recent call last):
...
alley_poker.ledger.rules.RuleBookError: rules: ante_cents: Input should be a valid integer

A deadline (``*_deadline_s``) says what it takes:

>>> RuleBook.from_dict({"buy_deadline_s": "2m"})  # doctest: +NORMALIZE_WHITESPACE
Traceback (most recent call last):
...
alley_poker.ledger.rules.RuleBookError: rules: buy_deadline_s: a deadline is a whole number
of seconds from 1 to 604800 (a week), e.g. 60 for a minute; not '2m'
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# The house rule book ships inside the package (an installed Alley Poker has no checkout);
# a checkout's config/rules/house-rev-1.2.toml is a link to this one file, not a copy.
RULES_DIR = Path(str(resources.files("alley_poker") / "defaults" / "rules"))
DEFAULT_RULES_PATH = RULES_DIR / "house-rev-1.2.toml"

#: Decision kinds that carry a deadline (seconds) in the rule book.
DECISION_KINDS = ("lose_card", "steal", "end_draw", "buy")


class RuleBookError(ValueError):
    """A rule book that cannot be used; the message names the source, the key and the problem."""


Cards = Annotated[int, Field(ge=0, le=10)]
#: The longest a decision may wait for its bowler: a week.
LONGEST_DEADLINE_S = 7 * 24 * 3600
Seconds = Annotated[int, Field(gt=0, le=LONGEST_DEADLINE_S)]


class RuleBook(BaseModel):
    """The house rules of one match.  Immutable; the match records the whole book at creation."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: Annotated[str, Field(min_length=1)] = "house-rev-1.2"
    # Setup
    ante_cents: Annotated[int, Field(gt=0, le=1_000_000)] = 100
    min_bowlers: Annotated[int, Field(ge=2, le=12)] = 2
    max_bowlers: Annotated[int, Field(ge=2, le=12)] = 12
    good_joker: Literal["JOKER-A", "JOKER-B"] = "JOKER-A"
    # Dealing for marks
    strike_cards: Cards = 2
    spare_cards: Cards = 1
    streak_cap: Annotated[int, Field(ge=1, le=10)] = 3
    streak_spans_games: bool = False
    first_strike_bonus: Cards = 1
    # Losing a card
    gutter_detection: Literal["flag_or_full_rack", "flag_only", "full_rack"] = "flag_or_full_rack"
    guess_allowed: bool = True
    # Specials
    split_steal: bool = True
    freaky_friday: bool = True
    morgan_maneuver: bool = True
    empty_pile: Literal["courtesy_shuffle", "skip"] = "courtesy_shuffle"
    # End of match
    lowest_score_draw: bool = True
    # Which series the lowest-score draw compares: the natural one (rev 1.2 III.1), or each
    # game's score plus the bowler's handicap (a handicap league's choice).
    lowest_score_draw_by: Literal["scratch", "handicap"] = "scratch"
    buy_in: bool = True
    buy_good_joker_wins: bool = True
    odd_cents: Literal["first_seated", "house"] = "first_seated"
    # A bowler who has bowled and leaves the match (the desk marks them gone): their hand
    # stays in to the showdown, or they fold it back into the pile (docs/rules.md).
    leaving_bowler: Literal["keeps_hand", "folds"] = "keeps_hand"
    # The evaluator's house options
    wild_may_duplicate: bool = True
    max_wilds_vs_naturals: bool = False
    # Decision deadlines, in seconds
    lose_card_deadline_s: Seconds = 120
    steal_deadline_s: Seconds = 120
    end_draw_deadline_s: Seconds = 300
    buy_deadline_s: Seconds = 300

    def recorded(self) -> dict[str, Any]:
        """The book as a match records it: every key, except a key added after matches were
        first stored while it holds its default (so re-running an older match's creation
        gives the very rule book its log recorded; a missing key reads as its default).

        >>> "leaving_bowler" in RuleBook.default().recorded()
        False
        >>> RuleBook.default().with_overrides({"leaving_bowler": "folds"}).recorded()[
        ...     "leaving_bowler"]
        'folds'
        """
        dump = self.model_dump()
        for key, default in LATER_KEYS.items():
            if dump[key] == default:
                del dump[key]
        return dump

    def deadline_s(self, kind: str) -> int:
        """The deadline of a decision kind, in seconds.

        >>> RuleBook.default().deadline_s("steal")
        120
        """
        return int(getattr(self, f"{kind}_deadline_s"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "rules") -> RuleBook:
        """Validate a mapping of keys (a parsed TOML file, a scenario's ``rules``)."""
        if not isinstance(data, Mapping):
            raise RuleBookError(f"{source}: expected a table of rule keys, got {data!r}")
        try:
            book = cls.model_validate(dict(data))
        except ValidationError as exc:
            raise RuleBookError(_describe(exc, source)) from None
        if book.min_bowlers > book.max_bowlers:
            raise RuleBookError(f"{source}: min_bowlers: greater than max_bowlers")
        return book

    @classmethod
    def load(cls, path: str | Path) -> RuleBook:
        """Load and validate a TOML rule book."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise RuleBookError(f"{path}: cannot read: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise RuleBookError(f"{path}: not valid TOML: {exc}") from None
        return cls.from_dict(data, source=str(path))

    @classmethod
    def default(cls) -> RuleBook:
        """The house rules of rev 1.2 (``config/rules/house-rev-1.2.toml``)."""
        return _default()

    def with_overrides(self, overrides: Mapping[str, Any] | None) -> RuleBook:
        """This book with some keys replaced (validated like a file).

        >>> RuleBook.default().with_overrides({"spare_cards": 2}).spare_cards
        2
        """
        if not overrides:
            return self
        if not isinstance(overrides, Mapping):
            raise RuleBookError(f"rules: expected a table of rule keys, got {overrides!r}")
        return RuleBook.from_dict({**self.model_dump(), **dict(overrides)})


#: Keys added after matches were first stored, with their defaults: recorded only when a
#: match's book differs (:meth:`RuleBook.recorded`).
LATER_KEYS: dict[str, Any] = {"leaving_bowler": "keeps_hand"}

_DEFAULT: RuleBook | None = None


def _default() -> RuleBook:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = RuleBook.load(DEFAULT_RULES_PATH)
    return _DEFAULT


def _describe(exc: ValidationError, source: str) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = "unknown key" if error["type"] == "extra_forbidden" else error["msg"]
        if key.endswith("_deadline_s") and error["type"] != "extra_forbidden":
            # How long a bowler has is the key a league most often changes: say what it takes.
            message = (f"a deadline is a whole number of seconds from 1 to "
                       f"{LONGEST_DEADLINE_S} (a week), e.g. 60 for a minute; "
                       f"not {error['input']!r}")
        problems.append(f"{source}: {key}: {message}")
    return "; ".join(problems)
