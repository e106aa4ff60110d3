"""A seeded night of Bowling Poker: a deterministic stream of ledger commands over matches.

The stream is planned by playing it in memory with the real ledger, so every command in it
is one the ledger accepts at that point.  Command ``i`` runs with the random source
:func:`rng_for` ``(seed, i)`` and the clock :func:`clock_for` ``(i)``, so whoever executes the
stream in order (the crash worker through the store, or a test in memory) produces exactly
the events recorded in each :class:`Step`.

>>> night = league_night(7, matches=2, steps=40)
>>> len(night), night[0].command.__class__.__name__, night[0].records[0]["type"]
(40, 'CreateMatch', 'match_created')
>>> league_night(7, matches=2, steps=40) == night
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from alley_poker.ledger import (
    CommandRefused,
    MatchState,
    event_to_record,
    handle,
)
from alley_poker.ledger import commands as c

NIGHT_STARTS = datetime(2026, 3, 6, 19, 0, tzinfo=UTC)

#: Longer than any decision deadline of the house rules, so a decision opened by one step is
#: due at the next and the scheduler's ``ExpireDecision`` is accepted.
STEP_SECONDS = 400

BOWLERS = ("Ann", "Bob", "Cy", "Dee")


def rng_for(seed: int, index: int) -> random.Random:
    """The random source command ``index`` of the night runs with."""
    return random.Random(f"{seed}/{index}")


def clock_for(index: int) -> datetime:
    """The time command ``index`` of the night runs at."""
    return NIGHT_STARTS + timedelta(seconds=STEP_SECONDS * index)


@dataclass(frozen=True)
class Step:
    """One command of the night and the records the ledger produced for it."""

    index: int
    match_id: str
    command: c.Command
    records: list[dict[str, Any]] = field(compare=True)


def league_night(seed: int, *, matches: int = 2, steps: int = 120, games: int = 1) -> list[Step]:
    """Plan ``steps`` commands (fewer if every match settles first) over ``matches`` matches."""
    planner = _Planner(seed)
    match_ids = [f"night{seed}-m{n}" for n in range(1, matches + 1)]
    for number, match_id in enumerate(match_ids):
        bowlers = list(BOWLERS[: 2 + (seed + number) % 3])
        planner.states[match_id] = MatchState.empty(match_id)
        planner.try_command(match_id, c.CreateMatch(
            match_id, bowlers, games=games, ante_cents=100 + 25 * number, actor="desk:pat"))
    for match_id in match_ids:
        for bowler in planner.states[match_id].bowlers:
            planner.try_command(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        planner.try_command(match_id, c.StartMatch(actor="desk:pat"))
    while len(planner.stream) < steps:
        live = [m for m in match_ids if planner.states[m].status not in ("settled", "void")]
        if not live:
            break
        planner.next_command(planner.choose.choice(live))
    return planner.stream[:steps]


class _Planner:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.choose = random.Random(f"{seed}/plan")
        self.states: dict[str, MatchState] = {}
        self.stream: list[Step] = []

    def try_command(self, match_id: str, command: c.Command) -> bool:
        index = len(self.stream)
        state = self.states[match_id]
        try:
            events = handle(state, command, rng=rng_for(self.seed, index), now=clock_for(index))
        except CommandRefused:
            return False
        for event in events:
            state.apply(event)
        self.stream.append(Step(index, match_id, command, [event_to_record(e) for e in events]))
        return True

    def next_command(self, match_id: str) -> None:
        state = self.states[match_id]
        if state.decisions and (state.status != "playing" or self.choose.random() < 0.6):
            oldest = next(iter(state.decisions.values()))
            self.try_command(match_id, c.ExpireDecision(oldest["bowler"], actor="scheduler"))
        elif state.status == "playing":
            self._ball(match_id, state)
        elif state.status == "ending" and state.result is not None:
            self.try_command(match_id, c.CommissionerConfirmResult(actor="commissioner:pat"))

    def _ball(self, match_id: str, state: MatchState) -> None:
        bowling = [b for b in state.bowlers if state.current_game(b) <= state.games]
        if not bowling:
            return
        bowler = self.choose.choice(bowling)
        if self.choose.random() < 0.01:
            self.try_command(match_id, c.HollandDaze(bowler, reason="lane 4, not 3",
                                                     actor="commissioner:pat"))
            return
        # Aim high and come down until the ball is possible: strikes, spares (the most a
        # second ball can take), gutter balls and everything between.
        pins = self.choose.choice([10, 10, 10, 9, 8, 7, 5, 3, 0, 0])
        while pins >= 0 and not self.try_command(
            match_id, c.RecordBall(bowler, None, pins, actor=f"feed:lane-{len(match_id) % 8}")
        ):
            pins -= 1
