"""Request and response schemas of the JSON API (pydantic), and the commands they build.

Each command body is validated by its model (unknown fields refused) and turned into the
ledger command; the ledger then judges it against the match.  The response models describe
what the API answers; the OpenAPI document is generated from both.

>>> body = RecordBallBody.model_validate({"bowler": "Ann", "pins": 10})
>>> body.to_command(actor="commissioner:tablet")  # doctest: +ELLIPSIS
RecordBall(bowler='Ann', game=None, pins=10, standing=None, foul=False, ...)
>>> RecordBallBody.model_validate({"bowler": "Ann", "pins": 11})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for RecordBallBody
pins
  Input should be less than or equal to 10 ...
>>> sorted(COMMAND_BODIES)[:4]
['add-bowler', 'apply-review', 'bowler-gone', 'buy']
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, model_validator

from alley_poker.ledger import commands as c
from alley_poker.names import clean_name

#: A bowler's name: NFC, trimmed, no control/bidi/zero-width characters or markup
#: (alley_poker.names), 1-60 characters once cleaned.
BowlerName = Annotated[str, Field(min_length=1, max_length=60), AfterValidator(clean_name)]
Reason = Annotated[str, Field(max_length=500)]
CardFace = Annotated[str, Field(min_length=2, max_length=3)]
DecisionId = Annotated[str, Field(min_length=1, max_length=64)]
Side = Literal["left", "right"]
# Every number of a body is strict: pydantic's lax mode would read ``true`` as 1, ``"7"`` as 7
# and ``7.0`` as 7, so that a broken client records a ball nobody bowled.
Pins = Annotated[int, Field(ge=0, le=10, strict=True)]
StandingPins = list[Annotated[int, Field(ge=1, le=10, strict=True)]]
GameNumber = Annotated[int, Field(ge=1, strict=True)]
#: Match ids as URLs and the store take them: letters, digits, ``-``, ``_``, ``.``.
MatchId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]


#: A match's version: the seq of its last event (``seq`` in the match's public state).
#: Strict, so that ``true`` or ``"40"`` is refused rather than read as a number.
Seq = Annotated[int, Field(ge=0, strict=True)]


class CommandBody(BaseModel):
    """What every command body may carry besides its own fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    expected_seq: Seq | None = Field(default=None, description=(
        "the match's seq the command was chosen on (its public state's `seq`); if the match "
        "has moved on, nothing is done and the answer is 409 `stale_version`"))

    def to_command(self, *, actor: str) -> c.Command:  # pragma: no cover - abstract
        raise NotImplementedError


# --- balls and rulings on them -----------------------------------------------------------
class RecordBallBody(CommandBody):
    """One ball entered by hand (a lane without a feed, or a correction of the feed)."""

    bowler: BowlerName
    game: GameNumber | None = None
    pins: Pins
    standing: StandingPins | None = None
    foul: StrictBool = False
    gutter: StrictBool | None = None
    split: StrictBool | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.RecordBall(self.bowler, self.game, self.pins, standing=self.standing,
                            foul=self.foul, gutter=self.gutter, split=self.split, actor=actor)


class CorrectBallBody(CommandBody):
    """Correct a recorded ball (frame 1-10, ball 1-3 of the frame)."""

    bowler: BowlerName
    game: GameNumber
    frame: Annotated[int, Field(ge=1, le=10, strict=True)]
    ball: Annotated[int, Field(ge=1, le=3, strict=True)]
    pins: Pins
    standing: StandingPins | None = None
    foul: StrictBool = False
    gutter: StrictBool | None = None
    split: StrictBool | None = None
    reason: Reason = ""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CorrectBall(self.bowler, self.game, self.frame, self.ball, self.pins,
                             standing=self.standing, foul=self.foul, gutter=self.gutter,
                             split=self.split, reason=self.reason, actor=actor)


class HollandDazeBody(CommandBody):
    """The commissioner rules a Holland-daze (bowled on the wrong lane)."""

    bowler: BowlerName
    reason: Reason = ""

    def to_command(self, *, actor: str) -> c.Command:
        return c.HollandDaze(self.bowler, reason=self.reason, actor=actor)


# --- decisions (the bowler's, or the commissioner's on their behalf) -----------------------
class LoseCardBody(CommandBody):
    """The card a bowler gives up (a gutter ball), by its face: ``7H``, ``GJ``, ``BJ``."""

    bowler: BowlerName
    card: CardFace
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideLoseCard(self.bowler, self.card, decision_id=self.decision_id,
                                actor=actor)


