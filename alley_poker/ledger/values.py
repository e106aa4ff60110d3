"""Judging hands for the ledger: jokers by their current power, the Morgan Maneuver, and the
automatic choice of a card to lose.

The evaluator (``alley_poker.hands``) sees jokers by power (``GJ``/``BJ``); the ledger holds
physical jokers (``JOKER-A``/``JOKER-B``) and maps them here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from alley_poker.cards import Card, parse_card
from alley_poker.ledger.state import JOKERS, MatchState


@lru_cache(maxsize=128)
def _card(text: str) -> Card:
    return parse_card(text)


def powered_cards(state: MatchState, cards: list[str]) -> list[Card]:
    """The cards as the evaluator sees them (jokers by their current power)."""
    return [Card.joker_with_power(state.powers[c]) if c in JOKERS else _card(c) for c in cards]


def is_morgan(state: MatchState, bowler: str) -> bool:
    """The Morgan Maneuver: the bowler's only card acquired is a joker they drew, still held."""
    if not state.rules.morgan_maneuver:
        return False
    acquired = state.acquired[bowler]
    return (len(acquired) == 1 and acquired[0][1] == "draw" and acquired[0][0] in JOKERS
            and acquired[0][0] in state.hands[bowler])


def _evaluate(state: MatchState, cards: list[str]) -> Any:
    from alley_poker.hands import evaluate

    return evaluate(powered_cards(state, cards),
                    wild_may_duplicate=state.rules.wild_may_duplicate,
                    max_wilds_vs_naturals=state.rules.max_wilds_vs_naturals)


def hand_value(state: MatchState, bowler: str) -> Any:
    """The bowler's hand as the showdown judges it (a ``HandValue``)."""
    if is_morgan(state, bowler):
        from alley_poker.hands import HandValue

        return HandValue.unbeatable(reason="Morgan Maneuver")
    return _evaluate(state, state.hands[bowler])


def is_unbeatable(state: MatchState, bowler: str) -> bool:
    return hand_value(state, bowler).category == "unbeatable"


def automatic_loss(state: MatchState, bowler: str) -> str:
    """The card lost for a bowler who did not choose: the one whose loss leaves the strongest
    remaining hand; between equally good choices, the lowest card."""
    hand = state.hands[bowler]
    best: tuple[Any, Card, str] | None = None
    for card in hand:
        rest = [c for c in hand if c != card]
        value = _evaluate(state, rest)
        low = powered_cards(state, [card])[0]
        if best is None or value > best[0] or (value == best[0] and low < best[1]):
            best = (value, low, card)
    if best is None:
        raise ValueError(f"{bowler} holds no card to lose")
    return best[2]
