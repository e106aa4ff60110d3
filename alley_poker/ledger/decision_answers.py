"""Answering pending decisions: choices by the bowler (or a commissioner on their behalf),
the ball-return guess and its outcome, and expiry at the deadline."""

from __future__ import annotations

from alley_poker.cards import CardParseError, parse_card
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, parse_iso, refuse
from alley_poker.ledger.dealing import draw_one
from alley_poker.ledger.endgame import automatic_win, lapse_buys_if_pile_empty
from alley_poker.ledger.losing import return_cards
from alley_poker.ledger.pending_decisions import (
    close_decision,
    decision_words,
    find_decision,
    kind_words,
    require_bowler,
    require_commissioner,
)
from alley_poker.ledger.values import automatic_loss, is_unbeatable

SIDES = ("left", "right")


def held_card(ctx: Context, bowler: str, text: str, field: str = "card") -> str:
    """The physical card ``text`` names, which ``bowler`` must hold now."""
    try:
        parse_card(text)
    except CardParseError as exc:
        refuse(str(exc), field)
    card = ctx.state.physical_card(text)
    if card is None or card not in ctx.state.hands[bowler]:
        refuse(f"{bowler} does not hold {text.strip().upper()}", field)
    return card


def _side(text: str, field: str = "side") -> str:
    side = str(text).strip().lower()
    if side not in SIDES:
        refuse(f"side must be 'left' or 'right', not {text!r}", field)
    return side


def decide_lose_card(ctx: Context, cmd: c.DecideLoseCard) -> None:
    decision = find_decision(ctx, cmd.bowler, "lose_card", cmd.decision_id)
    guess = decision["guess"]
    if guess is not None and "outcome" not in guess:
        refuse(f"{cmd.bowler} guessed {guess['side']}; waiting for the ball-return outcome",
               "kind")
    card = held_card(ctx, cmd.bowler, cmd.card)
    shown = ctx.state.display_card(card)
    return_cards(ctx, cmd.bowler, [card], "lose_card")
    close_decision(ctx, decision, "chosen", shown)


def decide_guess(ctx: Context, cmd: c.DecideGuess) -> None:
    decision = find_decision(ctx, cmd.bowler, "guess", cmd.decision_id)
    side = _side(cmd.side)
    if not decision["guess_allowed"]:
        why = ("the commissioner voided the guess" if decision.get("guess_voided")
               else "a guess was already made" if decision["guess"] is not None
               else "the house rules do not allow it")
        refuse(f"{cmd.bowler} may not guess now: {why}", "kind")
    ctx.emit("guess_made", decision_id=decision["id"], bowler=cmd.bowler, side=side)


def record_guess_outcome(ctx: Context, cmd: c.RecordGuessOutcome) -> None:
    require_bowler(ctx, cmd.bowler)
    decision = None
    for candidate in ctx.state.decisions.values():
        if (candidate["bowler"] == cmd.bowler and candidate["kind"] == "lose_card"
                and candidate["guess"] is not None and "outcome" not in candidate["guess"]
                and cmd.decision_id in (None, candidate["id"])):
            decision = candidate
            break
    if decision is None:
        refuse(f"{cmd.bowler} has no guess waiting for its outcome", "bowler")
    find_decision(ctx, cmd.bowler, "guess", decision["id"])  # the actor check
    side = _side(cmd.side)
    correct = side == decision["guess"]["side"]
    ctx.emit("guess_resolved", decision_id=decision["id"], bowler=cmd.bowler, side=side,
             correct=correct)
    if correct:
        close_decision(ctx, decision, "guessed_right", side)


def decide_steal(ctx: Context, cmd: c.DecideSteal) -> None:
    decision = find_decision(ctx, cmd.bowler, "steal", cmd.decision_id)
    if cmd.from_bowler == cmd.bowler:
        refuse(f"{cmd.bowler} cannot steal from themselves", "from")
    if cmd.from_bowler not in ctx.state.hands:
        refuse(f"no bowler {cmd.from_bowler!r} in this match", "from")
    card = held_card(ctx, cmd.from_bowler, cmd.card)
    shown = ctx.state.display_card(card)
    ctx.emit("card_taken", bowler=cmd.bowler, from_bowler=cmd.from_bowler, card=card,
             via="steal", reason="split pickup", for_ball=None)
    close_decision(ctx, decision, "chosen", {"from": cmd.from_bowler, "card": shown})


def _accept(value: object) -> bool:
    if not isinstance(value, bool):
        refuse(f"accept must be true or false, not {value!r}", "accept")
    return value


def decide_end_draw(ctx: Context, cmd: c.DecideEndDraw) -> None:
    decision = find_decision(ctx, cmd.bowler, "end_draw", cmd.decision_id)
    _accept(cmd.accept)
    if cmd.accept:
        draw_one(ctx, cmd.bowler, "lowest score")
        close_decision(ctx, decision, "accepted", "draw")
    else:
        close_decision(ctx, decision, "declined", None)
    lapse_buys_if_pile_empty(ctx)


