"""Losing a card (gutter balls): the joker priority, the choice, the ball-return guess.

Whether a ball is a gutter ball depends on the rule book's ``gutter_detection``:

>>> from types import SimpleNamespace as Ball
>>> from alley_poker.ledger.rules import RuleBook
>>> rules = RuleBook.default()
>>> is_gutter_ball(rules, Ball(pins=0, full_rack=True, foul=False), flag=None)
True
>>> is_gutter_ball(rules, Ball(pins=0, full_rack=True, foul=True), flag=None)
False
>>> is_gutter_ball(rules, Ball(pins=0, full_rack=True, foul=False), flag=False)
False
"""

from __future__ import annotations

from typing import Any

from alley_poker.ledger.context import Context
from alley_poker.ledger.pending_decisions import open_decision
from alley_poker.ledger.rules import RuleBook


def is_gutter_ball(rules: RuleBook, ball: Any, flag: bool | None) -> bool:
    """A gutter ball by the scoring system's flag or, where allowed, inferred from a full rack
    knocked down not at all.  A foul is never a gutter ball."""
    if ball.foul:
        return False
    inferred = ball.full_rack and ball.pins == 0
    if rules.gutter_detection == "flag_only":
        return bool(flag)
    if rules.gutter_detection == "full_rack":
        return inferred
    return bool(flag) if flag is not None else inferred


def lose_card(ctx: Context, bowler: str, why: str) -> None:
    """The bowler loses a card: the good joker, else the bad joker, else their choice (a
    pending decision offering the guess); with no card, one deeper in the hole."""
    state = ctx.state
    hand = state.hands[bowler]
    for power in ("good", "bad"):
        joker = next((c for c in hand if state.powers.get(c) == power), None)
        if joker is not None:
            return_cards(ctx, bowler, [joker], why)
            return
    if hand:
        open_decision(ctx, bowler, "lose_card", choices=[state.display_card(c) for c in hand],
                      reason=why, guess_allowed=state.rules.guess_allowed)
    else:
        ctx.emit("hole_deepened", bowler=bowler, why=why)


def return_cards(ctx: Context, bowler: str, cards: list[str], why: str) -> None:
    """Put cards back into the draw pile (jokers armed) and reshuffle it once."""
    for card in cards:
        ctx.emit("card_returned", bowler=bowler, card=card, why=why)
    if cards:
        ctx.shuffle(why)
