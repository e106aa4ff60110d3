"""Explaining a hand's value: which cards make it, and what it is called in plain English.

Evaluation (:mod:`alley_poker.hand_keys`) only computes a key, for speed; the cards behind
it are rebuilt here from the key when someone asks, which is rare next to comparisons.

>>> from alley_poker.hand_keys import natural_key, encode
>>> key = natural_key(encode(13, "S", 13, "D", 13, "C", 7, "H", 7, "D"), 5)
>>> best_five(encode(13, "S", 13, "D", 13, "C", 7, "H", 7, "D"), key)
('KC', 'KD', 'KS', '7D', '7H')
>>> describe(key)
'Full house, kings over sevens'
"""

from __future__ import annotations

from alley_poker.cards import RANK_NAMES, RANK_PLURALS, RANKS, Card
from alley_poker.hand_keys import (
    ACE,
    CATEGORY_SHIFT,
    FIVE_OF_A_KIND,
    FLAGS_SHIFT,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    NO_COPIES,
    NO_HAND,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUITS_IN_BLOCK_ORDER,
    THREE_OF_A_KIND,
    TWO_PAIR,
    UNBEATABLE,
    WILDS_MASK,
    WILDS_SHIFT,
    usable_wilds,
)

# Where a wild may stand for any suit, show the one a reader expects first.
_SUIT_PREFERENCE = SUITS_IN_BLOCK_ORDER[::-1]  # spades, hearts, diamonds, clubs


def key_ranks(key: int) -> tuple[int, ...]:
    """The tie-break ranks in a key, in the order they are compared, missing cards left out.

    >>> key_ranks(0x2ED720)
    (14, 13, 7, 2)
    """
    return tuple(rank for shift in (16, 12, 8, 4, 0) if (rank := key >> shift & 15))


def _slot_ranks(key: int) -> tuple[list[int], bool]:
    """The rank of each card of the best hand in the order they count, and whether the
    cards must all be one suit."""
    category = key >> CATEGORY_SHIFT
    first, second, third, fourth, fifth = (key >> shift & 15 for shift in (16, 12, 8, 4, 0))
    if category in (STRAIGHT, STRAIGHT_FLUSH):
        slots = [5, 4, 3, 2, ACE] if first == 5 else list(range(first, first - 5, -1))
    elif category == FIVE_OF_A_KIND:
        slots = [first] * 5
    elif category == FOUR_OF_A_KIND:
        slots = [first] * 4 + [second]
    elif category == FULL_HOUSE:
        slots = [first] * 3 + [second] * 2
    elif category == THREE_OF_A_KIND:
        slots = [first] * 3 + [second, third]
    elif category == TWO_PAIR:
        slots = [first] * 2 + [second] * 2 + [third]
    elif category == PAIR:
        slots = [first] * 2 + [second, third, fourth]
    else:  # high card, flush: five ranks
        slots = [first, second, third, fourth, fifth]
    return [rank for rank in slots if rank], category in (FLUSH, STRAIGHT_FLUSH)


def best_five(source: int, key: int) -> tuple[str, ...]:
    """The cards of the hand ``source`` that make ``key``: a held card where there is one,
    else a wild shown as what it stands for (``"GJ=AS"``).

    ``source`` is the encoded hand with its wild count and option flags (see
    :mod:`alley_poker.hand_keys`).
    """
    if key >> CATEGORY_SHIFT in (NO_HAND, UNBEATABLE):
        return ()
    naturals = [Card(bit % 13 + 2, SUITS_IN_BLOCK_ORDER[bit // 13])
                for bit in range(52) if source >> bit & 1]
    naturals.sort(key=lambda card: -card.rank)  # within a rank: clubs, diamonds, ...
    flags = source >> FLAGS_SHIFT & 3
    wilds = usable_wilds(len(naturals), source >> WILDS_SHIFT & WILDS_MASK, flags)
    slots, suited = _slot_ranks(key)
    for suit in (_SUIT_PREFERENCE if suited else (None,)):
        chosen = _fill_slots(slots, suit, naturals, wilds, not flags & NO_COPIES)
        if chosen is not None:
            return chosen
    raise AssertionError(f"cannot rebuild {key:#x} from {source:#x}")  # pragma: no cover


def _fill_slots(
    slots: list[int], suit: str | None, naturals: list[Card], wilds: int, copies_allowed: bool
) -> tuple[str, ...] | None:
    """Give each slot a held card of its rank (and ``suit``), else a wild; None if short."""
    held = {(card.rank, card.suit) for card in naturals}
    used: set[tuple[int, str]] = set()
    chosen = []
    for rank in slots:
        natural = next((card for card in naturals if card.rank == rank
                        and (suit is None or card.suit == suit)
                        and (card.rank, card.suit) not in used), None)
        if natural is not None:
            used.add((rank, natural.suit))
            chosen.append(str(natural))
            continue
        options = [suit] if suit else list(_SUIT_PREFERENCE)
        free = [x for x in options if (rank, x) not in held and (rank, x) not in used]
        if not wilds or not (free or copies_allowed):
            return None
        stands_for = free[0] if free else options[0]
        wilds -= 1
        used.add((rank, stands_for))
        chosen.append(f"GJ={RANKS[rank - 2]}{stands_for}")
    return tuple(chosen)


#: How a hand named by its top rank alone is said (``name``: "ace"; ``plural``: "aces").
_SAID_BY_TOP_RANK = {
    HIGH_CARD: "High card, {name}",
    THREE_OF_A_KIND: "Three of a kind, {plural}",
    STRAIGHT: "Straight, {name} high",
    FLUSH: "Flush, {name} high",
    FOUR_OF_A_KIND: "Four of a kind, {plural}",
    FIVE_OF_A_KIND: "Five of a kind, {plural}",
}


def describe(key: int, reason: str | None = None) -> str:
    """A key in plain English; ``reason`` says why an unbeatable hand is unbeatable.

    >>> describe(0x2ED720), describe(0x550000), describe(0x9E0000), describe(0)
    ('Pair of aces, king kicker', 'Straight, five high', 'Royal flush', 'No hand')
    """
    category = key >> CATEGORY_SHIFT
    if category == UNBEATABLE:
        return f"Unbeatable: {reason or 'both jokers'}"
    if category == NO_HAND:
        return "No hand"
    ranks = key_ranks(key)
    name, plural = RANK_NAMES[ranks[0]], RANK_PLURALS[ranks[0]]
    if category in _SAID_BY_TOP_RANK:
        return _SAID_BY_TOP_RANK[category].format(name=name, plural=plural)
    if category == PAIR:
        kicker = f", {RANK_NAMES[ranks[1]]} kicker" if len(ranks) > 1 else ""
        return f"Pair of {plural}{kicker}"
    if category == TWO_PAIR:
        return f"Two pair, {plural} and {RANK_PLURALS[ranks[1]]}"
    if category == FULL_HOUSE:
        return f"Full house, {plural} over {RANK_PLURALS[ranks[1]]}"
    return "Royal flush" if ranks[0] == ACE else f"Straight flush, {name} high"
