"""A hand's poker value as one integer: the encoding of cards, the key layout, the arithmetic.

This is the engine behind :func:`alley_poker.hands.evaluate`; callers use that.

**Cards** are encoded as one integer: :data:`EMPTY_HAND` plus each card's
:data:`CARD_VALUE`, which is bit ``13 * suit + rank - 2`` for the card itself (clubs,
diamonds, hearts, spades), plus one in each of three counts: its suit's (5-bit fields from
bit 52), its own (2-bit fields from bit 80) and its rank's (4-bit fields from bit 184); a
joker of any kind adds one to the joker count at bit 72.  From bit 256 each card adds its
rank's weight (:data:`RANK_WEIGHTS`).  Summing, not OR-ing, lets a repeated card show itself
(its own count reaches two; and its card bits carry, so they no longer count the cards).
The suit counts tell at once whether a flush is possible; when none is, the rank counts
decide the value, so they index a cache, and for exactly five cards the weights' sum, a
number under 361,000 that differs for every rank pattern, indexes a list
(:data:`FIVE_CARD_KEYS`).  Each :class:`alley_poker.cards.Card` keeps its own encoding
(:func:`card_code`), so summing a hand reads one attribute per card.

**The key** is ``category << 20`` plus five 4-bit rank slots, the first tie-break rank in
the highest slot and 0 for a missing card (short hands), so comparing keys compares hands:

>>> hex(natural_key(encode(14, "S", 14, "D", 13, "C", 7, "H", 2, "D"), 5))  # AA K 7 2
'0x2ed720'
>>> CATEGORIES[0x2ed720 >> CATEGORY_SHIFT]
'pair'
>>> natural_key(encode(14, "S", 14, "D"), 2) < natural_key(encode(14, "S", 14, "D", 2, "C"), 3)
True
"""

from __future__ import annotations

import itertools

from alley_poker.hand_tables import ALL_RANKS_MASK, STRAIGHT_WITH_GAPS, TOP_RANKS

#: Category names, lowest first; a category's index is its strength.
CATEGORIES: tuple[str, ...] = (
    "no_hand", "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
    "full_house", "four_of_a_kind", "straight_flush", "five_of_a_kind", "unbeatable",
)
(NO_HAND, HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH, FULL_HOUSE,
 FOUR_OF_A_KIND, STRAIGHT_FLUSH, FIVE_OF_A_KIND, UNBEATABLE) = range(len(CATEGORIES))
CATEGORY_SHIFT = 20
UNBEATABLE_KEY = UNBEATABLE << CATEGORY_SHIFT

_HIGH = HIGH_CARD << CATEGORY_SHIFT
_PAIR = PAIR << CATEGORY_SHIFT
_TWO_PAIR = TWO_PAIR << CATEGORY_SHIFT
_TRIPS = THREE_OF_A_KIND << CATEGORY_SHIFT
_STRAIGHT = STRAIGHT << CATEGORY_SHIFT
_FLUSH = FLUSH << CATEGORY_SHIFT
_FULL_HOUSE = FULL_HOUSE << CATEGORY_SHIFT
_QUADS = FOUR_OF_A_KIND << CATEGORY_SHIFT
_STRAIGHT_FLUSH = STRAIGHT_FLUSH << CATEGORY_SHIFT
_FIVE = FIVE_OF_A_KIND << CATEGORY_SHIFT

ACE = 14
_TOP1, _TOP2, _TOP3, _TOP5 = TOP_RANKS[1], TOP_RANKS[2], TOP_RANKS[3], TOP_RANKS[5]
_STRAIGHT_TOP = STRAIGHT_WITH_GAPS[0]
#: ``_ACES[k]``: k aces in the top k rank slots (wilds copying the ace of a flush).
_ACES = tuple(sum(ACE << (4 * (4 - i)) for i in range(k)) for k in range(6))

