"""Request bodies of the side-game routes (pydantic): the shape is checked here (422 naming
the field); the side games' own rules (payouts that add up, a game the league bowls, an entry
paid in full) are the domain's (:mod:`alley_poker.side_games`), answered 400 naming the field.

>>> body = SideGameBody.model_validate({"kind": "bracket", "games": [1, 2, 3],
...     "scoring": "handicap", "entry_cents": 500, "payouts_cents": [3000, 1000]})
>>> body.root.tie_rule, body.root.organiser_cents
('next_game', 0)
>>> SideGameBody.model_validate({"kind": "high_game", "scoring": "scratch", "games": [1],
...     "entry_cents": 200}).root.places_percent
[100]
>>> EntryBody.model_validate({"game": "hdcp", "bowler": 3, "entries": 2, "paid_cents": 1e3})
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for EntryBody
paid_cents
  Input should be a valid integer ...
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from alley_poker.side_games.settings import TIE_RULES

GameId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9-]*$",
                              description="the side game's id: 'hdcp', 'reverse', 'high-game'")]
BowlerId = Annotated[int, Field(ge=1, lt=2**63, strict=True)]
GameNumber = Annotated[int, Field(ge=1, le=10, strict=True)]
Cents = Annotated[int, Field(ge=0, le=100_000_000, strict=True)]
Count = Annotated[int, Field(ge=1, le=50, strict=True)]
Reason = Annotated[str, Field(min_length=1, max_length=500)]


class SideBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EmptyBody(SideBody):
    """A command that takes nothing but its URL (open, draw, reveal): ``{}`` or no body."""


class BracketBody(SideBody):
    kind: Literal["bracket"]
    games: Annotated[list[GameNumber], Field(min_length=3, max_length=3,
                                             description="round 1, 2, 3's counted game")]
    scoring: Literal["scratch", "handicap"]
    entry_cents: Cents
    payouts_cents: Annotated[list[Cents], Field(min_length=1, max_length=2)]
    organiser_cents: Cents = 0
    seven_bowler_brackets: bool = True
    entries_per_bowler: Count = 10
    eligible: Annotated[list[BowlerId], Field(max_length=500)] | None = None
    tie_rule: Literal[TIE_RULES] = "next_game"  # type: ignore[valid-type]
    rollover_to: GameId | None = None


class PotBody(SideBody):
    kind: Literal["high_game", "high_series", "strikes"]
    scoring: Literal["scratch", "handicap"]
    games: Annotated[list[GameNumber], Field(min_length=1, max_length=10)]
    entry_cents: Cents
    places_percent: Annotated[list[Annotated[int, Field(ge=1, le=100, strict=True)]],
                              Field(min_length=1, max_length=10)] = [100]
    organiser_percent: Annotated[int, Field(ge=0, le=100, strict=True)] = 0
    eligible: Annotated[list[BowlerId], Field(max_length=500)] | None = None


class SideGameBody(RootModel[Annotated[BracketBody | PotBody, Field(discriminator="kind")]]):
    """A side game's settings: a bracket game, or a pot (high game, high series, strikes)."""


class EntryBody(SideBody):
    game: GameId
    bowler: BowlerId
    entries: Count = 1
    paid_cents: Cents


class WithdrawBody(SideBody):
    game: GameId
    bowler: BowlerId
    entries: Count = 1


class AbsenceBody(SideBody):
    bowler: BowlerId
    game: GameNumber


class RollOffBody(SideBody):
    game: GameId
    bracket: Annotated[int, Field(ge=1, le=1000, strict=True)]
    round: Annotated[int, Field(ge=1, le=3, strict=True)]
    match: Annotated[int, Field(ge=1, le=4, strict=True, description="1-based, in its round")]
    winner: BowlerId


class PaymentBody(SideBody):
    game: GameId
    bracket: Annotated[int, Field(ge=1, le=1000, strict=True)] | None = Field(
        None, description="the bracket to pay; none for a pot")
    as_they_stand: bool = False


class ChangeBody(SideBody):
    """The desk's answer to a paid result the games now change."""

    game: GameId
    bracket: Annotated[int, Field(ge=1, le=1000, strict=True)] | None = None
    accept: bool
    reason: Reason
