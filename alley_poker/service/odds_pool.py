"""The pool's side of the live odds: what each process of :class:`~alley_poker.service.live_odds.
LiveOdds`'s pool runs (a chunk of runs of one match state), and what it keeps from chunk to
chunk (the runs' balls, the bowlers' models), and how it starts (below the balls, ending
with the process that needs its odds)."""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Mapping

from alley_poker.ledger import MatchState
from alley_poker.odds import CentreAverages, WarmRuns, profiles_for, win_odds

#: A chunk's seed: the state's event number and the chunk's number (runs of different
#: chunks, and of the states before and after a ball, never share a seed).
_SEED_STRIDE = 1_000_003

#: The runs' balls each process keeps from one state of a match to the next (a process of
#: the pool, or the one process when ``processes=0``).
WARM = WarmRuns()
#: The bowlers' models each process learnt for a match state, by (match, event number, ...): a
#: state's chunks all use them, and learning them from a regular's history takes
#: milliseconds a bowler.  The oldest are forgotten.
_PROFILES: dict[tuple[str, int], dict] = {}
_PROFILES_KEPT = 64


def odds_chunk(state: MatchState, iterations: int, chunk: int, centre_average: int,
               averages: Mapping[str, int] | None = None, engine: str = "fast",
               known: tuple[CentreAverages, Mapping, Mapping] | None = None) -> dict | None:
    """One chunk of runs of ``state`` (runs in a pool process): the runs' total wins and
    cents per bowler, or the exact result (``exact``), or odds enumerated exactly
    (``enumerated``: wins and cents are then the chances and the expected cents), or None
    when the match is not live.  ``known`` is what the centre knows
    (:mod:`alley_poker.service.odds_history`): its prior, and the bowlers' games from
    settled matches and leagues; without it, a centre averaging ``centre_average``."""
    started, cpu = time.perf_counter(), time.process_time()
    if known is None:
        centre, history, leagues = CentreAverages(average=centre_average), None, None
    else:
        centre, history, leagues = known
    # Learnt once per state, whatever its chunks: a state settles in several.  Keyed by
    # what they are learnt from too (tests run many matches with one id in one process).
    key = (state.match_id, state.seq, json.dumps(state.balls, sort_keys=True, default=str),
           centre_average, known is None, tuple(sorted((averages or {}).items())))
    profiles = _PROFILES.get(key)
    if profiles is None:
        profiles = _PROFILES[key] = profiles_for(state.balls, centre, averages,
                                                 leagues=leagues, history=history)
        while len(_PROFILES) > _PROFILES_KEPT:
            _PROFILES.pop(next(iter(_PROFILES)))
    odds = win_odds(state, iterations=iterations, seed=state.seq * _SEED_STRIDE + chunk,
                    centre=centre, averages=averages, profiles=profiles,
                    engine=engine, warm=WARM if engine == "fast" else None)
    if odds is None:
        return None
    if odds.enumerated:
        return {"exact": False, "enumerated": True, "iterations": odds.iterations,
                "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
                "wins": {name: b.win for name, b in odds.bowlers.items()},
                "cents": {name: b.expected_cents for name, b in odds.bowlers.items()}}
    return {"exact": odds.exact, "iterations": odds.iterations,
            "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "wins": {name: b.win * max(odds.iterations, 1) for name, b in odds.bowlers.items()},
            "cents": {name: b.expected_cents * max(odds.iterations, 1)
                      for name, b in odds.bowlers.items()}}


#: How much lower the pool's processes run than the balls (``nice``: 0 to 19).
POOL_NICENESS = 10


def start_pool_process() -> None:
    """A pool process runs below the balls, and ends with the process that needs its odds:
    a server stopped or killed (even by SIGKILL) must not leave a core busy computing odds
    nobody will see."""
    os.nice(POOL_NICENESS)
    if sys.platform.startswith("linux"):
        # PR_SET_PDEATHSIG: SIGTERM when the thread that started this process ends (a
        # LiveOdds worker thread, which lives as long as the odds or the whole process).
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
        if os.getppid() == 1:  # it ended before the signal was asked for
            os._exit(0)