# -- the card encoding ---------------------------------------------------------------------
# Fields, lowest bit first.
SUITS_IN_BLOCK_ORDER = "CDHS"
CARD_BITS = (1 << 52) - 1  # one bit per card: 13 * suit block + rank - 2
_SUIT_COUNT_SHIFT = 52  # a 5-bit count per suit, each started at 11 (see EMPTY_HAND)
JOKER_SHIFT = 72  # an 8-bit count of jokers (of any kind)
JOKER_COUNT_MASK = 0xFF
JOKER_FIELD = JOKER_COUNT_MASK << JOKER_SHIFT
_PAIR_COUNT_SHIFT = 80  # a 2-bit count per card: its high bit shows a card given twice
_TWICE_FLAGS = sum(2 << (_PAIR_COUNT_SHIFT + 2 * card) for card in range(52))
RANK_COUNT_SHIFT = 184  # a 4-bit count per rank
_FOUR_OR_MORE_FLAGS = sum(0b1100 << (RANK_COUNT_SHIFT + 4 * rank) for rank in range(13))
#: Where a value's source (see hands.HandValue) keeps the option flags and the wild count.
FLAGS_SHIFT = 236
WILDS_SHIFT = 240
WILDS_MASK = 0xFFFF
#: From bit 256, the sum of the cards' :data:`RANK_WEIGHTS`: for five cards, a small number
#: that tells their rank pattern apart from every other, so a five-card hand's value is one
#: list index (:data:`FIVE_CARD_KEYS`) rather than a dictionary look-up.
WEIGHT_SHIFT = 256
#: A weight per rank (two first) such that any five cards, no rank more than four times, sum
#: to a different number for every rank pattern: found by a greedy search (each weight the
#: smallest that keeps every five-card sum distinct); the test suite checks the property.
RANK_WEIGHTS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
#: The encoding of no cards.  Each suit count starts at 11, so a suit holding 5 or more
#: cards (16 to 24) shows its 16s bit, :data:`FLUSH_SIGN`: a flush is one AND away.
EMPTY_HAND = sum(11 << (_SUIT_COUNT_SHIFT + 5 * block) for block in range(4))
FLUSH_SIGN = sum(16 << (_SUIT_COUNT_SHIFT + 5 * block) for block in range(4))
#: ``CARD_VALUE[suit][rank]``: what one card adds to an encoded hand.  A joker (suit ``""``,
#: rank 0) adds to the joker count only; it is told apart from a GJ or BJ by a slower pass.
CARD_VALUE: dict[str, list[int]] = {
    suit: [0, 0] + [(1 << (13 * block + rank - 2)) + (1 << (_SUIT_COUNT_SHIFT + 5 * block))
                    + (1 << (_PAIR_COUNT_SHIFT + 2 * (13 * block + rank - 2)))
                    + (1 << (RANK_COUNT_SHIFT + 4 * (rank - 2)))
                    + (RANK_WEIGHTS[rank - 2] << WEIGHT_SHIFT)
                    for rank in range(2, 15)]
    for block, suit in enumerate(SUITS_IN_BLOCK_ORDER)
}
CARD_VALUE[""] = [1 << JOKER_SHIFT]


def card_code(rank: int, suit: str) -> int:
    """What one card adds to an encoded hand (:data:`CARD_VALUE`), for
    :class:`alley_poker.cards.Card` to keep at hand; a joker of any kind (rank 0, no suit)
    adds to the joker count.

    >>> card_code(14, "S") == CARD_VALUE["S"][14], card_code(0, "") == 1 << JOKER_SHIFT
    (True, True)
    """
    return CARD_VALUE[suit][rank]


#: Hands of up to this many cards are checked by :data:`UNUSUAL` alone: a card given twice or
#: three times shows a twice flag, four times or more its rank's count of four or more, and
#: no count can overflow (15 jokers fit the joker count, 15 cards a rank count).
FEW_CARDS = 15
#: What sends a hand of :data:`FEW_CARDS` or fewer off the fast path: a joker, a repeated
#: card, a rank held four times (four of a kind, rare: checked there), or a flush.
UNUSUAL = JOKER_FIELD | _TWICE_FLAGS | _FOUR_OR_MORE_FLAGS | FLUSH_SIGN

