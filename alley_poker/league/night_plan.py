"""Who bowls where tonight: the league's checked-in bowlers spread over its lane pairs.

A league night puts one match on each lane pair it needs.  Where the scorer has already
announced a lane's bowlers (its ``OPEN`` line), those bowlers sit where the scorer has them:
the scorer is the record of who bowls in which slot.  Everyone else is spread so the matches
are as even as they can be, filling the pairs in order and, within a pair, the emptier lane.

Names the scorer shows are matched to the roster by the name the scorer shows or the
bowler's own name, ignoring case and surrounding spaces.  A name that matches nobody, or
more than one bowler, is never guessed at: its slot stays empty and the desk picks.

>>> from types import SimpleNamespace as B
>>> roster = [B(name=n, scorer_name=n[:3].upper()) for n in
...           ("Ann", "Bob", "Cal", "Dot", "Eve", "Fay")]
>>> plan = plan_night([(1, 2), (3, 4)], roster)
>>> [sorted(p.slots.items()) for p in plan.pairs]  # doctest: +NORMALIZE_WHITESPACE
[[((1, 1), 'Ann'), ((1, 2), 'Cal'), ((2, 1), 'Bob')],
 [((3, 1), 'Dot'), ((3, 2), 'Fay'), ((4, 1), 'Eve')]]
>>> plan = plan_night([(1, 2), (3, 4)], roster, announced={3: [(1, "FAY"), (2, "ann")]})
>>> [sorted(p.slots.items()) for p in plan.pairs]  # doctest: +NORMALIZE_WHITESPACE
[[((1, 1), 'Bob'), ((1, 2), 'Dot'), ((2, 1), 'Cal')],
 [((3, 1), 'Fay'), ((3, 2), 'Ann'), ((4, 1), 'Eve')]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


class RosterPerson(Protocol):
    """What a night plan needs to know of a bowler."""

    @property
    def name(self) -> str: ...

    @property
    def scorer_name(self) -> str: ...


class NightPlanError(ValueError):
    """A night that cannot be laid out (too few bowlers, too many for the lanes)."""


@dataclass(frozen=True)
class PairPlan:
    """One match of the night: its lane pair and who bowls in which ``(lane, slot)``."""

    lanes: tuple[int, int]
    slots: dict[tuple[int, int], str] = field(hash=False)

    @property
    def bowlers(self) -> list[str]:
        """The match's bowlers in seat order: lane, then slot."""
        return [self.slots[key] for key in sorted(self.slots)]


@dataclass(frozen=True)
class NightPlan:
    pairs: tuple[PairPlan, ...]


def same_person(shown: str, person: RosterPerson) -> bool:
    """True when the scorer's ``shown`` name is ``person`` (case and outer spaces ignored).

    >>> from types import SimpleNamespace as B
    >>> same_person(" ann ", B(name="Ann Smith", scorer_name="ANN"))
    True
    """
    wanted = shown.strip().casefold()
    return bool(wanted) and wanted in (person.name.strip().casefold(),
                                       person.scorer_name.strip().casefold())


def who_is(shown: str, roster: Iterable[RosterPerson]) -> list[RosterPerson]:
    """Every roster bowler the scorer's name ``shown`` could be (one, none, or several)."""
    return [person for person in roster if same_person(shown, person)]


def plan_night(pairs: Sequence[tuple[int, int]], bowlers: Sequence[RosterPerson], *,
               announced: Mapping[int, Sequence[tuple[int, str]]] | None = None,
               min_per_match: int = 2, max_per_match: int = 12) -> NightPlan:
    """Spread ``bowlers`` over the lane ``pairs``, honouring the scorer's ``announced`` slots
    (lane → ``[(slot, shown name), ...]``).  Pairs are used in order, as many as needed for
    matches of ``min_per_match``..``max_per_match`` bowlers, plus any the scorer opened."""
    announced = announced or {}
    if len(bowlers) < min_per_match:
        raise NightPlanError(f"check in at least {min_per_match} bowlers for a match; "
                             f"{len(bowlers)} checked in")
    capacity = max_per_match * len(pairs)
    if len(bowlers) > capacity:
        raise NightPlanError(f"{len(bowlers)} bowlers checked in, but the league's "
                             f"{len(pairs)} lane pair(s) seat at most {capacity}")
    slots: dict[tuple[int, int], dict[tuple[int, int], str]] = {pair: {} for pair in pairs}
    placed: set[str] = set()
    for pair in pairs:
        for lane in pair:
            for slot, shown in announced.get(lane, ()):
                matches = [p for p in who_is(shown, bowlers) if p.name not in placed]
                if len(matches) == 1:
                    slots[pair][(lane, slot)] = matches[0].name
                    placed.add(matches[0].name)
    opened = [pair for pair in pairs if slots[pair]]
    wanted = max(len(opened), min(len(pairs), len(bowlers) // min_per_match))
    used = opened + [pair for pair in pairs if pair not in opened][:wanted - len(opened)]
    used.sort(key=pairs.index)
    base, extra = divmod(len(bowlers), len(used))
    target = {pair: base + (1 if index < extra else 0) for index, pair in enumerate(used)}
    for person in bowlers:
        if person.name in placed:
            continue
        # The first pair with room below its even share, so check-in order reads down the
        # lanes; past the shares (the scorer seated a pair fuller), the emptiest pair.
        pair = next((p for p in used if len(slots[p]) < target[p]),
                    min(used, key=lambda p: (len(slots[p]), used.index(p))))
        if len(slots[pair]) >= max_per_match:
            raise NightPlanError(f"no room for {person.name}: every match is full")
        lane = min(pair, key=lambda lane: (_on_lane(slots[pair], lane), pair.index(lane)))
        taken = {slot for (on, slot) in slots[pair] if on == lane}
        slot = next(number for number in range(1, len(taken) + 2) if number not in taken)
        slots[pair][(lane, slot)] = person.name
        placed.add(person.name)
    short = [pair for pair in used if len(slots[pair]) < min_per_match]
    if short:
        lanes = ", ".join(f"{a}-{b}" for a, b in short)
        raise NightPlanError(f"lanes {lanes} would have fewer than {min_per_match} bowlers: "
                             "check in more bowlers or let the scorer open fewer lanes")
    return NightPlan(tuple(PairPlan(pair, slots[pair]) for pair in used))


def _on_lane(slots: Mapping[tuple[int, int], str], lane: int) -> int:
    return sum(1 for on, _slot in slots if on == lane)
