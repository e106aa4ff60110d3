"""What must always hold of a match, checked after every command in tests and on load.

>>> from alley_poker.ledger.state import MatchState
>>> check_invariants(MatchState.empty("m1"))
>>> broken = MatchState.empty("m1"); broken.pot_cents = 5
>>> check_invariants(broken)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
alley_poker.ledger.ledger_errors.InvariantViolation: match m1: pot is 5 cents but antes + buys - ...
"""

from __future__ import annotations

from collections import Counter

from alley_poker.cards import FULL_DECK
from alley_poker.ledger.ledger_errors import InvariantViolation
from alley_poker.ledger.match_status import STATUSES
from alley_poker.ledger.state import JOKERS, MatchState

_DECK = frozenset(str(card) for card in FULL_DECK)


def check_invariants(state: MatchState) -> None:
    """Raise :class:`InvariantViolation` naming the first thing that is broken."""
    problems = list(_problems(state))
    if problems:
        raise InvariantViolation(f"match {state.match_id}: " + "; ".join(problems))


def _problems(state: MatchState):
    if state.status not in STATUSES:
        yield f"unknown status {state.status!r}"
    seats = Counter(state.bowlers)
    for bowler, count in seats.items():
        if count > 1:
            yield f"{bowler} is seated {count} times"
    for table in ("hands", "hole", "streak", "acquired", "balls", "paid", "won"):
        if set(getattr(state, table)) != set(state.bowlers):
            yield f"{table} does not cover exactly the seated bowlers"
    # Counted only when the cheap check finds a repeat: this runs after every command.
    cards = list(state.pile)
    for bowler, hand in state.hands.items():
        if len(set(hand)) != len(hand):
            for card, count in Counter(hand).items():
                if count > 1:
                    yield f"{bowler} holds {card} {count} times"
        cards.extend(hand)
    placed = set(cards)
    # A match voided before it started never had a deck dealt (and never will).
    dealt = state.status in ("playing", "ending", "settled") or (
        state.status == "void" and bool(state.powers))
    if dealt:
        if len(placed) != len(cards):
            for card, count in Counter(cards).items():
                if count > 1:
                    yield f"{card} is in {count} places"
        missing = _DECK - placed
        if missing:
            yield f"cards missing from pile and hands: {' '.join(sorted(missing))}"
        extra = placed - _DECK
        if extra:
            yield f"unknown cards: {' '.join(sorted(extra))}"
        if sorted(state.powers.values()) != ["bad", "good"] or set(state.powers) != set(JOKERS):
            yield f"joker powers are not one good and one bad: {state.powers}"
    elif cards:
        yield "cards are dealt before the match started"
    if not state.armed <= set(JOKERS) or not state.armed <= set(state.pile):
        yield f"armed jokers {sorted(state.armed)} must be jokers in the draw pile"
    expected_pot = sum(state.paid.values()) - sum(state.won.values())
    if state.pot_cents != expected_pot:
        yield (f"pot is {state.pot_cents} cents but antes + buys - payouts is "
               f"{expected_pot}")
    if state.pot_cents < 0:
        yield f"pot is negative ({state.pot_cents} cents)"
    for bowler in state.bowlers:
        if state.hole[bowler] > 0:
            yield f"{bowler}'s hole is positive ({state.hole[bowler]})"
        if state.paid[bowler] < 0 or state.won[bowler] < 0:
            yield f"{bowler} has negative money ({state.paid[bowler]} paid, {state.won[bowler]})"
    for decision in state.decisions.values():
        if decision["bowler"] not in seats:
            yield f"decision {decision['id']} belongs to {decision['bowler']}, not a bowler"
    if state.status == "void" and state.pot_cents:
        yield f"a void match's pot holds {state.pot_cents} cents"
