"""Side money to the cent: a prize split between tied bowlers, places paid from a ranking, and
a night's money per bowler and in total.

**The odd cent.**  A prize shared by ``n`` bowlers gives each ``prize // n`` cents; the cents
left over (fewer than ``n``) go one each to the sharers in order of bowler id, lowest first.
Nothing is kept back: a shared prize pays out every cent.

>>> split_cents(1000, [12, 5, 9])
{5: 334, 9: 333, 12: 333}

Places are paid down a ranking; bowlers tied on a score share the prizes of the places they
take between them (two tied for first with prizes 60 and 40 take 50 each):

>>> pay_places([(7, 220), (3, 220), (4, 190)], [600, 400])
{3: 500, 7: 500}
>>> pay_places([(7, 220), (3, 200), (4, 200)], [600, 400])
{3: 200, 4: 200, 7: 600}
>>> pay_places([(7, 220)], [600, 400])          # fewer bowlers than places
{7: 1000}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


def split_cents(cents: int, bowlers: Iterable[int]) -> dict[int, int]:
    """``cents`` shared between ``bowlers`` to the cent (the odd cents as the module says)."""
    sharers = sorted(set(bowlers))
    if not sharers:
        raise ValueError("a prize is shared by at least one bowler")
    each, odd = divmod(cents, len(sharers))
    return {bowler: each + (1 if place < odd else 0) for place, bowler in enumerate(sharers)}


def pay_places(ranking: Sequence[tuple[int, int]], prizes: Sequence[int]) -> dict[int, int]:
    """Prizes paid down ``ranking`` (``(bowler, score)``, any order; higher scores first).

    A tie shares the prizes of the places it fills.  Prizes beyond the last ranked bowler are
    paid to the places above (added to first place), so a pot with fewer entrants than places
    still pays every cent.
    """
    if not ranking:
        return {}
    paid = list(prizes[:len(ranking)])
    paid[0] += sum(prizes[len(ranking):])
    won: dict[int, int] = {}
    by_score: dict[int, list[int]] = {}
    for bowler, score in ranking:
        by_score.setdefault(score, []).append(bowler)
    place = 0
    for score in sorted(by_score, reverse=True):
        tied = by_score[score]
        shared = sum(paid[place:place + len(tied)])
        if shared:
            for bowler, cents in split_cents(shared, tied).items():
                won[bowler] = won.get(bowler, 0) + cents
        place += len(tied)
    return dict(sorted(won.items()))


@dataclass(frozen=True)
class BowlerMoney:
    """One bowler's side money on a night: what they paid for entries, won and got back."""

    bowler: int
    paid_cents: int
    won_cents: int
    refunded_cents: int

    @property
    def net_cents(self) -> int:
        return self.won_cents + self.refunded_cents - self.paid_cents


@dataclass(frozen=True)
class NightMoney:
    """The night's side money: every cent paid in is paid out, refunded, the organiser's, or
    still in play (brackets and pots not yet paid)."""

    entries_cents: int
    payouts_cents: int
    refunds_cents: int
    organiser_cents: int
    in_play_cents: int
    bowlers: tuple[BowlerMoney, ...]

    @property
    def balanced(self) -> bool:
        """entries = payouts + refunds + organiser's share (+ what is still in play), and the
        bowlers' lines add up to the same totals."""
        return (self.entries_cents == self.payouts_cents + self.refunds_cents
                + self.organiser_cents + self.in_play_cents
                and sum(b.paid_cents for b in self.bowlers) == self.entries_cents
                and sum(b.won_cents for b in self.bowlers) == self.payouts_cents
                and sum(b.refunded_cents for b in self.bowlers) == self.refunds_cents)


def night_money(paid: Mapping[int, int], won: Mapping[int, int], refunded: Mapping[int, int],
                *, organiser_cents: int, in_play_cents: int) -> NightMoney:
    """The night's totals and one line per bowler who paid, won or got anything back."""
    everyone = sorted(set(paid) | set(won) | set(refunded))
    return NightMoney(
        entries_cents=sum(paid.values()), payouts_cents=sum(won.values()),
        refunds_cents=sum(refunded.values()), organiser_cents=organiser_cents,
        in_play_cents=in_play_cents,
        bowlers=tuple(BowlerMoney(b, paid.get(b, 0), won.get(b, 0), refunded.get(b, 0))
                      for b in everyone))