# Option flags, as a HandValue stores them.
NO_COPIES = 1
WILDS_CAPPED = 2


def encode(*ranks_and_suits: int | str) -> int:
    """Encode standard cards given as rank, suit, rank, suit, ... (for examples and tests).

    >>> encode(2, "C") & CARD_BITS, encode(14, "S") & CARD_BITS == 1 << 51
    (1, True)
    """
    pairs = zip(ranks_and_suits[::2], ranks_and_suits[1::2], strict=True)
    return EMPTY_HAND + sum(CARD_VALUE[suit][rank] for rank, suit in pairs)  # type: ignore


def usable_wilds(naturals: int, wilds: int, flags: int) -> int:
    """How many of ``wilds`` may stand for a card beside ``naturals`` natural cards.

    >>> usable_wilds(0, 1, WILDS_CAPPED), usable_wilds(3, 2, WILDS_CAPPED), usable_wilds(52, 1, 0)
    (0, 2, 1)
    """
    if flags & WILDS_CAPPED:
        wilds = min(wilds, naturals)
    if flags & NO_COPIES:
        wilds = min(wilds, 52 - naturals)  # each must be a different card the hand lacks
    return wilds


#: Keys of hands without a flush by their rank counts (a hand's value then depends on
#: nothing else): every hand of up to five cards at import, bigger ones as they are seen.
#: Capped so odd inputs cannot grow it forever; hands of up to 7 cards have under 75,000
#: rank-count patterns.
KEY_BY_RANK_COUNTS: dict[int, int] = {}
_KEY_CACHE_LIMIT = 200_000
#: ``FIVE_CARD_KEYS[hand >> WEIGHT_SHIFT]``: the key of five different cards that are not a
#: flush and hold no rank four times (what :func:`alley_poker.hands.evaluate` checks first),
#: by the sum of their rank weights; filled at import.
FIVE_CARD_KEYS: list[int] = [0] * (4 * RANK_WEIGHTS[-1] + RANK_WEIGHTS[-2] + 1)


def natural_key(hand: int, count: int) -> int:
    """The key of ``count`` different natural cards, encoded as ``hand``; no wilds."""
    if hand & FLUSH_SIGN:
        return _natural_key(hand, count)
    rank_counts = hand >> RANK_COUNT_SHIFT
    key = KEY_BY_RANK_COUNTS.get(rank_counts)
    if key is None:
        key = _natural_key(hand, count)
        if len(KEY_BY_RANK_COUNTS) < _KEY_CACHE_LIMIT:
            KEY_BY_RANK_COUNTS[rank_counts] = key
    return key


