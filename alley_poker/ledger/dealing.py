"""Dealing: cards earned by marks, drawing (the hole, Freaky Friday, the empty pile).

How many cards a mark earns depends on the bowler's previous mark (the streak):

>>> from alley_poker.ledger.rules import RuleBook
>>> rules = RuleBook.default()
>>> cards_for_mark(rules, None, "strike")
(2, ['strike', 2])
>>> cards_for_mark(rules, ["strike", 2], "strike")
(3, ['strike', 3])
>>> cards_for_mark(rules, ["strike", 3], "strike")
(3, ['strike', 3])
>>> cards_for_mark(rules, ["strike", 3], "spare")
(1, ['spare', 1])
"""

from __future__ import annotations

from alley_poker.ledger.context import Context
from alley_poker.ledger.rules import RuleBook
from alley_poker.ledger.state import JOKERS


def cards_for_mark(rules: RuleBook, streak: list | None, mark: str) -> tuple[int, list]:
    """Cards a ``mark`` (``"strike"``/``"spare"``) earns after ``streak``, and the new streak.

    A mark of the same kind as the previous one earns one more card than it did, up to
    ``streak_cap`` (never fewer than the mark's base cards).
    """
    base = rules.strike_cards if mark == "strike" else rules.spare_cards
    if streak is not None and streak[0] == mark:
        count = max(base, min(streak[1] + 1, rules.streak_cap))
    else:
        count = base
    return count, [mark, count]


def draw_cards(ctx: Context, bowler: str, count: int, reason: str,
               for_ball: list[int] | None = None) -> list[str]:
    """Draw ``count`` cards for ``bowler``; returns the cards actually acquired."""
    acquired = []
    for _ in range(count):
        card = draw_one(ctx, bowler, reason, for_ball)
        if card is not None:
            acquired.append(card)
    return acquired


def draw_one(ctx: Context, bowler: str, reason: str,
             for_ball: list[int] | None = None) -> str | None:
    """One draw: pays off a card of the hole first; else the top of the pile (an armed joker
    swaps the powers); else the courtesy shuffle.  Returns the card acquired, if any."""
    state = ctx.state
    if state.hole[bowler] < 0:
        ctx.emit("hole_paid_off", bowler=bowler, reason=reason, for_ball=for_ball)
        return None
    if state.pile:
        card = state.pile[0]
        armed = card in state.armed
        ctx.emit("card_drawn", bowler=bowler, card=card, reason=reason, for_ball=for_ball)
        if armed:
            # Drawing an armed joker disarms every armed joker: one swap, never two.
            disarmed = sorted(state.armed)
            powers = {joker: ("bad" if state.powers[joker] == "good" else "good")
                      for joker in JOKERS}
            ctx.emit("jokers_swapped", trigger=card, disarmed=disarmed, powers=powers)
        return card
    return _courtesy_draw(ctx, bowler, reason, for_ball)


def _courtesy_draw(ctx: Context, bowler: str, reason: str,
                   for_ball: list[int] | None) -> str | None:
    state = ctx.state
    if state.rules.empty_pile == "skip":
        return _skip(ctx, bowler, reason, for_ball, "the draw pile is empty")
    counts = {b: len(state.hands[b]) for b in state.bowlers}
    others = [b for b in state.bowlers if b != bowler and counts[b] > 0]
    if not others:
        return _skip(ctx, bowler, reason, for_ball,
                     "the draw pile is empty and nobody else holds a card")
    most = max(counts.values())
    candidates = [b for b in others if counts[b] == most]
    if not candidates:
        return _skip(ctx, bowler, reason, for_ball,
                     "the draw pile is empty and the drawer holds the most cards")
    draws = ctx.draws("courtesy")
    victim = candidates[0] if len(candidates) == 1 else draws.pick(candidates)
    card = draws.pick(state.hands[victim])
    ctx.emit("card_taken", bowler=bowler, from_bowler=victim, card=card, via="courtesy",
             reason=reason, for_ball=for_ball)
    return card


def _skip(ctx: Context, bowler: str, reason: str, for_ball: list[int] | None,
          why: str) -> None:
    ctx.emit("draw_skipped", bowler=bowler, reason=reason, why=why, for_ball=for_ball)
    return None
