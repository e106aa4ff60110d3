"""Request bodies of the league routes (pydantic), checked before the league store sees them.

Pydantic checks the shape (types, lengths, ranges: a failure is 422 naming the field); the
league's own rules (a real time zone, odd-even lane pairs, unique names on the roster) are
the domain's (:mod:`alley_poker.league`), answered 400 naming the field.

>>> body = CreateLeagueBody.model_validate({
...     "league_id": "tue", "name": "Tuesday Night", "ante_cents": 200, "weekday": 1,
...     "start_time": "19:00", "time_zone": "America/Chicago", "lane_pairs": [[1, 2]]})
>>> body.games, body.handicap_percent, body.handicap_basis, body.rule_book
(3, 90, 220, 'house-rev-1.2')
>>> EditBowlerBody.model_validate({})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for EditBowlerBody
  Value error, name at least one field to change ...
>>> StartNightBody.model_validate({"checked_in": [3, 3.5]})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for StartNightBody
checked_in.1
  Input should be a valid integer ...
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from alley_poker.names import clean_name
from alley_poker.web.queries import Day

LeagueId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9-]*$")]
LeagueName = Annotated[str, Field(min_length=1, max_length=60), AfterValidator(clean_name)]
#: A roster name is seated in matches: the ledger's 40-character limit.
RosterName = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(clean_name)]
ScorerName = Annotated[str, Field(min_length=1, max_length=24), AfterValidator(clean_name)]
TeamName = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(clean_name)]
Average = Annotated[int, Field(ge=0, le=300, strict=True)]
LanePair = Annotated[list[Annotated[int, Field(ge=1, le=999, strict=True)]],
                     Field(min_length=2, max_length=2)]
StartTime = Annotated[str, Field(pattern=r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$",
                                 description="local start time, HH:MM (24-hour)")]
BowlerId = Annotated[int, Field(ge=1, lt=2**63, strict=True)]


class LeagueBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LeagueSettings(LeagueBody):
    """A league's settings, every one of which a commissioner may change later."""

    name: LeagueName
    rule_book: Annotated[str, Field(min_length=1, max_length=100)] = "house-rev-1.2"
    ante_cents: Annotated[int, Field(ge=1, le=1_000_000, strict=True)]
    weekday: Annotated[int, Field(ge=0, le=6, strict=True,
                                  description="0 Monday .. 6 Sunday")]
    start_time: StartTime
    time_zone: Annotated[str, Field(min_length=1, max_length=64,
                                    description="IANA name, e.g. America/Chicago")]
    lane_pairs: Annotated[list[LanePair], Field(min_length=1, max_length=100,
                                                description="e.g. [[1, 2], [3, 4]]")]
    games: Annotated[int, Field(ge=1, le=10, strict=True)] = 3
    handicap_percent: Annotated[int, Field(ge=0, le=100, strict=True,
                                           description="0: a scratch league")] = 90
    handicap_basis: Annotated[int, Field(ge=0, le=300, strict=True,
                                         description="the pins the handicap counts up to")] = 220
    lowest_draw_by: Literal["scratch", "handicap"] = "scratch"


class CreateLeagueBody(LeagueSettings):
    """A new league."""

    league_id: LeagueId


class UpdateLeagueBody(LeagueBody):
    """Changes to a league: the fields given replace the league's, the others stay."""

    name: LeagueName | None = None
    rule_book: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    ante_cents: Annotated[int, Field(ge=1, le=1_000_000, strict=True)] | None = None
    weekday: Annotated[int, Field(ge=0, le=6, strict=True)] | None = None
    start_time: StartTime | None = None
    time_zone: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    lane_pairs: Annotated[list[LanePair], Field(min_length=1, max_length=100)] | None = None
    games: Annotated[int, Field(ge=1, le=10, strict=True)] | None = None
    handicap_percent: Annotated[int, Field(ge=0, le=100, strict=True)] | None = None
    handicap_basis: Annotated[int, Field(ge=0, le=300, strict=True)] | None = None
    lowest_draw_by: Literal["scratch", "handicap"] | None = None

    @model_validator(mode="after")
    def _something(self) -> UpdateLeagueBody:
        if not self.changes():
            raise ValueError("name at least one setting to change")
        return self

    def changes(self) -> dict[str, Any]:
        return {key: value for key, value in self.model_dump().items() if value is not None}


class AddBowlerBody(LeagueBody):
    """A bowler joining the league's roster."""

    name: RosterName
    scorer_name: ScorerName
    average: Average | None = None
    handicap_basis: Literal["book", "league"] = "book"
    team: TeamName | None = None


class EditBowlerBody(LeagueBody):
    """Changes to a roster bowler; ``active: false`` retires them, ``true`` brings them back.
    ``average`` or ``team`` given as null clears it."""

    name: RosterName | None = None
    scorer_name: ScorerName | None = None
    average: Average | None = None
    handicap_basis: Literal["book", "league"] | None = None
    team: TeamName | None = None
    active: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> EditBowlerBody:
        if not self.model_fields_set:
            raise ValueError("name at least one field to change")
        return self

    def changes(self) -> dict[str, Any]:
        """The fields given (a null average or team clears it; other nulls are left out)."""
        given = {key: getattr(self, key) for key in self.model_fields_set}
        return {key: value for key, value in given.items()
                if value is not None or key in ("average", "team")}


class RosterImportBody(LeagueBody):
    """A roster file: CSV with a header row (name, scorer_name[, average, handicap_basis,
    team])."""

    csv: Annotated[str, Field(min_length=1, max_length=60_000)]


class StartNightBody(LeagueBody):
    """Tonight's check-in: who is here.  Checking in is consent to the league's ante."""

    night_date: Day | None = Field(default=None, description=(
        "the night (YYYY-MM-DD); default: tonight in the league's time zone"))
    checked_in: Annotated[list[BowlerId], Field(min_length=1, max_length=500)]


class PickSeatBody(LeagueBody):
    """Who a scorer's name is: one of the match's bowlers."""

    bowler: RosterName

