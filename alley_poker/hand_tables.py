"""Lookup tables over 13-bit rank masks, built once at import for the hand evaluator.

A *rank mask* holds one bit per rank: bit 0 is the two, bit 12 the ace (bit = rank - 2).
The evaluator keeps one rank mask per suit and combines them with bit operations, so every
question it asks about ranks ("the best three kickers", "the highest straight with one gap")
is a single list index into one of these tables instead of a loop over cards or 5-card
subsets.

Ranks are *packed* four bits each, highest first, with 0 for a missing card:

>>> hex(TOP_RANKS[3][mask_of(14, 9, 2, 5)])  # ace, nine, five
'0xe95'
>>> hex(TOP_RANKS[5][mask_of(13, 7)])          # a short hand: two cards, three missing
'0xd7000'
>>> STRAIGHT_WITH_GAPS[0][mask_of(14, 2, 3, 4, 5)]     # the wheel is five high
5
>>> STRAIGHT_WITH_GAPS[1][mask_of(14, 13, 12, 10)]     # one wild fills the jack
14
>>> STRAIGHT_WITH_GAPS[0][mask_of(14, 13, 12, 10)]
0
"""

from __future__ import annotations

RANK_COUNT = 13
MASK_COUNT = 1 << RANK_COUNT
ALL_RANKS_MASK = MASK_COUNT - 1
ACE = 14

#: The ten straights as (top rank, rank mask), best first; the wheel A-2-3-4-5 is five high.
STRAIGHTS: tuple[tuple[int, int], ...] = (
    *((top, sum(1 << (rank - 2) for rank in range(top - 4, top + 1))) for top in range(ACE, 5, -1)),
    (5, (1 << 12) | 0b1111),
)

#: How many wild cards a table of :data:`STRAIGHT_WITH_GAPS` is kept for; five or more wilds
#: make any straight, so they need no table.
MAX_TABLED_GAPS = 4


def mask_of(*ranks: int) -> int:
    """The rank mask holding ``ranks`` (2..14).

    >>> bin(mask_of(2, 14))
    '0b1000000000001'
    """
    mask = 0
    for rank in ranks:
        mask |= 1 << (rank - 2)
    return mask


def _build_top_ranks() -> tuple[list[int], ...]:
    """``tables[k][mask]``: the highest ``k`` ranks of ``mask`` packed, zero-filled when short.

    Built by recurrence: a mask's top ``k`` is its top rank followed by the top ``k - 1`` of the
    rest, and the rest is a smaller number, so its entry is already there.
    """
    tables: list[list[int]] = [[0] * MASK_COUNT]
    for k in range(1, 6):
        previous = tables[k - 1]
        table = [0] * MASK_COUNT
        shift = 4 * (k - 1)
        for mask in range(1, MASK_COUNT):
            top_bit = mask.bit_length() - 1
            table[mask] = ((top_bit + 2) << shift) | previous[mask ^ (1 << top_bit)]
        tables.append(table)
    return tuple(tables)


def _build_straights_with_gaps() -> tuple[list[int], ...]:
    """``tables[g][mask]``: the top rank of the best straight that ``mask`` makes when up to
    ``g`` missing ranks may be filled by wild cards; 0 when there is none."""
    tables = tuple([0] * MASK_COUNT for _ in range(MAX_TABLED_GAPS + 1))
    for mask in range(MASK_COUNT):
        unfilled = MAX_TABLED_GAPS + 1  # gap counts not yet given a straight, all above this
        for top, straight in STRAIGHTS:  # best first, so the first fit for a gap count wins
            missing = (straight & ~mask).bit_count()
            while unfilled > missing:
                unfilled -= 1
                tables[unfilled][mask] = top
            if unfilled == 0:
                break
    return tables


#: ``TOP_RANKS[k][mask]``: the highest ``k`` ranks of ``mask`` (k = 0..5), packed.
TOP_RANKS: tuple[list[int], ...] = _build_top_ranks()
#: ``STRAIGHT_WITH_GAPS[g][mask]``: top rank of the best straight with ``g`` wilds, or 0.
STRAIGHT_WITH_GAPS: tuple[list[int], ...] = _build_straights_with_gaps()
