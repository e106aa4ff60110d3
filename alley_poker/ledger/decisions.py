"""Pending decisions: choices owned by one bowler, queued in order, each with a deadline.

Kinds: ``lose_card`` (which card to lose, offering the ball-return guess while allowed),
``steal`` (after a split pickup), ``end_draw`` (the lowest-score draw) and ``buy``.  Play never
waits for them.  Ids are ``D<seq>`` (the seq of the event that opened the decision).
"""

from __future__ import annotations

from alley_poker.ledger.context import Context, refuse

#: Which decision kind a ``decide`` kind answers.
ANSWERS = {"lose_card": "lose_card", "guess": "lose_card", "steal": "steal",
           "end_draw": "end_draw", "buy": "buy"}


def open_decision(ctx: Context, bowler: str, kind: str, *, choices: object, reason: str,
                  guess_allowed: bool = False) -> str:
    """Open a decision for ``bowler``; its deadline comes from the rule book."""
    decision_id = f"D{ctx.state.seq + 1}"
    ctx.emit("decision_opened", id=decision_id, bowler=bowler, kind=kind,
             deadline=ctx.deadline(ctx.state.rules.deadline_s(kind)), choices=choices,
             reason=reason, guess_allowed=guess_allowed)
    return decision_id


def close_decision(ctx: Context, decision: dict, outcome: str, choice: object = None) -> None:
    ctx.emit("decision_closed", decision_id=decision["id"], bowler=decision["bowler"],
             outcome=outcome, choice=choice)


def find_decision(ctx: Context, bowler: str, kind: str, decision_id: str | None) -> dict:
    """The decision a ``decide`` of ``kind`` answers: the one named, else the bowler's oldest
    open decision of that kind.  Refuses when there is none or the actor may not answer it."""
    state = ctx.state
    require_bowler(ctx, bowler)
    authorize_for(ctx, bowler)
    wanted = ANSWERS.get(kind)
    if wanted is None:
        refuse(f"unknown decision kind {kind!r}", "kind")
    if decision_id is not None:
        decision = state.decisions.get(decision_id)
        if decision is None:
            refuse(f"no open decision {decision_id!r}", "decision_id")
        if decision["bowler"] != bowler:
            refuse(f"decision {decision_id} belongs to {decision['bowler']}, not {bowler}",
                   "decision_id")
        if decision["kind"] != wanted:
            refuse(f"decision {decision_id} is a {decision['kind']} decision, not {wanted}",
                   "kind")
        return decision
    for decision in state.decisions.values():
        if decision["bowler"] == bowler and decision["kind"] == wanted:
            return decision
    refuse(f"{bowler} has no pending {wanted} decision", "kind")


def require_bowler(ctx: Context, bowler: str) -> None:
    if bowler not in ctx.state.hands:
        refuse(f"no bowler {bowler!r} in this match", "bowler")


def authorize_for(ctx: Context, bowler: str) -> None:
    """Only the bowler themselves or a commissioner may choose for a bowler."""
    actor = ctx.command.actor
    if actor != f"bowler:{bowler}" and not actor.startswith("commissioner:"):
        refuse(f"{actor} may not decide for {bowler} (only bowler:{bowler} or a commissioner)",
               "actor")


def require_commissioner(ctx: Context) -> None:
    if not ctx.command.actor.startswith("commissioner:"):
        refuse(f"only a commissioner may do this, not {ctx.command.actor}", "actor")
