"""Pending decisions: choices owned by one bowler, queued in order, each with a deadline.

Kinds: ``lose_card`` (which card to lose, offering the ball-return guess while allowed),
``steal`` (after a split pickup), ``end_draw`` (the lowest-score draw) and ``buy``.  Play never
waits for them.  Ids are ``D<seq>`` (the seq of the event that opened the decision).
"""

from __future__ import annotations

from alley_poker.ledger.context import Context, refuse

#: Each decision kind as a desk or a bowler says it.
KIND_WORDS = {"lose_card": "choice of a card to lose", "guess": "ball-return guess",
              "steal": "steal", "end_draw": "end-of-match draw", "buy": "offer to buy a card"}


def kind_words(kind: str) -> str:
    """A decision kind in words.

    >>> kind_words("end_draw"), kind_words("lose_card")
    ('end-of-match draw', 'choice of a card to lose')
    """
    return KIND_WORDS.get(kind, kind.replace("_", " "))


def decision_words(decision: dict) -> str:
    """Whose decision and what it is: "Gus's end-of-match draw".

    >>> decision_words({"bowler": "Gus", "kind": "end_draw"})
    "Gus's end-of-match draw"
    """
    return f"{decision['bowler']}'s {kind_words(decision['kind'])}"


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


def close_decision(ctx: Context, decision: dict, outcome: str, choice: object = None, *,
                   reason: str | None = None) -> None:
    """Close ``decision``; ``reason`` (the desk's own words) only when a desk action that
    names one closes it."""
    extra = {} if reason is None else {"reason": reason}
    ctx.emit("decision_closed", decision_id=decision["id"], bowler=decision["bowler"],
             outcome=outcome, choice=choice, **extra)


def find_decision(ctx: Context, bowler: str, kind: str, decision_id: str | None) -> dict:
    """The decision a ``decide`` of ``kind`` answers: the one named, else the bowler's oldest
    open decision of that kind.  Refuses when there is none or the actor may not answer it."""
    state = ctx.state
    require_bowler(ctx, bowler)
    authorize_for(ctx, bowler)
    wanted = ANSWERS.get(kind)
    if wanted is None:
        refuse(f"there is no kind of decision called {kind!r}", "kind")
    if decision_id is not None:
        decision = state.decisions.get(decision_id)
        if decision is None:
            refuse("that decision is no longer open (already answered, or its time ran out)",
                   "decision_id")
        if decision["bowler"] != bowler:
            refuse(f"that decision is {decision_words(decision)}, not {bowler}'s",
                   "decision_id")
        if decision["kind"] != wanted:
            refuse(f"that decision is {decision_words(decision)}, not a "
                   f"{kind_words(wanted)}", "kind")
        return decision
    for decision in state.decisions.values():
        if decision["bowler"] == bowler and decision["kind"] == wanted:
            return decision
    refuse(f"{bowler} has no {kind_words(wanted)} waiting", "kind")


def require_bowler(ctx: Context, bowler: str) -> None:
    if bowler not in ctx.state.hands:
        refuse(f"no bowler {bowler!r} in this match", "bowler")


def authorize_for(ctx: Context, bowler: str) -> None:
    """Only the bowler themselves or a commissioner may choose for a bowler."""
    actor = ctx.command.actor
    if actor != f"bowler:{bowler}" and not actor.startswith("commissioner:"):
        refuse(f"only {bowler} or the desk may decide for {bowler}", "actor")


def require_commissioner(ctx: Context) -> None:
    if not ctx.command.actor.startswith("commissioner:"):
        refuse("only the desk may do this", "actor")
