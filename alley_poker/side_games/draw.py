"""The bracket draw: entries into brackets of eight (or seven and a bye), from one stream of
the fair deal's DRBG (use ``bracket-draw``, docs/fairness.md), so the same seed and the same
entries always give the same brackets, whatever order the entries were recorded in.

What the draw does, in order (every random choice reads the one stream, in this order):

1. **How many brackets.**  A bowler with ``k`` entries can be in at most one seat of each
   bracket, so with ``n`` brackets at most ``min(k, n)`` of their entries can be placed.  The
   draw makes the ``n`` that places the most entries, each bracket holding 8 (or 7 with a bye
   when the settings allow seven-bowler brackets); between two ``n`` placing as many, the
   fewer brackets (more full ones).  A bracket that would be short is never drawn: its
   entries spread over the others (making seven-bowler brackets where allowed).
2. **Who goes where.**  The bowlers are shuffled (ascending bowler id first, then
   Fisher-Yates as the deal's shuffle); each bowler's placeable entries are written one after
   another in that order.  When more can be placed than the brackets hold, entries are taken
   off that list one at a time at a drawn position (each one is a bowler's entry, so a bowler
   with more entries is likelier to lose one).  Entry ``j`` of the list goes to bracket
   ``j mod n``: a bowler's entries are consecutive and at most ``n``, so no bowler is in a
   bracket twice, and the brackets differ in size by at most one (the first ones hold 8).
3. **Each bracket's tree**, bracket 1 first: its bowlers (and the bye, last) are shuffled;
   of the 105 ways to pair those eight seats for round one (listed in a fixed order over the
   shuffled seats), those repeating the fewest round-one match-ups already drawn in earlier
   brackets are kept, and one of them is drawn.  When no bowler has more than four entries a
   pairing with no repeat always exists (each bowler has met at most three of the seven
   others; Dirac's theorem gives a perfect matching), so no round-one match-up repeats.
   Seats ``(0, 1), (2, 3), (4, 5), (6, 7)`` meet in round one, their winners ``(0-1 v 2-3)``
   and ``(4-5 v 6-7)`` in round two, and those winners in the final.

Entries not placed (more entries than brackets, or more than the brackets hold) come back in
``unplaced``: the night rolls them into another bracket game or refunds them.

>>> from alley_poker.fairness.deal import Drbg
>>> stream = Drbg(bytes(range(32)), "tue-2026-11-24/2026-11-24").stream("bracket-draw", 1)
>>> drawn = draw_brackets({b: 1 for b in range(1, 16)}, seven_bowler_brackets=True,
...                       stream=stream)
>>> [len(b.bowlers) for b in drawn.brackets], drawn.unplaced
([8, 7], {})
>>> drawn.brackets[1].slots.count(None)
1
>>> draw_brackets({1: 3, 2: 3}, seven_bowler_brackets=True, stream=stream).unplaced
{1: 3, 2: 3}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol, TypeVar

from alley_poker.side_games.settings import BRACKET_SIZE

T = TypeVar("T")


class Stream(Protocol):
    """What the draw reads: a fair deal's :class:`~alley_poker.fairness.deal.DrawStream`."""

    def below(self, n: int) -> int: ...


@dataclass(frozen=True)
class Bracket:
    """One drawn bracket: ``slots`` are its eight seats in tree order (None is the bye)."""

    number: int
    slots: tuple[int | None, ...]

    @property
    def bowlers(self) -> tuple[int, ...]:
        return tuple(bowler for bowler in self.slots if bowler is not None)

    def first_round(self) -> list[tuple[int | None, int | None]]:
        return [(self.slots[i], self.slots[i + 1]) for i in range(0, BRACKET_SIZE, 2)]

    def to_data(self) -> list[int | None]:
        return list(self.slots)


@dataclass(frozen=True)
class DrawResult:
    brackets: tuple[Bracket, ...]
    unplaced: dict[int, int]        # bowler -> entries the draw could not place

    @property
    def repeated_match_ups(self) -> int:
        """Round-one match-ups that meet in more than one bracket (0 when avoidable)."""
        seen: set[frozenset[int]] = set()
        repeats = 0
        for bracket in self.brackets:
            for pair in _real_pairs(bracket.first_round()):
                repeats += pair in seen
                seen.add(pair)
        return repeats


