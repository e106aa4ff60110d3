"""Commands: requests to change a match, validated by :func:`alley_poker.ledger.handle`.

Every command names its ``actor`` for the audit trail: ``"feed:lane-3"`` (the scoring
system), ``"bowler:Ann"`` (a choice at the kiosk), ``"commissioner:pat"`` (a ruling) or
``"scheduler"`` (a deadline).  Bowlers may only act for themselves; rulings need a
commissioner.

>>> RecordBall("Ann", 1, 10, actor="feed:lane-3").pins
10
>>> DecideLoseCard("Ann", "7C", actor="bowler:Ann").card
'7C'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Command:
    """Base of all commands (each subclass adds its fields and an ``actor``)."""


# --- setup ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateMatch(Command):
    match_id: str
    bowlers: tuple[str, ...] | list[str]
    games: int = 1
    ante_cents: int | None = None          # None: the rule book's ante
    rules: dict[str, Any] | None = None     # overrides on top of the house rule book
    test_mode: bool = False                 # allows StackPile; recorded in the log
    actor: str = "system"
    #: A league match's tag: {"league_id", "night_id", "night_date" (ISO date), "people":
    #: {seat name: roster bowler id}} — what the season's standings are kept by.
    league: dict[str, Any] | None = None
    #: Pins added to each game of a bowler (seat name → 0-300); shown beside the natural
    #: score, and counted in the lowest-score draw when the rule book says "handicap".
    handicaps: dict[str, int] | None = None


@dataclass(frozen=True)
class ConsentToAnte(Command):
    bowler: str
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class StartMatch(Command):
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class StackPile(Command):
    """Test facility: move the named cards to the top of the pile, in order."""

    cards: tuple[str, ...] | list[str]
    actor: str = field(kw_only=True)


# --- balls ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordBall(Command):
    bowler: str
    game: int | None      # None: the bowler's current game
    pins: int
    standing: tuple[int, ...] | list[int] | None = None
    foul: bool = False
    gutter: bool | None = None   # None: the feed cannot flag gutters
    split: bool | None = None    # None: the feed gives no split flag
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CorrectBall(Command):
    """A correction of a recorded ball (frame 1-10, ball 1-3 within the frame)."""

    bowler: str
    game: int
    frame: int
    ball: int
    pins: int
    standing: tuple[int, ...] | list[int] | None = None
    foul: bool = False
    gutter: bool | None = None
    split: bool | None = None
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class HollandDaze(Command):
    """A bowler bowled on the wrong lane (a commissioner ruling or a feed record)."""

    bowler: str
    reason: str = ""
    actor: str = field(kw_only=True)


# --- decisions -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DecideLoseCard(Command):
    bowler: str
    card: str
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class DecideGuess(Command):
    bowler: str
    side: str             # "left" or "right"
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class RecordGuessOutcome(Command):
    bowler: str
    side: str             # the side the ball actually came out on
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class DecideSteal(Command):
    bowler: str
    from_bowler: str
    card: str
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class DecideEndDraw(Command):
    bowler: str
    accept: bool
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class DecideBuy(Command):
    bowler: str
    accept: bool
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class ExpireDecision(Command):
    """A decision's deadline passed: the automatic choice is made (refused if not yet due)."""

    bowler: str | None = None          # None with decision_id; else the bowler's oldest
    decision_id: str | None = None
    actor: str = field(kw_only=True, default="scheduler")


# --- commissioner --------------------------------------------------------------------------
@dataclass(frozen=True)
class CommissionerAddBowler(Command):
    bowler: str
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerRemoveBowler(Command):
    bowler: str
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerBowlerGone(Command):
    """The desk marks a seated bowler as not there (never came, or left), at any time in
    play: one who has not bowled is taken out with their payments refunded; one who has
    bowled keeps their hand to the showdown or folds, as the rule book's ``leaving_bowler``
    says.  Either way no more of their balls are taken (docs/rules.md)."""

    bowler: str
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerVoidGuess(Command):
    bowler: str
    reason: str = ""
    decision_id: str | None = None
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerApplyReview(Command):
    review_id: str
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerDismissReview(Command):
    review_id: str
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerUndoLastAction(Command):
    """Take back the last desk action; ``action`` names it (its id, from the ledger's view),
    so an undo meant for one action never takes back another that became last meanwhile."""

    reason: str = ""
    action: int | None = None   # None: whatever desk action is last (scenario scripts)
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerVoidMatch(Command):
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerConfirmResult(Command):
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerUndoResult(Command):
    reason: str = ""
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerDeclineForEveryone(Command):
    """The end of a match in one step: the desk declines the end-of-match draw
    (``kind="end_draw"``) or the buys (``kind="buy"``) for every bowler who has not answered
    yet, instead of one bowler at a time."""

    kind: str
    actor: str = field(kw_only=True)


@dataclass(frozen=True)
class CommissionerSettleAsHandsStand(Command):
    """End the match now, whenever the desk needs to (the night's close, a lane gone down, a
    match that cannot finish), and pay the best hand as the hands stand: no more balls,
    open decisions closed by the desk with ``reason``, no end-of-match draws or buys."""

    reason: str = ""
    actor: str = field(kw_only=True)
