"""``handle``: validate a command against a match and return the events it produces."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime

from alley_poker.bowling import Game
from alley_poker.fairness.deal import RandomForTests, SeededDeal
from alley_poker.ledger import absence, corrections, decision_answers, endgame, play, undo
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, refuse
from alley_poker.ledger.events import Event
from alley_poker.ledger.invariants import check_invariants
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.pending_decisions import require_commissioner
from alley_poker.ledger.state import MatchState

#: Where a command's cards come from (see :func:`handle`).
DealSource = random.Random | SeededDeal | RandomForTests


def _commissioner(action: Callable[[Context], None]) -> Callable[[Context, c.Command], None]:
    def run(ctx: Context, cmd: c.Command) -> None:
        require_commissioner(ctx)
        action(ctx)

    return run


_HANDLERS: dict[type, Callable[[Context, c.Command], None]] = {
    c.CreateMatch: play.create_match,
    c.ConsentToAnte: play.consent,
    c.StartMatch: play.start_match,
    c.StackPile: play.stack_pile,
    c.RecordBall: play.record_ball,
    c.CorrectBall: corrections.correct_ball,
    c.HollandDaze: play.holland_daze,
    c.DecideLoseCard: decision_answers.decide_lose_card,
    c.DecideGuess: decision_answers.decide_guess,
    c.RecordGuessOutcome: decision_answers.record_guess_outcome,
    c.DecideSteal: decision_answers.decide_steal,
    c.DecideEndDraw: decision_answers.decide_end_draw,
    c.DecideBuy: decision_answers.decide_buy,
    c.ExpireDecision: decision_answers.expire_decision,
    c.CommissionerAddBowler: play.add_bowler,
    c.CommissionerRemoveBowler: play.remove_bowler,
    c.CommissionerBowlerGone: absence.bowler_gone,
    c.CommissionerVoidGuess: decision_answers.void_guess,
    c.CommissionerDeclineForEveryone: decision_answers.decline_for_everyone,
    c.CommissionerApplyReview: corrections.apply_review,
    c.CommissionerDismissReview: corrections.dismiss_review,
    c.CommissionerUndoLastAction: lambda ctx, cmd: undo.undo_last_action(ctx, cmd, _reapplied),
    c.CommissionerVoidMatch: _commissioner(endgame.void_match),
    c.CommissionerConfirmResult: _commissioner(endgame.confirm_result),
    c.CommissionerUndoResult: _commissioner(endgame.undo_result),
    c.CommissionerSettleAsHandsStand: _commissioner(endgame.settle_as_hands_stand),
}

#: Commands that still apply to a settled or void match.
_AFTER_THE_END = (c.CommissionerUndoResult, c.CommissionerUndoLastAction)


def _reapplied(ctx: Context, command: c.Command) -> None:
    """One later action re-applied by an undo, as ``decide`` runs it (end stages included)."""
    _HANDLERS[type(command)](ctx, command)
    if ctx.state.status == "ending":
        endgame.advance_end(ctx)


def handle(state: MatchState, command: c.Command, *, rng: DealSource,
           now: datetime) -> list[Event]:
    """The events ``command`` produces against ``state`` (which is never modified).

    ``rng`` is where the cards come from: a match's :class:`SeededDeal` (fair dealing,
    docs/fairness.md) or, in tests and scenarios, a seeded ``random.Random`` (the explicit
    test-only source; its matches commit to no seed).

    Raises :class:`CommandRefused` with the reason when the command does not apply; then
    nothing happened.

    >>> from datetime import datetime, timezone
    >>> state = MatchState.empty("m1")
    >>> now = datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
    >>> events = handle(state, c.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
    ...                 rng=random.Random(1), now=now)
    >>> [(e.seq, e.type) for e in events], state.status   # the state is not touched
    ([(1, 'match_created')], 'new')
    >>> for event in events:
    ...     state.apply(event)
    >>> handle(state, c.StartMatch(actor="commissioner:pat"), rng=random.Random(1), now=now)
    Traceback (most recent call last):
    ...
    alley_poker.ledger.ledger_errors.CommandRefused: consents: waiting for consent to the 100-cent \
ante from Ann, Bob
    """
    return decide(state, command, rng=rng, now=now)[0]


def decide(state: MatchState, command: c.Command, *, rng: DealSource,
           now: datetime) -> tuple[list[Event], MatchState]:
    """:func:`handle`, and also the state after the events: a new state, checked against
    every invariant, that a caller keeping the match in memory can take as it is instead of
    folding the same events again (``state`` is still never modified)."""
    handler = _HANDLERS.get(type(command))
    if handler is None:
        refuse(f"unknown command {type(command).__name__}", "command")
    actor = getattr(command, "actor", None)
    if not isinstance(actor, str) or not actor.strip():
        refuse("every command names its actor (e.g. 'feed:lane-3', 'bowler:Ann')", "actor")
    if state.status == "new" and not isinstance(command, c.CreateMatch):
        refuse(f"match {state.match_id} does not exist", "match_id")
    if state.status in FINISHED and not isinstance(command, _AFTER_THE_END):
        refuse(f"the match is {state.status}: nothing more can happen in it", "status")
    ctx = Context(state, command, rng, now)
    handler(ctx, command)
    if ctx.state.status == "ending":
        endgame.advance_end(ctx)
    check_invariants(ctx.state)
    return ctx.events, ctx.state


class _InPlace(Context):
    """A context that works on the given state itself rather than on a clone, and keeps
    the bowling games it rebuilt in ``games`` for the next command on the same state."""

    def __init__(self, state: MatchState, command: c.Command, rng: DealSource, now: datetime,
                 games: dict[int, tuple[list[dict], Game]]):
        super().__init__(state, command, rng, now, in_place=True)
        self._games = games

    def game_of(self, balls: list[dict]) -> Game:
        # Ball lists only grow by the ball just rolled into their game, so a kept game
        # with as many balls as the list is that list's game (the list is kept alive with
        # it, so its id cannot be reused).
        kept = self._games.get(id(balls))
        if kept is not None and kept[0] is balls and len(kept[1].balls) == len(balls):
            return kept[1]
        game = super().game_of(balls)
        self._games[id(balls)] = (balls, game)
        return game


def play_on_copy(state: MatchState, command: c.Command, *, rng: DealSource,
                 now: datetime, games: dict | None = None) -> None:
    """Apply ``command`` to ``state`` itself, by the same rules as :func:`decide`.

    For simulations that play a match on to its end many times (the live odds): it skips
    the clone and the invariant check that make :func:`decide` safe, so ``state`` must be a
    throwaway copy — a refused command (:class:`CommandRefused`) may leave it half-changed.
    ``games`` (an empty dict, then passed again with every command on the same copy) keeps
    the bowling games between commands instead of rebuilding them from the balls.

    >>> from datetime import datetime, timezone
    >>> now = datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
    >>> state = MatchState.empty("m1")
    >>> play_on_copy(state, c.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
    ...              rng=random.Random(1), now=now)
    >>> state.status, state.seq
    ('open', 1)
    """
    handler = _HANDLERS[type(command)]
    if state.status in FINISHED:
        refuse(f"the match is {state.status}: nothing more can happen in it", "status")
    ctx = _InPlace(state, command, rng, now, {} if games is None else games)
    handler(ctx, command)
    if ctx.state.status == "ending":
        endgame.advance_end(ctx)
