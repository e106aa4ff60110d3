"""Which match is on which lanes, and which scorer slot is which match bowler.

A league match is bowled on a lane pair; the scoring system knows its bowlers only as slots
(1, 2, ...) on a lane.  A :class:`LaneAssignment` ties a match to its lanes and each
``(lane, slot)`` to a bowler's name in the match.  It is set when the match is created and the
commissioner may change it (a bowler moved to the other lane of the pair, a slot typed late).

>>> lanes = LaneMap()
>>> lanes.assign("m1", {(1, 1): "Ann", (1, 2): "Bob", (2, 1): "Cy"})
LaneAssignment(match_id='m1', lanes=(1, 2), slots={(1, 1): 'Ann', (1, 2): 'Bob', (2, 1): 'Cy'})
>>> lanes.bowler_at(1, 2)
('m1', 'Bob')
>>> lanes.bowler_at(3, 1) is None
True
>>> lanes.assign("m2", {(2, 1): "Dee"})
Traceback (most recent call last):
...
alley_poker.service.lanes.LaneAssignmentError: lane 2 slot 1 is already taken by Cy in another match
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field


class LaneAssignmentError(ValueError):
    """An assignment that would make a lane slot ambiguous or name nobody."""


@dataclass(frozen=True)
class LaneAssignment:
    match_id: str
    lanes: tuple[int, ...]
    slots: dict[tuple[int, int], str] = field(hash=False)


class LaneMap:
    """The live mapping from ``(lane, slot)`` to ``(match_id, bowler)``, safe across threads."""

    def __init__(self) -> None:
        self._by_match: dict[str, LaneAssignment] = {}
        self._lock = threading.Lock()

    def assign(self, match_id: str, slots: Mapping[tuple[int, int], str]) -> LaneAssignment:
        """Set (or replace) the slots of ``match_id``; refused if another match holds a slot."""
        clean = self._checked(match_id, slots)
        with self._lock:
            return self._assign_locked(match_id, clean, self._by_match)

    def replace_all(self, assignments: Mapping[str, Mapping[tuple[int, int], str]]) -> None:
        """Make the map exactly ``assignments`` (match id → slots) in one step.

        For a process that reloads the map another process changed: a lane event routed
        meanwhile sees the old map or the new one, never a half-empty one.  Refused as a
        whole (the map unchanged) if two matches claim one slot.

        >>> lanes = LaneMap()
        >>> _ = lanes.assign("m1", {(1, 1): "Ann"})
        >>> lanes.replace_all({"m2": {(1, 1): "Bob"}})
        >>> lanes.bowler_at(1, 1), lanes.assignment("m1")
        (('m2', 'Bob'), None)
        """
        checked = {match_id: self._checked(match_id, slots)
                   for match_id, slots in assignments.items()}
        fresh: dict[str, LaneAssignment] = {}
        for match_id, clean in checked.items():
            self._assign_locked(match_id, clean, fresh)
        with self._lock:
            self._by_match = fresh

    def _checked(self, match_id: str, slots: Mapping[tuple[int, int], str]
                 ) -> dict[tuple[int, int], str]:
        if not slots:
            raise LaneAssignmentError("the match needs at least one lane slot")
        clean: dict[tuple[int, int], str] = {}
        for key, bowler in slots.items():
            lane, slot = key
            if not (isinstance(lane, int) and isinstance(slot, int) and lane >= 1 and slot >= 1):
                raise LaneAssignmentError(f"lane and slot must be positive numbers, got {key!r}")
            if not bowler:
                raise LaneAssignmentError(f"lane {lane} slot {slot} names no bowler")
            clean[(lane, slot)] = bowler
        if len(set(clean.values())) != len(clean):
            named = list(clean.values())
            twice = next(bowler for bowler in named if named.count(bowler) > 1)
            raise LaneAssignmentError(
                f"{twice} is given two lane slots: each bowler bowls on one lane slot")
        return clean

    @staticmethod
    def _assign_locked(match_id: str, clean: dict[tuple[int, int], str],
                       by_match: dict[str, LaneAssignment]) -> LaneAssignment:
        for other in by_match.values():
            if other.match_id == match_id:
                continue
            for key in clean.keys() & other.slots.keys():
                raise LaneAssignmentError(
                    f"lane {key[0]} slot {key[1]} is already taken by {other.slots[key]} "
                    "in another match"
                )
        assignment = LaneAssignment(match_id, tuple(sorted({lane for lane, _ in clean})), clean)
        by_match[match_id] = assignment
        return assignment

    def release(self, match_id: str) -> None:
        """Forget ``match_id``'s lanes (the match is settled or void)."""
        with self._lock:
            self._by_match.pop(match_id, None)

    def bowler_at(self, lane: int, slot: int) -> tuple[str, str] | None:
        """``(match_id, bowler)`` bowling in ``slot`` on ``lane``, or None (no match there)."""
        with self._lock:
            for assignment in self._by_match.values():
                bowler = assignment.slots.get((lane, slot))
                if bowler is not None:
                    return assignment.match_id, bowler
        return None

    def assignment(self, match_id: str) -> LaneAssignment | None:
        with self._lock:
            return self._by_match.get(match_id)

    def matches_on(self, lane: int) -> list[str]:
        with self._lock:
            return [a.match_id for a in self._by_match.values() if lane in a.lanes]