def _natural_key(hand: int, count: int) -> int:
    """:func:`natural_key`, worked out from the suit masks.

    Written for speed: the common categories are decided with the fewest operations.
    """
    c = hand & ALL_RANKS_MASK
    d = hand >> 13 & ALL_RANKS_MASK
    h = hand >> 26 & ALL_RANKS_MASK
    s = hand >> 39 & ALL_RANKS_MASK
    ranks = c | d | h | s
    distinct = ranks.bit_count()
    if distinct == count:  # no two cards share a rank
        if distinct >= 5:
            if hand & FLUSH_SIGN:
                flush, straight_flush = _best_flush(c, d, h, s)
                if straight_flush:
                    return _STRAIGHT_FLUSH | straight_flush << 16
                return _FLUSH | flush
            straight = _STRAIGHT_TOP[ranks]
            if straight:
                return _STRAIGHT | straight << 16
        return _HIGH | _TOP5[ranks] if count else 0  # no cards: no hand

    flush = 0
    if distinct >= 5 and hand & FLUSH_SIGN:
        flush, straight_flush = _best_flush(c, d, h, s)
        if straight_flush:
            return _STRAIGHT_FLUSH | straight_flush << 16
    cd = c & d
    hs = h & s
    c_or_d = c | d
    h_or_s = h | s
    pairs = cd | hs | (c_or_d & h_or_s)  # ranks held twice or more
    trips = (cd & h_or_s) | (hs & c_or_d)  # three times or more
    if trips:
        quads = cd & hs
        if quads:
            rank = _TOP1[quads]
            return _QUADS | rank << 16 | _TOP1[ranks ^ (1 << (rank - 2))] << 12
        rank = _TOP1[trips]
        rank_bit = 1 << (rank - 2)
        if pairs ^ rank_bit:
            return _FULL_HOUSE | rank << 16 | _TOP1[pairs ^ rank_bit] << 12
    if flush:
        return _FLUSH | flush
    if distinct >= 5:
        straight = _STRAIGHT_TOP[ranks]
        if straight:
            return _STRAIGHT | straight << 16
    if trips:
        return _TRIPS | rank << 16 | _TOP2[ranks ^ rank_bit] << 8
    high = _TOP1[pairs]
    high_bit = 1 << (high - 2)
    rest = pairs ^ high_bit
    if rest:
        low = _TOP1[rest]
        return (_TWO_PAIR | high << 16 | low << 12
                | _TOP1[ranks ^ high_bit ^ (1 << (low - 2))] << 8)
    return _PAIR | high << 16 | _TOP3[ranks ^ high_bit] << 4


def _best_flush(c: int, d: int, h: int, s: int) -> tuple[int, int]:
    """(best flush ranks packed, best straight flush top or 0) over suits of 5+ cards."""
    flush = straight_flush = 0
    for suit in (c, d, h, s):
        if suit.bit_count() >= 5:
            flush = max(flush, _TOP5[suit])
            straight_flush = max(straight_flush, _STRAIGHT_TOP[suit])
    return flush, straight_flush


def _held(rank_bit: int, c: int, d: int, h: int, s: int) -> int:
    """How many suits of one rank the hand holds."""
    return (c & rank_bit > 0) + (d & rank_bit > 0) + (h & rank_bit > 0) + (s & rank_bit > 0)