class GuessBody(CommandBody):
    """The bowler's guess of the side the ball comes back on (before it does)."""

    bowler: BowlerName
    side: Side
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideGuess(self.bowler, self.side, decision_id=self.decision_id, actor=actor)


class GuessOutcomeBody(CommandBody):
    """The side the ball actually came back on, after a guess."""

    bowler: BowlerName
    side: Side
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.RecordGuessOutcome(self.bowler, self.side, decision_id=self.decision_id,
                                    actor=actor)


class StealBody(CommandBody):
    """The card a bowler takes from another after picking up a split."""

    bowler: BowlerName
    from_bowler: BowlerName
    card: CardFace
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideSteal(self.bowler, self.from_bowler, self.card,
                             decision_id=self.decision_id, actor=actor)


class EndDrawBody(CommandBody):
    """Take (or decline) the lowest score's end-of-match draw."""

    bowler: BowlerName
    accept: StrictBool
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideEndDraw(self.bowler, self.accept, decision_id=self.decision_id,
                               actor=actor)


class BuyBody(CommandBody):
    """Buy (or decline) one card at the end of the match, at the ante's price."""

    bowler: BowlerName
    accept: StrictBool
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.DecideBuy(self.bowler, self.accept, decision_id=self.decision_id, actor=actor)


# --- setting a match up ------------------------------------------------------------------
class ConsentBody(CommandBody):
    """Record a bowler's agreement to the ante."""

    bowler: BowlerName

    def to_command(self, *, actor: str) -> c.Command:
        return c.ConsentToAnte(self.bowler, actor=actor)


class StartBody(CommandBody):
    """Start the match (every bowler has agreed to the ante): the pile is shuffled."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.StartMatch(actor=actor)


class AddBowlerBody(CommandBody):
    """Add a bowler before the first ball."""

    bowler: BowlerName
    reason: Reason = ""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerAddBowler(self.bowler, reason=self.reason, actor=actor)


class RemoveBowlerBody(CommandBody):
    """Remove a bowler (refunded) before the first ball."""

    bowler: BowlerName
    reason: Reason = ""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerRemoveBowler(self.bowler, reason=self.reason, actor=actor)


def _said(reason: str) -> str:
    if not reason.strip():
        raise ValueError("say why (a few words for the audit)")
    return reason.strip()


#: A reason the desk must give (a few words for the audit trail).
RequiredReason = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_said)]


class BowlerGoneBody(CommandBody):
    """Mark a seated bowler not here, at any time in play: one who has not bowled is taken
    out with their ante refunded; one who has bowled keeps their hand to the showdown or
    folds, as the match's rule book says (``leaving_bowler``; docs/rules.md)."""

    bowler: BowlerName
    reason: RequiredReason

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerBowlerGone(self.bowler, reason=self.reason, actor=actor)


# --- commissioner rulings ----------------------------------------------------------------
class VoidGuessBody(CommandBody):
    """Void a bowler's ball-return guess (the ball was not seen fairly)."""

    bowler: BowlerName
    reason: Reason = ""
    decision_id: DecisionId | None = None

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerVoidGuess(self.bowler, reason=self.reason,
                                       decision_id=self.decision_id, actor=actor)


class ReviewBody(CommandBody):
    """Apply or dismiss a review item (by its id, from ``.../reviews``)."""

    review_id: Annotated[str, Field(min_length=1, max_length=64)]
    reason: Reason = ""


class ApplyReviewBody(ReviewBody):
    """Apply a review item: the correction it proposes takes effect."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerApplyReview(self.review_id, reason=self.reason, actor=actor)


class DismissReviewBody(ReviewBody):
    """Dismiss a review item: the ledger stays as it is."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerDismissReview(self.review_id, reason=self.reason, actor=actor)


class ReasonBody(CommandBody):
    reason: Reason = ""


class UndoLastBody(ReasonBody):
    """Undo the last desk action (a ruling, a manual-entry ball, a decision made at the desk),
    named by its id as ``GET /matches/{id}/undo`` gave it; the scorer's balls and the bowlers'
    own choices since are kept."""

    action: int = Field(ge=1, strict=True,
                        description="the id of the action to undo, from GET .../undo")

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerUndoLastAction(reason=self.reason, action=self.action,
                                            actor=actor)


class VoidBody(ReasonBody):
    """Void the match: every ante and bought card is refunded."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerVoidMatch(reason=self.reason, actor=actor)


class ConfirmResultBody(ReasonBody):
    """Confirm the result: the pot is paid out and the match is settled."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerConfirmResult(reason=self.reason, actor=actor)


