"""One match state's live odds in the making (:class:`OddsJob`): how big its chunks are, how
their runs are counted, when the odds so far are shown, and when they have settled.

:class:`~alley_poker.service.live_odds.LiveOdds` keeps one job per match, its latest state's,
and hands out the job's runs in chunks.  The odds come in steps, so a screen gets them at once
and they then settle:

- the **first estimate**: one chunk of runs per process of the pool, each chunk sized to take
  about :data:`CHUNK_SECONDS` (from what the match's runs took last time), at most
  ``first_iterations`` runs in all;
- **refinement**: more chunks of about :data:`REFINE_SECONDS`, published each time the runs
  so far double, until they have **settled** (``settled: true``): every bowler's chance is
  known to within ``settled_error`` (one standard error,
  :data:`~alley_poker.odds.stopping.SETTLED_ERROR` by default), or ``iterations`` runs were
  made.  A match whose outcome is nearly certain settles in a few hundred runs; a close one
  takes up to ``iterations``.

A chunk that brings the result itself (:func:`exact_odds`) or odds counted over every way the
rest can go (:func:`enumerated_odds`: only cards were left) settles its job at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alley_poker.ledger import MatchState
from alley_poker.odds import compiled
from alley_poker.odds.stopping import has_settled, runs_wanted

#: How long one chunk should take: the first estimate is one chunk per process, so this is
#: about how long a screen waits for it when the pool is free.
CHUNK_SECONDS = 0.1
#: How long one refinement chunk should take.  Shorter than the first estimate's: a new
#: ball's first estimate waits for a chunk in progress on a busy night (a league night's
#: first estimates came 18 % sooner at p95 than with chunks of CHUNK_SECONDS; each chunk
#: costs the pool about a millisecond of its own).
REFINE_SECONDS = 0.03
#: The fewest runs in a chunk, however long a run takes.
MIN_CHUNK = 10
#: The most runs in a refinement chunk (a state sent to a pool process once per chunk).
REFINE_CHUNK = 5000
#: A run's cost before any was measured for the match: per ball left to bowl, and per run
#: (the compiled engine's; the Python one's are several times dearer).
_GUESS_PER_BALL, _GUESS_PER_RUN = (1e-6, 40e-6) if compiled.AVAILABLE else (10e-6, 1e-4)
#: Balls in a game, near enough, to guess how many are left.
_BALLS_PER_GAME = 17


@dataclass(eq=False)
class OddsJob:
    """The odds of one match state in the making."""

    match_id: str
    state: MatchState
    target: int
    chunk: int
    first_target: int
    next_chunk: int = 0
    in_flight: int = 0
    done: int = 0
    published: int = 0
    finished: bool = False
    cpu: float = 0.0  # the pool's CPU seconds for it so far
    inputs: tuple | None = None  # what its odds are made from (fast.odds_inputs), once read
    order: int = 0    # when it was requested, among the jobs (the oldest refined first)
    wins: dict[str, float] = field(default_factory=dict)
    cents: dict[str, float] = field(default_factory=dict)

    def wants_chunk(self) -> bool:
        return not self.finished and self.done + self.in_flight < self.target

    def take_chunk(self, per_run: float | None, settled_error: float) -> tuple[int, int]:
        """The next chunk's number and size, counted as in flight.  ``per_run``: what one
        run of the match took lately (None before a chunk of it was timed)."""
        size = self.chunk
        if self.done >= self.first_target:
            # Refinement: chunks of about REFINE_SECONDS at the speed the match's runs go now
            # (a warm state's runs are cheaper than its first guess), never more than the
            # runs so far (so each doubling is still published), at most REFINE_CHUNK.
            if per_run:
                size = max(MIN_CHUNK, min(int(REFINE_SECONDS / per_run), self.done,
                                          REFINE_CHUNK))
            # No more than the runs the stopping rule still asks for, by the chances so far
            # (a tenth more, for their own error): a chunk past that is spent after the odds
            # are known (a 50/50 state settling at 15,600 runs made 17,000-20,000 before).
            if self.done:
                wanted = runs_wanted(self.done, self._wins(), settled_error)
                size = min(size, max(MIN_CHUNK, int(1.1 * wanted) - self.done - self.in_flight))
        size = min(size, self.target - self.done - self.in_flight)
        number = self.next_chunk
        self.next_chunk += 1
        self.in_flight += size
        return number, size

    def count(self, chunk: dict) -> None:
        """Add a chunk's runs."""
        self.done += chunk["iterations"]
        for name in self.state.bowlers:
            self.wins[name] = self.wins.get(name, 0.0) + chunk["wins"][name]
            self.cents[name] = self.cents.get(name, 0.0) + chunk["cents"][name]

    def has_settled(self, settled_error: float) -> bool:
        """Whether the runs so far know every bowler's chance to ``settled_error``, or are
        all the runs asked for.  At least the first estimate's runs: a lopsided state (one
        bowler at 95 %+) is known to the target from them and settles with its first estimate
        (twice the first estimate was asked before: 4,800 runs on a league night where 2,400
        were within the target)."""
        return has_settled(self.done, self._wins(), target_error=settled_error,
                           least=self.first_target, most=self.target)

    def odds_to_show(self, settled: bool) -> dict | None:
        """The odds so far if it is time to show them — the first estimate, then each time
        the runs double, then settled — else None."""
        due = self.first_target if not self.published else 2 * self.published
        if not settled and self.done < due:
            return None
        self.published = self.done
        return self.as_json(settled)

    def as_json(self, settled: bool) -> dict:
        """The odds so far, counting one more run in which every bowler tied: a first
        estimate from a handful of runs (a long match, a busy pool) never shows a certainty
        it has not seen, and a few thousand runs are moved by a hundredth of a point."""
        runs, bowlers = self.done, self.state.bowlers
        tie_share, tie_cents = 1 / len(bowlers), self.state.pot_cents / len(bowlers)
        return {"seq": self.state.seq, "iterations": runs, "exact": False, "settled": settled,
                "bowlers": {name: {
                    "win": round((self.wins.get(name, 0.0) + tie_share) / (runs + 1), 4),
                    "expected_cents": round((self.cents.get(name, 0.0) + tie_cents) / (runs + 1))}
                    for name in bowlers}}

    def _wins(self) -> list[float]:
        return [self.wins.get(name, 0.0) for name in self.state.bowlers]