def bracket_count(entries: Mapping[int, int], *, seven_bowler_brackets: bool) -> int:
    """Step 1: how many brackets ``entries`` (bowler -> entries) fill.

    >>> bracket_count({b: 1 for b in range(1, 16)}, seven_bowler_brackets=False)
    1
    >>> bracket_count({b: 2 for b in range(1, 8)}, seven_bowler_brackets=True)
    2
    """
    best, best_placed = 0, 0
    smallest = BRACKET_SIZE - 1 if seven_bowler_brackets else BRACKET_SIZE
    for n in range(1, sum(entries.values()) // smallest + 1):
        placeable = sum(min(k, n) for k in entries.values())
        if placeable < smallest * n:
            continue
        placed = min(placeable, BRACKET_SIZE * n)
        if placed > best_placed:
            best, best_placed = n, placed
    return best


@dataclass(frozen=True)
class DrawPreview:
    """What the entries fill before the draw, for the desk ("9 brackets, 4 open")."""

    brackets: int           # brackets the entries fill now
    sevens: int             # of them, brackets of seven and a bye
    left_over: int          # entries the draw could not place now
    to_fill_next: int       # entries (of bowlers not in every bracket) one more bracket needs


def preview(entries: Mapping[int, int], *, seven_bowler_brackets: bool) -> DrawPreview:
    """How the draw would fill ``entries`` now (no randomness in it: step 1 alone).

    >>> preview({b: 1 for b in range(1, 16)}, seven_bowler_brackets=True)
    DrawPreview(brackets=2, sevens=1, left_over=0, to_fill_next=6)
    >>> preview({b: 2 for b in range(1, 10)}, seven_bowler_brackets=False)
    DrawPreview(brackets=2, sevens=0, left_over=2, to_fill_next=6)
    """
    n = bracket_count(entries, seven_bowler_brackets=seven_bowler_brackets)
    placeable = sum(min(k, n) for k in entries.values())
    placed = min(placeable, BRACKET_SIZE * n)
    smallest = BRACKET_SIZE - 1 if seven_bowler_brackets else BRACKET_SIZE
    return DrawPreview(
        brackets=n, sevens=BRACKET_SIZE * n - placed, left_over=sum(entries.values()) - placed,
        to_fill_next=smallest * (n + 1) - sum(min(k, n + 1) for k in entries.values()))


def draw_brackets(entries: Mapping[int, int], *, seven_bowler_brackets: bool,
                  stream: Stream) -> DrawResult:
    """The brackets ``entries`` (bowler id -> entries) fill, drawn from ``stream``."""
    counts = {bowler: k for bowler, k in sorted(entries.items()) if k > 0}
    n = bracket_count(counts, seven_bowler_brackets=seven_bowler_brackets)
    unplaced = {bowler: k - min(k, n) for bowler, k in counts.items() if k > n}
    if n == 0:
        return DrawResult((), dict(counts))
    order = _shuffled(stream, sorted(counts))
    tokens = [bowler for bowler in order for _ in range(min(counts[bowler], n))]
    for _ in range(len(tokens) - min(len(tokens), BRACKET_SIZE * n)):
        dropped = tokens.pop(stream.below(len(tokens)))
        unplaced[dropped] = unplaced.get(dropped, 0) + 1
    members: list[list[int]] = [[] for _ in range(n)]
    for j, bowler in enumerate(tokens):
        members[j % n].append(bowler)
    met: set[frozenset[int]] = set()
    brackets = []
    for number, bowlers in enumerate(members, start=1):
        seats: list[int | None] = [*_shuffled(stream, sorted(bowlers))]
        seats += [None] * (BRACKET_SIZE - len(seats))
        slots = _pairing(stream, seats, met)
        met.update(_real_pairs([(slots[i], slots[i + 1]) for i in range(0, BRACKET_SIZE, 2)]))
        brackets.append(Bracket(number, slots))
    return DrawResult(tuple(brackets), {b: k for b, k in sorted(unplaced.items()) if k})


def _shuffled(stream: Stream, items: Sequence[T]) -> list[T]:
    """Fisher-Yates from the last position down, as the deal's shuffle (docs/fairness.md)."""
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = stream.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def _pairing(stream: Stream, seats: list[int | None],
             met: set[frozenset[int]]) -> tuple[int | None, ...]:
    """Step 3: a drawn pairing of the shuffled ``seats`` among those repeating fewest."""
    scored = []
    for pairing in _pairings(len(seats)):
        pairs = [(seats[a], seats[b]) for a, b in pairing]
        scored.append((sum(pair in met for pair in _real_pairs(pairs)), pairs))
    fewest = min(repeats for repeats, _ in scored)
    kept = [pairs for repeats, pairs in scored if repeats == fewest]
    chosen = kept[stream.below(len(kept))]
    return tuple(seat for pair in chosen for seat in pair)


@cache
def _pairings(size: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every way to pair seats ``0..size-1``: the lowest free seat with each later one in
    turn, recursively (105 for eight seats, always in this order)."""
    def pair_up(free: tuple[int, ...]) -> Iterator[tuple[tuple[int, int], ...]]:
        if not free:
            yield ()
            return
        first, rest = free[0], free[1:]
        for index, partner in enumerate(rest):
            for tail in pair_up(rest[:index] + rest[index + 1:]):
                yield ((first, partner), *tail)
    return tuple(pair_up(tuple(range(size))))


def _real_pairs(pairs: Sequence[tuple[int | None, int | None]]) -> list[frozenset[int]]:
    """The match-ups among ``pairs`` (a bye is not one)."""
    return [frozenset((a, b)) for a, b in pairs if a is not None and b is not None]
