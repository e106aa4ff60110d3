"""The odds on a league night: lane pairs bowling at once, each ball's odds through the
service's own :class:`~alley_poker.service.live_odds.LiveOdds`, timed and checked against a
reference (:mod:`benchmarks.odds`, ``--league-night``).

``pairs`` practice matches (2-4 bowlers, one to three games, bowlers of different averages,
each started at a different point so the night holds early, middle and late states) take
turns: one command every ``1 / rate`` seconds in all (a ball, or a decision's deadline at
the end of a match), and after each the odds are requested for the new state, as the
service requests them.  A match that ends is replaced by a fresh one.  For each request:

- **first estimate**: the request to the first odds of that state on the bus;
- **settled**: the request to its odds marked ``settled`` (or enumerated, or the result);
  a request overtaken by the match's next one before it settled is counted apart;
- **cost**: the pool's CPU time (process time, so the machine's other load does not count)
  spent on each state that settled (p50/p95/max and mean): with ``processes`` free cores,
  about what the settled odds' wait would be on a quiet machine, divided by ``processes``;
  the pool's CPU on every chunk, settled, overtaken or abandoned alike, per request
  (``pool_cpu_ms_per_request``); and the pool's CPU over the night's seconds
  (``pool_cpu_share`` of the settled states, ``pool_cpu_share_all`` of every chunk: above
  ``processes`` it cannot keep up); ``reused_settled``: states whose odds were an earlier
  state's (nothing that matters changed);
- **error**: for every ``reference_every``-th request, the first estimate and the settled
  odds against a reference of ``reference_runs`` runs of the same state computed afterwards
  (fast engine, seeds of its own; its own standard error is at most
  ``50 / sqrt(reference_runs)`` points).
"""

from __future__ import annotations

import os
import statistics
import time
from multiprocessing import get_context


def _new_match(number: int):
    import random

    from benchmarks._practice_match import PracticeMatch

    rng = random.Random(70_000 + number)
    bowlers = ("Ann", "Bob", "Cy", "Di")[:rng.randint(2, 4)]
    games = rng.choice((1, 1, 2, 3))
    # Each its own match id, as a centre's matches are: the pool keeps each match's runs
    # from one ball to the next by it.
    match = PracticeMatch(bowlers, games=games, seed=70_000 + number,
                          match_id=f"night-{number}",
                          rules=rng.choice((None, {"buy_in": False})),
                          averages={name: rng.randint(110, 220) for name in bowlers})
    # Started somewhere between its first ball and its last frames.
    match.play(rng.randint(0, 15 * len(bowlers) * games))
    return match


def _reference(args: tuple) -> dict[str, float]:
    from alley_poker.odds import win_odds

    state, runs, seed = args
    odds = win_odds(state, iterations=runs, seed=seed)
    return {name: bowler.win for name, bowler in odds.bowlers.items()}