class UndoResultBody(ReasonBody):
    """Undo a confirmed result (compensating events); the match waits for confirmation."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerUndoResult(reason=self.reason, actor=actor)


class DeclineForEveryoneBody(CommandBody):
    """Decline the end-of-match draw (``end_draw``) or the buys (``buy``) for every bowler
    who has not answered yet: one desk step instead of one bowler at a time."""

    kind: Literal["end_draw", "buy"] = Field(description=(
        "which offers to decline: the lowest-score end draw, or the buys"))

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerDeclineForEveryone(self.kind, actor=actor)


class SettleAsHandsStandBody(ReasonBody):
    """End the match now, whenever the desk needs to, and pay the best hand as the hands
    stand: open decisions are closed by the desk with this reason; no end-of-match draws or
    buys (docs/rules.md)."""

    def to_command(self, *, actor: str) -> c.Command:
        return c.CommissionerSettleAsHandsStand(reason=self.reason, actor=actor)


#: The command kinds in URLs, and the schema of each body.
COMMAND_BODIES: dict[str, type[CommandBody]] = {
    "record-ball": RecordBallBody,
    "correct-ball": CorrectBallBody,
    "holland-daze": HollandDazeBody,
    "lose-card": LoseCardBody,
    "guess": GuessBody,
    "guess-outcome": GuessOutcomeBody,
    "steal": StealBody,
    "end-draw": EndDrawBody,
    "buy": BuyBody,
    "decline-for-everyone": DeclineForEveryoneBody,
    "consent": ConsentBody,
    "start": StartBody,
    "void": VoidBody,
    "add-bowler": AddBowlerBody,
    "remove-bowler": RemoveBowlerBody,
    "bowler-gone": BowlerGoneBody,
    "void-guess": VoidGuessBody,
    "apply-review": ApplyReviewBody,
    "dismiss-review": DismissReviewBody,
    "undo-last": UndoLastBody,
    "confirm-result": ConfirmResultBody,
    "undo-result": UndoResultBody,
    "settle-as-hands-stand": SettleAsHandsStandBody,
}


# --- matches and lanes -------------------------------------------------------------------
class StrictBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LaneSlot(StrictBody):
    lane: Annotated[int, Field(ge=1, le=200, strict=True)]
    slot: Annotated[int, Field(ge=1, le=12, strict=True)]
    bowler: BowlerName


class LaneSlots(StrictBody):
    slots: Annotated[list[LaneSlot], Field(min_length=1, max_length=12)]

    @model_validator(mode="after")
    def _each_slot_once(self) -> LaneSlots:
        keys = [(slot.lane, slot.slot) for slot in self.slots]
        if len(set(keys)) != len(keys):
            raise ValueError("the same lane and slot is given to two bowlers: each slot "
                             "takes one bowler")
        return self

    def as_mapping(self) -> dict[tuple[int, int], str]:
        return {(slot.lane, slot.slot): slot.bowler for slot in self.slots}


class CreateMatchBody(LaneSlots):
    """A new match: its bowlers in their lane slots, seat order, games, ante, rule changes."""

    match_id: MatchId
    seat_order: list[BowlerName] | None = None
    games: Annotated[int, Field(ge=1, le=10, strict=True)] = 3
    ante_cents: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] | None = None
    rules: dict[str, Any] | None = None


class ReassignLanesBody(LaneSlots):
    """Move bowlers between lane slots (kept with who and why)."""

    reason: Reason = ""


class CreateTokenBody(StrictBody):
    name: Annotated[str, Field(min_length=1, max_length=100), AfterValidator(clean_name)]


class PairKioskBody(StrictBody):
    """Pair the kiosk showing this code (alley_poker.web.kiosk_pairing)."""

    code: Annotated[str, Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9 -]+$")]


# --- held balls (alley_poker.web.api_held) ---------------------------------------------
class ApplyHeldBody(StrictBody):
    """Offer a held ball to the ledger again."""

    reason: Reason = ""


class DiscardHeldBody(StrictBody):
    """Decide a held ball never counts; the reason goes into the audit trail."""

    reason: Reason


#: The most held balls one bulk discard takes (a night's worth and more).
MAX_BULK_HELD = 5000


class DiscardManyHeldBody(StrictBody):
    """Decide that all these held balls never count: one reason, one command; all or none."""

    ids: Annotated[list[Annotated[int, Field(ge=1, lt=2**63, strict=True)]],
                   Field(min_length=1, max_length=MAX_BULK_HELD,
                         description="the held balls chosen (each open, each once)")]
    reason: Annotated[str, Field(max_length=500, description="required: the audit trail's why")]


class ResyncBody(StrictBody):
    """Bring a bowler's balls in the ledger in step with the scorer."""

    bowler: BowlerName