def key_with_wilds(hand: int, wilds: int, flags: int) -> int:
    """The key of the natural cards encoded as ``hand`` plus ``wilds`` usable wild cards.

    Categories are tried best first; for each, the best use of the wilds is worked out from
    the rank masks: the highest rank they lift to five (four, three) of a kind, the best
    straight (flush) they fill.  A category is only reached when every better one is out of
    reach, and that bounds the wilds left over (a wild left after making trips would have
    made four of a kind), so kickers are natural cards except where noted.

    >>> hex(key_with_wilds(encode(14, "S", 13, "S", 12, "S", 10, "S"), 1, 0))  # royal flush
    '0x9e0000'
    >>> hex(key_with_wilds(encode(9, "S", 9, "D"), 1, 0))  # a short hand: three nines
    '0x490000'
    """
    count = (hand & CARD_BITS).bit_count()
    if not wilds:
        return natural_key(hand, count)
    c = hand & ALL_RANKS_MASK
    d = hand >> 13 & ALL_RANKS_MASK
    h = hand >> 26 & ALL_RANKS_MASK
    s = hand >> 39 & ALL_RANKS_MASK
    ranks = c | d | h | s
    cd, hs, c_or_d, h_or_s = c & d, h & s, c | d, h | s
    # held_at_least[j]: the ranks held j or more times (any rank at all for j = 0).
    held_at_least = (ALL_RANKS_MASK, ranks, cd | hs | (c_or_d & h_or_s),
                     (cd & h_or_s) | (hs & c_or_d), cd & hs)
    total = count + wilds
    copies_allowed = not flags & NO_COPIES

    if total >= 5:
        if copies_allowed:  # five of a kind: the highest rank the wilds make five of
            rank = ACE if wilds >= 5 else _TOP1[held_at_least[5 - wilds]]
            if rank:
                return _FIVE | rank << 16
        if wilds >= 5:
            return _STRAIGHT_FLUSH | ACE << 16
        with_gaps = STRAIGHT_WITH_GAPS[wilds]
        top = max(with_gaps[c], with_gaps[d], with_gaps[h], with_gaps[s])
        if top:
            return _STRAIGHT_FLUSH | top << 16

    rank = ACE if wilds >= 4 else _TOP1[held_at_least[4 - wilds]]
    if rank:  # four of a kind
        rank_bit = 1 << (rank - 2)
        spare = wilds - (4 - _held(rank_bit, c, d, h, s))
        # A spare wild (only under No Copies: otherwise it made five of a kind) is the best
        # kicker there is: an ace, or a king beside four aces.
        kicker = (13 if rank == ACE else ACE) if spare > 0 else _TOP1[ranks & ~rank_bit]
        return _QUADS | rank << 16 | kicker << 12

    if total >= 5:
        # Full house.  Four of a kind being out of reach, no rank is held 4 - wilds times,
        # so trips made with wilds take every wild and the pair must be natural: the one
        # case left is a single wild joining the higher of two natural pairs.
        pairs = held_at_least[2]
        if wilds == 1 and pairs & (pairs - 1):  # two pairs or more
            high = _TOP1[pairs]
            return _FULL_HOUSE | high << 16 | _TOP1[pairs ^ (1 << (high - 2))] << 12

        flush = 0
        for suit in (c, d, h, s):
            if suit.bit_count() + wilds >= 5:
                if copies_allowed:  # every wild is the ace of the suit, held or not
                    flush = max(flush, _ACES[wilds] | TOP_RANKS[5 - wilds][suit])
                else:  # each wild is the highest card of the suit not yet in the hand
                    filled = suit
                    for _ in range(wilds):
                        filled |= 1 << ((ALL_RANKS_MASK ^ filled).bit_length() - 1)
                    flush = max(flush, _TOP5[filled])
        if flush:
            return _FLUSH | flush
        top = STRAIGHT_WITH_GAPS[wilds][ranks]
        if top:
            return _STRAIGHT | top << 16

    rank = ACE if wilds >= 3 else _TOP1[held_at_least[3 - wilds]]
    if rank:
        return _TRIPS | rank << 16 | _TOP2[ranks & ~(1 << (rank - 2))] << 8
    rank = ACE if wilds >= 2 else _TOP1[ranks]
    if rank:
        return _PAIR | rank << 16 | _TOP3[ranks & ~(1 << (rank - 2))] << 4
    return _HIGH | ACE << 16  # a lone wild is an ace


def _learn_five_card_patterns() -> None:
    """Fill :data:`KEY_BY_RANK_COUNTS` for every hand of up to five cards, so even the first
    evaluations hit the cache (bigger hands' patterns are learnt as they come), and
    :data:`FIVE_CARD_KEYS`."""
    # Cards in turn take suits in turn: a rank's copies get different suits, and five
    # cards are never all one suit, so the hand is what its ranks make it.
    value_by_place = [CARD_VALUE[SUITS_IN_BLOCK_ORDER[place % 4]] for place in range(5)]
    for size in range(6):
        for ranks in itertools.combinations_with_replacement(range(2, 15), size):
            if size == 5 and ranks[0] == ranks[4]:  # five of one rank: not a natural hand
                continue
            hand = EMPTY_HAND
            for place, rank in enumerate(ranks):
                hand += value_by_place[place][rank]
            key = natural_key(hand, size)
            if size == 5:
                FIVE_CARD_KEYS[hand >> WEIGHT_SHIFT] = key


_learn_five_card_patterns()