def league_night(*, pairs: int, rate: float, commands: int, processes: int, first: int,
                 settled: int, reference_runs: int, reference_every: int,
                 engine: str = "fast", settled_points: float | None = None,
                 helpers: int = 0, redis_url: str | None = None) -> dict:
    from alley_poker.odds.stopping import SETTLED_ERROR
    from alley_poker.service.bus import InProcessBus
    from alley_poker.service.live_odds import LiveOdds

    bus = InProcessBus()
    arrivals: dict[tuple[str, int], list[tuple[float, dict]]] = {}

    def arrived(topic: str, message: dict) -> None:
        if message.get("kind") == "odds":
            odds = message["odds"]
            arrivals.setdefault((message["match_id"], odds["seq"]), []).append(
                (time.perf_counter(), odds))

    bus.subscribe(arrived)
    helping = None
    if helpers:
        from benchmarks._odds_helper_processes import HelperProcesses

        helping = HelperProcesses(helpers, redis_url or "redis://127.0.0.1:6379/0")
    try:
        live = LiveOdds(bus, iterations=settled, first_iterations=first, processes=processes,
                        engine=engine, settled_error=(SETTLED_ERROR if settled_points is None
                                                      else settled_points / 100),
                        shared=None if helping is None else helping.shared)
    except BaseException:
        if helping is not None:
            helping.stop()
        raise
    matches = {f"pair-{pair}": _new_match(pair) for pair in range(pairs)}
    started_matches = pairs
    requests: list[tuple[str, int, float, object]] = []
    load_before = os.getloadavg()
    try:
        live.request("warm-up", _new_match(999).state.clone())  # the pool starts once
        live.wait_idle(600)
        warm_up_cpu, warm_up_shared = live.pool_cpu, (live.shared_cpu, live.shared_chunks)
        clock = time.perf_counter()
        names = list(matches)
        for number in range(commands):
            time.sleep(max(0.0, clock + number / rate - time.perf_counter()))
            name = names[number % pairs]
            match = matches[name]
            if not match.step():  # the match is over: a new one on the pair
                live.forget(name)
                name = names[number % pairs] = f"{name}.{started_matches}"
                match = matches[name] = _new_match(started_matches)
                started_matches += 1
                match.step()
            state = match.state.clone()
            requests.append((name, state.seq, time.perf_counter(), state))
            live.request(name, state)
        live.wait_idle(600)
        seconds = time.perf_counter() - clock
        costs = [cpu for _match, _seq, _runs, cpu in live.costs][1:]  # after the warm-up
        pool_cpu = live.pool_cpu - warm_up_cpu
        reused = live.reused
        shared = _shared_figures(live, warm_up_shared, seconds, helpers, pool_cpu)
    finally:
        live.stop()
        if helping is not None:
            helping.stop()
    load_after = os.getloadavg()
    firsts, settles, runs = [], [], []
    overtaken = 0
    next_request: dict[int, float] = {}
    last_by_match: dict[str, int] = {}
    for index, (name, _seq, _at, _state) in enumerate(requests):
        if name in last_by_match:
            next_request[last_by_match[name]] = requests[index][2]
        last_by_match[name] = index
    measured = []
    for index, (name, seq, at, state) in enumerate(requests):
        seen = arrivals.get((name, seq), [])
        if not seen:
            overtaken += 1
            continue
        firsts.append((seen[0][0] - at) * 1000)
        done = [(t, odds) for t, odds in seen if odds.get("settled") or odds.get("exact")]
        if not done or done[0][0] > next_request.get(index, float("inf")):
            overtaken += 1
            continue
        settles.append((done[0][0] - at) * 1000)
        runs.append(done[0][1]["iterations"])
        if index % reference_every == 0 and not done[0][1].get("exact"):
            measured.append((state, seen[0][1], done[0][1]))
    with get_context("spawn").Pool(max(processes, 1)) as pool:
        references = pool.map(_reference, [(state, reference_runs, 31_000_000 + index)
                                           for index, (state, _f, _s) in enumerate(measured)])
    first_errors, settled_errors = [], []
    for (_state, first_odds, settled_odds), reference in zip(measured, references,
                                                              strict=True):
        for name, chance in reference.items():
            first_errors.append(abs(first_odds["bowlers"][name]["win"] - chance) * 100)
            settled_errors.append(abs(settled_odds["bowlers"][name]["win"] - chance) * 100)
    return {
        "league_night_pairs": pairs, "league_night_rate_per_s": rate,
        "league_night_requests": len(requests), "league_night_seconds": round(seconds, 1),
        "league_night_engine": engine, "league_night_processes": processes,
        **_spread("league_night_first_estimate_ms", firsts),
        **_spread("league_night_settled_ms", settles),
        "league_night_overtaken": overtaken,
        **_spread("league_night_pool_cpu_ms_per_settled", [1000 * cpu for cpu in costs]),
        "league_night_pool_cpu_ms_per_settled_mean": (
            round(1000 * statistics.fmean(costs), 1) if costs else None),
        # Every chunk's CPU, of states settled, overtaken or abandoned alike, per request.
        "league_night_pool_cpu_ms_per_request": round(1000 * pool_cpu / len(requests), 1),
        "league_night_pool_cpu_share": round(sum(costs) / seconds, 3),
        "league_night_pool_cpu_share_all": round(pool_cpu / seconds, 3),
        "league_night_reused_settled": reused,
        **shared,
        "league_night_settled_iterations_p50": int(statistics.median(runs)) if runs else 0,
        "league_night_checked_states": len(measured),
        "league_night_reference_runs": reference_runs,
        **_spread("league_night_first_estimate_error_pp", first_errors, 2),
        **_spread("league_night_settled_error_pp", settled_errors, 2),
        "league_night_loadavg_1m": [round(load_before[0], 2), round(load_after[0], 2)],
    }


def _shared_figures(live, warm_up: tuple[float, int], seconds: float, helpers: int,
                    pool_cpu: float) -> dict:
    """The helpers' part (``--helpers``): chunks they ran, their CPU over the night's
    seconds (cores' worth), the chunks handed back to the pool, and what a round trip
    through Redis added to a chunk beyond the helper's own time on it."""
    if not helpers:
        return {"league_night_helpers": 0}
    overheads = [1000 * seconds for seconds in live.shared.overheads]
    helper_cpu = live.shared_cpu - warm_up[0]
    return {"league_night_helpers": helpers,
            "league_night_helper_chunks": live.shared_chunks - warm_up[1],
            "league_night_helper_cpu_share": round(helper_cpu / seconds, 3),
            # The worker's own pool's part of pool_cpu_share_all.
            "league_night_local_pool_cpu_share": round((pool_cpu - helper_cpu) / seconds, 3),
            "league_night_helper_chunks_lost": live.shared_lost,
            "league_night_helper_chunks_redone_in_pool": live.shared_redone,
            "league_night_helper_chunks_dropped_as_superseded": live.shared_dropped,
            **_spread("league_night_helper_round_trip_overhead_ms", overheads, 2)}


def _spread(name: str, values: list[float], digits: int = 1) -> dict:
    if not values:
        return {f"{name}_p50": None, f"{name}_p95": None, f"{name}_max": None}
    values = sorted(values)
    return {f"{name}_p50": round(statistics.median(values), digits),
            f"{name}_p95": round(values[int(0.95 * (len(values) - 1))], digits),
            f"{name}_max": round(values[-1], digits)}
