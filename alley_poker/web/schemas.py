"""Request and response schemas of the JSON API (pydantic), and the commands they build.

Each command body is validated by its model (unknown fields refused) and turned into the
ledger command; the ledger then judges it against the match.

>>> body = RecordBallBody.model_validate({"bowler": "Ann", "pins": 10})
>>> body.to_command(actor="commissioner:tablet")  # doctest: +ELLIPSIS
RecordBall(bowler='Ann', game=None, pins=10, standing=None, foul=False, ...)
>>> RecordBallBody.model_validate({"bowler": "Ann", "pins": 11})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for RecordBallBody
pins
  Input should be less than or equal to 10 ...
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from alley_poker.ledger import commands as c

BowlerName = Annotated[str, Field(min_length=1, max_length=60)]
Reason = Annotated[str, Field(max_length=500)]


class CommandBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def to_command(self, *, actor: str) -> c.Command:  # pragma: no cover - abstract
        raise NotImplementedError


class RecordBallBody(CommandBody):
    """One ball entered by hand (a lane without a feed, or a correction of the feed)."""

    bowler: BowlerName
    game: Annotated[int, Field(ge=1)] | None = None
    pins: Annotated[int, Field(ge=0, le=10)]
    standing: list[Annotated[int, Field(ge=1, le=10)]] | None = None
    foul: bool = False
    gutter: bool | None = None
    split: bool | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.RecordBall(self.bowler, self.game, self.pins, standing=self.standing,
                            foul=self.foul, gutter=self.gutter, split=self.split, actor=actor)


class HollandDazeBody(CommandBody):
    """The commissioner rules a Holland-daze (bowled on the wrong lane)."""

    bowler: BowlerName
    reason: Reason = ""

    def to_command(self, *, actor: str) -> c.Command:
        return c.HollandDaze(self.bowler, reason=self.reason, actor=actor)


class LoseCardBody(CommandBody):
    """The card a bowler gives up (a gutter ball), by its face: ``7H``, ``GJ``, ``BJ``."""

    bowler: BowlerName
    card: Annotated[str, Field(min_length=2, max_length=3)]
    decision_id: str | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideLoseCard(self.bowler, self.card, decision_id=self.decision_id,
                                actor=actor)


#: The command kinds in URLs, and the schema of each body.
COMMAND_BODIES: dict[str, type[CommandBody]] = {
    "record-ball": RecordBallBody,
    "holland-daze": HollandDazeBody,
    "lose-card": LoseCardBody,
}


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


class MatchSummary(BaseModel):
    match_id: str
    status: str
    lanes: list[int]
    bowlers: list[str]
    pot_cents: int


class MatchList(BaseModel):
    matches: list[MatchSummary]


class CommandAccepted(BaseModel):
    match_id: str
    seq: int
    events: list[dict[str, Any]]
