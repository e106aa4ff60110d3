"""The response schema of the public match view (``alley_poker.ledger.views.public_match_view``):
what ``GET /api/v1/matches/{id}``, ``POST /api/v1/matches`` and a lane screen's ``state`` send.

Kept apart from ``api_responses`` because the view is the largest answer of the API.  The
models document the view; they never build it (the ledger does), and schemathesis checks real
answers against the OpenAPI document made from them.  Keys a match shows only sometimes (a
league match's tag and handicaps) are left out of ``required`` and never ``null``: absent
means "not a league match" or "no handicaps".

>>> schema = MatchView.model_json_schema()
>>> "league" in schema["properties"], "league" in schema["required"]
(True, False)
>>> sorted(MatchViewBowler.model_json_schema()["properties"])[:4]
['category', 'describe', 'frame', 'game']
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema


def _absent_not_null(schema: dict[str, Any]) -> None:
    """Drop the ``"default": null`` pydantic writes for a key that is absent rather than null
    (a ``X | SkipJsonSchema[None]`` field): the document should not promise a null."""
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is None and "anyOf" not in prop:
            del prop["default"]


class _View(BaseModel):
    model_config = ConfigDict(json_schema_extra=_absent_not_null)


class MatchViewDecision(_View):
    """An open decision as the kiosk shows it, choices as they stand now."""

    id: str
    kind: Literal["lose_card", "steal", "end_draw", "buy"]
    reason: str
    created_at: str = Field(description="when it was opened (UTC, ISO 8601)")
    deadline: str = Field(description="when it is decided for the bowler (UTC, ISO 8601)")
    choices: list[str] | dict[str, list[str]] = Field(
        description="the cards (lose_card), each other bowler's cards (steal), or the "
                    "answers (end_draw: draw/decline, buy: buy/decline)")
    guess_allowed: bool | SkipJsonSchema[None] = Field(
        default=None, description="lose_card only: may the bowler guess the ball return")
    guess: dict[str, Any] | None = Field(
        default=None, description="lose_card only: the guess made (side, at, outcome, correct)")


class MatchViewReview(_View):
    """A correction review item waiting for the commissioner."""

    id: str
    bowler: str
    game: int
    description: str
    difference: dict[str, Any]
    remedy: dict[str, Any]


class MatchViewBowler(_View):
    """One bowler's panel: cards, hole, hand in words, decisions, money, progress."""

    hand: list[str] = Field(description="cards in the order drawn; jokers as GJ/BJ")
    hole: int = Field(description="0, or minus the cards the bowler owes")
    category: str = Field(description="the hand's category (no_hand before the start)")
    describe: str = Field(description="the hand in words")
    unbeatable: bool
    pending: list[MatchViewDecision]
    paid_cents: int
    won_cents: int
    game: int = Field(description="the game the bowler is in (the last once all are bowled)")
    frame: int | None = Field(description="the frame the bowler is in; null once the game "
                                          "is complete")
    scoresheet: str = Field(description="the current game's marks (\"\" under review)")
    next_strike_cards: int | SkipJsonSchema[None] = Field(
        default=None, description="cards the bowler's next strike earns")
    next_spare_cards: int | SkipJsonSchema[None] = Field(
        default=None, description="cards the bowler's next spare earns")
    gone: Literal["keeps_hand", "folds"] | SkipJsonSchema[None] = Field(
        default=None, description="only for a bowler the desk marked gone after they had "
                                  "bowled: their hand stays in to the showdown, or folded "
                                  "(the rule book's leaving_bowler); no more balls")
    # Only in a match with handicaps (a league's): absent otherwise.
    handicap: int | SkipJsonSchema[None] = Field(
        default=None, description="handicap match only: pins added to each game")
    scratch_series: int | None = Field(
        default=None, description="handicap match only: the natural pins of every game begun "
                                  "(null while a game is under correction review)")
    handicap_series: int | None = Field(
        default=None, description="handicap match only: scratch_series plus the handicap for "
                                  "every game begun (null while a game is under review)")


class MatchLeagueTag(_View):
    """Which league night a league match belongs to."""

    league_id: str
    night_id: str
    night_date: str = Field(description="the league night's date (YYYY-MM-DD, league time)")


class MatchViewBowlerOdds(_View):
    """One bowler's live odds."""

    win: float = Field(ge=0, le=1, description="the chance of taking the pot (a tie counts as "
                                               "the share won)")
    expected_cents: int = Field(description="the expected share of the pot, in cents")


class MatchViewOdds(_View):
    """The live win odds of a match (docs/odds.md): a Monte Carlo of the rest of the match."""

    seq: int = Field(description="the event the odds are for (a moment behind the view's "
                                 "seq while the next are computed)")
    iterations: int = Field(description="simulated matches behind the odds (0 when exact)")
    exact: bool = Field(description="the result is known: the odds are the result itself")
    settled: bool = Field(default=False, description=(
        "false for the first estimate and its refinements; true once every chance is known to "
        "within about half a point (one standard error), or the most runs were made"))
    bowlers: dict[str, MatchViewBowlerOdds] = Field(description="by seat name")


class MatchView(_View):
    """The whole public state of a match; never the draw pile's order."""

    match_id: str
    seq: int = Field(description="the number of the match's last event")
    status: Literal["new", "open", "playing", "ending", "settled", "void"]
    games: int
    ante_cents: int
    pot_cents: int
    pile_count: int = Field(description="how many cards the draw pile holds (never which)")
    jokers: dict[str, Literal["good", "bad"]] = Field(
        description="each physical joker's power now")
    seat_order: list[str]
    bowlers: dict[str, MatchViewBowler] = Field(description="by seat name")
    places: list[list[str]] = Field(
        description="bowlers best to worst as if the match ended now (ties share a place)")
    winners: list[str]
    shares: dict[str, int] = Field(description="cents each winner took")
    reviews: list[MatchViewReview]
    # Only a league match carries these: absent (not null) for every other match.
    league: MatchLeagueTag | SkipJsonSchema[None] = Field(
        default=None, description="league match only: its league and night")
    handicaps: dict[str, int] | SkipJsonSchema[None] = Field(
        default=None, description="handicap match only: pins per game by seat name")
    # Only when the centre shows live odds and they have been computed for the match.
    odds: MatchViewOdds | SkipJsonSchema[None] = Field(
        default=None, description="live win odds, when the centre shows them ([odds] in "
                                  "alley.toml) and they are computed")