def first_chunk_size(per_run: float, most: int) -> int:
    """A first estimate's chunk: about :data:`CHUNK_SECONDS` at ``per_run`` seconds a run, so a
    long match's first estimate comes as soon as a short match's, from fewer runs; at least
    :data:`MIN_CHUNK` runs (or ``most``, when fewer), at most ``most``."""
    return max(min(MIN_CHUNK, most), min(most, int(CHUNK_SECONDS / per_run)))


def guess_run_seconds(state: MatchState) -> float:
    """What one run of ``state`` may take, from the balls left to bowl (until a chunk of the
    match has been timed)."""
    bowled = sum(len(balls) for games in state.balls.values() for balls in games)
    left = max(0, len(state.bowlers) * state.games * _BALLS_PER_GAME - bowled)
    return _GUESS_PER_RUN + _GUESS_PER_BALL * left


def enumerated_odds(state: MatchState, chunk: dict) -> dict:
    """Odds counted over every way the rest can go (only cards were left): settled at once,
    with ``iterations`` the ways counted."""
    return {"seq": state.seq, "iterations": chunk["iterations"], "exact": False,
            "settled": True,
            "bowlers": {name: {"win": round(chunk["wins"][name], 4),
                               "expected_cents": round(chunk["cents"][name])}
                        for name in state.bowlers}}


def exact_odds(state: MatchState, chunk: dict) -> dict:
    """The result itself, as the screens carry odds (``exact``: no estimate)."""
    return {"seq": state.seq, "iterations": 0, "exact": True, "settled": True,
            "bowlers": {name: {"win": round(chunk["wins"][name], 4),
                               "expected_cents": round(chunk["cents"][name])}
                        for name in state.bowlers}}
