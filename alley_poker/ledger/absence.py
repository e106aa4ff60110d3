"""A bowler who is not there: the desk marks a seated bowler absent (never came) or gone
(left), at any time in play, and the match goes on without them (docs/rules.md, "A bowler
who is not there").

* Not bowled yet: they were never in the game, so they leave it as if never seated — their
  open choices lapse, any card goes back to the pile, and everything they paid is refunded
  (``bowler_removed``).  A match may not drop below ``min_bowlers`` this way: void it.
* Bowled, then left: their ante stays in the pot and the rule book's ``leaving_bowler``
  says what becomes of their hand: ``"keeps_hand"`` — it stays in to the showdown, and each
  choice still open is made for them as its deadline would make it (nobody will answer it);
  ``"folds"`` — their choices lapse and their cards go back into the pile (jokers armed, as
  any card put back).

Either way no more of their balls are taken, the match no longer waits for their games (the
end of the match begins once everyone still bowling has finished), and they get no
lowest-score draw and no buy.  At least one bowler must still be bowling: the desk settles
the match as the hands stand instead.
"""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, refuse
from alley_poker.ledger.decision_answers import automatic_choice
from alley_poker.ledger.endgame import all_games_complete, begin_end
from alley_poker.ledger.losing import return_cards
from alley_poker.ledger.pending_decisions import (
    close_decision,
    require_bowler,
    require_commissioner,
)


def has_bowled(balls: list[list[dict]]) -> bool:
    """True when any game of the bowler has a recorded ball.

    >>> has_bowled([[], []]), has_bowled([[{"pins": 7}], []])
    (False, True)
    """
    return any(balls)


def bowler_gone(ctx: Context, cmd: c.CommissionerBowlerGone) -> None:
    require_commissioner(ctx)
    state = ctx.state
    require_bowler(ctx, cmd.bowler)
    bowler = cmd.bowler
    if state.status not in ("open", "playing", "ending") or state.result is not None:
        refuse("a bowler can be marked not there while the match is in play, before its "
               "result" + (" (undo the result first)" if state.result is not None else ""),
               "status")
    if bowler in state.gone:
        refuse(f"{bowler} is already marked as gone", "bowler")
    reason = cmd.reason.strip() if isinstance(cmd.reason, str) else ""
    if not has_bowled(state.balls[bowler]):
        _remove_unbowled(ctx, bowler, reason)
    else:
        _leave(ctx, bowler, reason)
    if state.status == "playing" and state.balls_recorded and all_games_complete(state):
        begin_end(ctx)   # everyone still bowling had finished: the match was waiting on them


def _remove_unbowled(ctx: Context, bowler: str, reason: str) -> None:
    state = ctx.state
    if len(state.bowlers) <= state.rules.min_bowlers:
        refuse(f"{bowler} has not bowled, and a match needs at least "
               f"{state.rules.min_bowlers} bowlers: void the match instead (every ante is "
               "refunded)", "bowler")
    ctx.emit("bowler_gone", bowler=bowler, outcome="removed", reason=reason)
    for decision in state.pending_for(bowler):
        close_decision(ctx, decision, "lapsed", f"{bowler} is not here")
    return_cards(ctx, bowler, list(state.hands[bowler]), "bowler removed")
    ctx.emit("bowler_removed", bowler=bowler, refund_cents=state.paid[bowler])


def _leave(ctx: Context, bowler: str, reason: str) -> None:
    state = ctx.state
    if not any(state.in_play(b) for b in state.bowlers if b != bowler):
        refuse(f"{bowler} is the last bowler still bowling: settle the match as the hands "
               "stand instead", "bowler")
    outcome = state.rules.leaving_bowler
    ctx.emit("bowler_gone", bowler=bowler, outcome=outcome, reason=reason)
    for decision in state.pending_for(bowler):
        if outcome == "keeps_hand":
            automatic_choice(ctx, decision, "left")
        else:
            close_decision(ctx, decision, "lapsed", f"{bowler} folded")
    if outcome == "folds":
        return_cards(ctx, bowler, list(state.hands[bowler]), "folded")