def decide_buy(ctx: Context, cmd: c.DecideBuy) -> None:
    decision = find_decision(ctx, cmd.bowler, "buy", cmd.decision_id)
    if not _accept(cmd.accept):
        close_decision(ctx, decision, "declined", None)
        return
    _buy(ctx, decision)


def _buy(ctx: Context, decision: dict) -> None:
    state = ctx.state
    bowler = decision["bowler"]
    if not state.pile:
        refuse("the draw pile is empty: no card to buy", "accept")
    ctx.emit("buy_paid", bowler=bowler, cents=state.ante_cents)
    card = draw_one(ctx, bowler, "buy")
    close_decision(ctx, decision, "accepted", "buy")
    if (card is not None and state.powers.get(card) == "good"
            and state.rules.buy_good_joker_wins):
        automatic_win(ctx, bowler, card)
        return
    lapse_buys_if_pile_empty(ctx)


def expire_decision(ctx: Context, cmd: c.ExpireDecision) -> None:
    state = ctx.state
    if cmd.decision_id is not None:
        decision = state.decisions.get(cmd.decision_id)
        if decision is None:
            refuse("that decision is no longer open (already answered, or its time ran out)",
                   "decision_id")
    else:
        if cmd.bowler is None:
            refuse("name the bowler or the decision to expire", "bowler")
        require_bowler(ctx, cmd.bowler)
        pending = state.pending_for(cmd.bowler)
        if not pending:
            refuse(f"{cmd.bowler} has no pending decision", "bowler")
        decision = pending[0]
    if ctx.now < parse_iso(decision["deadline"]):
        refuse(f"{decision_words(decision)} is not due until {decision['deadline']}",
               "deadline")
    automatic_choice(ctx, decision, "expired")


def automatic_choice(ctx: Context, decision: dict, outcome: str) -> None:
    """Close ``decision`` with the choice its deadline makes (docs/rules.md), recorded as
    ``outcome``: "expired" at the deadline, "left" when its bowler left the match."""
    state = ctx.state
    bowler, kind = decision["bowler"], decision["kind"]
    if kind == "lose_card":
        if state.hands[bowler]:
            card = automatic_loss(state, bowler)
            shown = state.display_card(card)
            return_cards(ctx, bowler, [card], "lose_card")
            close_decision(ctx, decision, outcome, shown)
        else:
            ctx.emit("hole_deepened", bowler=bowler, why="lose_card")
            close_decision(ctx, decision, outcome, None)
    elif kind == "steal":
        close_decision(ctx, decision, "lapsed", None)
    elif kind == "end_draw":
        if is_unbeatable(state, bowler):
            close_decision(ctx, decision, outcome, "decline (unbeatable hand)")
        else:
            draw_one(ctx, bowler, "lowest score")
            close_decision(ctx, decision, outcome, "draw")
            lapse_buys_if_pile_empty(ctx)
    else:
        close_decision(ctx, decision, outcome, "decline")


#: The offers the desk may decline for everyone at once: the end of the match's, never a
#: card loss or a steal (those change a hand; each is the bowler's or the desk's own call).
DECLINABLE_FOR_EVERYONE = ("end_draw", "buy")


def decline_for_everyone(ctx: Context, cmd: c.CommissionerDeclineForEveryone) -> None:
    """Decline every open offer of ``cmd.kind`` as each bowler's own "Decline" would, in seat
    order; the end of the match then moves on (buys after the draws, then the showdown)."""
    require_commissioner(ctx)
    if cmd.kind not in DECLINABLE_FOR_EVERYONE:
        refuse("only the end-of-match draw ('end_draw') or the buys ('buy') can be declined "
               f"for everyone, not {cmd.kind!r}", "kind")
    state = ctx.state
    waiting = sorted((d for d in state.decisions.values() if d["kind"] == cmd.kind),
                     key=lambda d: state.bowlers.index(d["bowler"]))
    if not waiting:
        refuse(f"nobody has an {kind_words(cmd.kind)} waiting: there is nothing to decline",
               "kind")
    for decision in waiting:
        close_decision(ctx, decision, "declined", None)


def void_guess(ctx: Context, cmd: c.CommissionerVoidGuess) -> None:
    require_commissioner(ctx)
    require_bowler(ctx, cmd.bowler)
    for decision in ctx.state.decisions.values():
        if (decision["bowler"] == cmd.bowler and decision["kind"] == "lose_card"
                and cmd.decision_id in (None, decision["id"])
                and (decision["guess_allowed"] or (decision["guess"] is not None
                                                   and "outcome" not in decision["guess"]))):
            ctx.emit("guess_voided", decision_id=decision["id"], bowler=cmd.bowler,
                     reason=cmd.reason)
            return
    refuse(f"{cmd.bowler} has no guess to void", "bowler")
