"""How good and how fast the live win odds are (docs/odds.md).

``python -m benchmarks.odds --json [--states N] [--levels 400,4000,16000]
[--calibration-matches N] [--plot PATH] [--engine fast|ledger] [--league-night-commands N]
[--quick]``

``--engine`` picks the engine every part below runs (``ledger``: every run through the
ledger's handlers, as before the fast engine; the figures of both side by side in
docs/performance.md come from the same command with each engine, one after the other).

- **Accuracy.**  A fixed set of 60 recorded match states (practice matches played through
  the ledger, stopped early, in the middle and in the last frame, over rule books with and
  without buys, six of them with a bowler in the hole; each state says whether a joker is
  held).  Each state's odds at every ``--levels`` run count (the screens' first estimate, the
  settled odds, and more) are compared with the reference: the recorded odds of many runs
  kept in ``benchmarks/data/odds_reference.json`` (:mod:`benchmarks.odds_reference`), or,
  when that file is missing or stale, a reference of ``--reference-iterations`` computed now.
  ``max_error_pp`` is the largest difference over every bowler of every state, in percentage
  points.  The reference carries its own Monte Carlo error: ``reference_sigma_pp`` is its
  standard error at a 50% chance.
- **Calibration.**  ``--calibration-matches`` practice matches (bowlers of different
  averages), each predicted after every few balls with the odds as the screens get them
  (each bowler's model learnt from their balls, shrunk toward the centre) and played to
  the end: the Brier score of every prediction against what happened (a tie counts as the
  share won), and a reliability diagram (``--plot``) of predicted against observed.
- **The live odds.**  Each state's odds through the service's own :class:`LiveOdds` with a
  pool of ``--processes`` (idle but for it), as a kiosk gets them: the time from the request
  to the first estimate on the bus and to the settled odds (p50/p95/max), the runs they
  settled at, and how far the first estimate and the settled odds are from the reference
  (``first_estimate_max_error_pp``; ``max_error_pp`` and ``mean_error_pp``: the headline).
  One state at a time, cold: the pool computes nothing else.
- **The league night** (``league_night_*``, :mod:`benchmarks._odds_league_night`):
  ``--pairs`` lane pairs (12: a 24-lane centre) bowling ``--rate`` commands a second in all
  (1), ``--league-night-commands`` of them, each state's odds through ``LiveOdds`` as the
  service requests them: first estimate and settled, p50/p95/max, and their errors against
  a reference of ``--league-night-reference-runs`` runs for every
  ``--league-night-reference-every``-th state.  With ``--helpers N`` the league night's
  ``LiveOdds`` also hands chunks to N ``alley-poker odds-helper`` processes through Redis
  (``--redis-url``; ``[odds] shared``, :mod:`benchmarks._odds_helper_processes`): the
  chunks they ran, their CPU as a share of a core, the chunks handed back to the pool and
  a round trip's overhead (``league_night_helper_*``).  ``--league-night-only`` skips the
  parts above.  ``loadavg`` figures are the machine's
  one-minute load average when each part starts and ends (a shared machine shows it).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from multiprocessing import get_context

from alley_poker.odds.stopping import SETTLED_ERROR
from benchmarks._odds_league_night import league_night
from benchmarks._odds_reference_file import REFERENCE, engine_of, load, stale_reason
from benchmarks._odds_states import STAGES, STATES
from benchmarks._odds_states import recorded_state as _state
from benchmarks._output import print_result


def _odds(args: tuple[int, int, int, str]) -> dict[str, float]:
    from alley_poker.odds import win_odds

    index, iterations, seed, engine = args
    state, _ = _state(index)
    odds = win_odds(state, iterations=iterations, seed=seed, engine=engine)
    return {name: bowler.win for name, bowler in odds.bowlers.items()}


def _reference(states: int, computed_iterations: int, pool) -> tuple[list[dict], dict]:
    """Each state's reference odds, from the recorded file when it is current."""
    recorded = load()
    why = "no recorded reference" if recorded is None else stale_reason(recorded)
    if why is None:
        entries = recorded["states"][:states]
        least = min(entry["iterations"] for entry in entries)
        return ([{name: won / entry["iterations"] for name, won in entry["wins"].items()}
                 for entry in entries],
                {"reference_source": str(REFERENCE.relative_to(REFERENCE.parents[2])),
                 "reference_engine": engine_of(recorded), "reference_iterations": least})
    refs = pool.map(_odds, [(index, computed_iterations, 7_000_003, "fast")
                            for index in range(states)])
    return refs, {"reference_source": f"computed now ({why})", "reference_engine": "fast",
                  "reference_iterations": computed_iterations}


def accuracy(states: int, levels: list[int], reference_iterations: int, pool,
             engine: str) -> dict:
    tags = [_state(index)[1] for index in range(states)]
    refs, source = _reference(states, reference_iterations, pool)
    result = {
        "states": states,
        "states_by_stage": {stage: sum(t["stage"] == stage for t in tags) for stage in STAGES},
        "states_with_joker_held": sum(t["joker_held"] for t in tags),
        "states_in_the_hole": sum(t["in_the_hole"] for t in tags),
        "states_with_buys": sum(t["buys"] for t in tags),
        **source,
        "reference_sigma_pp": round(100 * (0.25 / source["reference_iterations"]) ** 0.5, 2),
        "levels": [],
    }
    for level in levels:
        lives = pool.map(_odds, [(index, level, 11, engine) for index in range(states)])
        errors = [abs(lives[i][name] - refs[i][name]) * 100
                  for i in range(states) for name in refs[i]]
        result["levels"].append({"iterations": level, "max_error_pp": round(max(errors), 2),
                                 "mean_error_pp": round(statistics.fmean(errors), 2)})
    return result, refs


def _calibrate(args: tuple[int, int, int, str]) -> list[tuple[float, float]]:
    """One practice match, predicted every ``every`` balls: (predicted, outcome) pairs."""
    from alley_poker.odds import win_odds
    from benchmarks._practice_match import PracticeMatch

    seed, iterations, every, engine = args
    rng = random.Random(seed)
    bowlers = ("Ann", "Bob", "Cy", "Di")[:rng.randint(2, 4)]
    averages = {name: rng.randint(110, 220) for name in bowlers}
    match = PracticeMatch(bowlers, seed=seed, averages=averages)
    predictions = []
    while match.state.result is None:
        odds = win_odds(match.state, iterations=iterations, seed=seed, engine=engine)
        predictions.append({name: b.win for name, b in odds.bowlers.items()})
        match.play(match.state.balls_recorded + every)
        if match.state.status == "ending":
            match.finish()
    winners = match.state.result["winners"]
    outcome = {name: (1 / len(winners) if name in winners else 0.0) for name in bowlers}
    return [(p[name], outcome[name]) for p in predictions for name in bowlers]


def calibration(matches: int, iterations: int, every: int, pool, plot: str | None,
                engine: str) -> dict:
    pairs = [pair for chunk in pool.map(_calibrate, [(5000 + m, iterations, every, engine)
                                                      for m in range(matches)])
             for pair in chunk]
    brier = statistics.fmean((p - o) ** 2 for p, o in pairs)
    bins = [[] for _ in range(10)]
    for p, o in pairs:
        bins[min(int(p * 10), 9)].append((p, o))
    table = [{"predicted": round(statistics.fmean(p for p, _ in b), 3),
              "observed": round(statistics.fmean(o for _, o in b), 3), "count": len(b)}
             for b in bins if b]
    if plot:
        _plot(table, brier, len(pairs), matches, plot)
    return {"calibration_matches": matches, "predictions": len(pairs),
            "calibration_iterations": iterations, "brier": round(brier, 4),
            "reliability": table}


def _plot(table: list[dict], brier: float, predictions: int, matches: int, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(5.5, 5.5), dpi=100)
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect")
    axes.plot([row["predicted"] for row in table], [row["observed"] for row in table],
              marker="o", color="#0b5394", label="live odds")
    for row in table:
        axes.annotate(str(row["count"]), (row["predicted"], row["observed"]),
                      textcoords="offset points", xytext=(4, -12), fontsize=7)
    axes.set_xlabel("predicted chance of taking the pot")
    axes.set_ylabel("share of the pot actually taken")
    axes.set_title(f"Live odds reliability: {predictions} predictions, {matches} matches\n"
                   f"Brier score {brier:.4f}", fontsize=10)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def latency(states: int, first: int, settled: int, processes: int,
            refs: list[dict[str, float]], engine: str, settled_points: float) -> dict:
    """Request to first estimate, and to settled odds, through the service's LiveOdds; and
    how far the first estimates and the settled odds are from the reference."""
    from alley_poker.service.bus import InProcessBus
    from alley_poker.service.live_odds import LiveOdds

    bus = InProcessBus()
    arrivals: list[tuple[float, dict]] = []
    bus.subscribe(lambda topic, message: arrivals.append((time.perf_counter(),
                                                          message["odds"])))
    odds = LiveOdds(bus, iterations=settled, first_iterations=first, processes=processes,
                    engine=engine, settled_error=settled_points / 100)
    firsts, settles, first_errors, settled_errors, runs = [], [], [], [], []
    try:
        odds.request("warm-up", _state(0)[0])  # the pool's processes start and import once
        odds.wait_idle(600)
        for index in range(states):
            state, _ = _state(index)
            arrivals.clear()
            started = time.perf_counter()
            odds.request(f"state-{index}", state)
            if not odds.wait_idle(600):
                raise RuntimeError(f"state {index}: no settled odds within 600 s")
            firsts.append((arrivals[0][0] - started) * 1000)
            settles.append((arrivals[-1][0] - started) * 1000)
            runs.append(arrivals[-1][1]["iterations"])
            for errors, (_, published) in ((first_errors, arrivals[0]),
                                           (settled_errors, arrivals[-1])):
                errors.extend(abs(published["bowlers"][name]["win"] - chance) * 100
                              for name, chance in refs[index].items())
    finally:
        odds.stop()
    return {"latency_processes": processes,
            **_spread("first_estimate_ms", firsts), **_spread("settled_ms", settles),
            "first_estimate_max_error_pp": round(max(first_errors), 2),
            "max_error_pp": round(max(settled_errors), 2),
            "mean_error_pp": round(statistics.fmean(settled_errors), 2),
            "settled_iterations_p50": int(statistics.median(runs)),
            "settled_iterations_max": max(runs)}


def _spread(name: str, timings: list[float]) -> dict:
    timings = sorted(timings)
    return {f"{name}_p50": round(statistics.median(timings), 1),
            f"{name}_p95": round(timings[int(0.95 * (len(timings) - 1))], 1),
            f"{name}_max": round(timings[-1], 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a tiny run (smoke test)")
    parser.add_argument("--engine", choices=("fast", "ledger"), default="fast")
    parser.add_argument("--states", type=int, default=STATES)
    parser.add_argument("--levels", default="400,4000",
                        help="fixed run counts to measure the error at")
    parser.add_argument("--first-iterations", type=int, default=2400,
                        help="the live odds' first estimate, at most (as [odds])")
    parser.add_argument("--settled-iterations", type=int, default=20_000,
                        help="the live odds' runs once settled, at most (as [odds])")
    parser.add_argument("--settled-points", type=float, default=SETTLED_ERROR * 100,
                        help="the live odds settle at this standard error, in points (as "
                             "[odds] settled_points)")
    parser.add_argument("--reference-iterations", type=int, default=20_000,
                        help="runs of a reference computed now, when the recorded one is "
                             "missing or stale")
    parser.add_argument("--calibration-matches", type=int, default=2000)
    parser.add_argument("--calibration-iterations", type=int, default=60)
    parser.add_argument("--predict-every", type=int, default=10,
                        help="balls between predictions")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--plot", help="write the reliability diagram (PNG) here")
    parser.add_argument("--pairs", type=int, default=12, help="league night: lane pairs")
    parser.add_argument("--rate", type=float, default=1.0,
                        help="league night: commands (balls) a second, in all")
    parser.add_argument("--league-night-commands", type=int, default=240,
                        help="league night: commands bowled (0: no league night)")
    parser.add_argument("--league-night-reference-runs", type=int, default=40_000)
    parser.add_argument("--league-night-reference-every", type=int, default=6)
    parser.add_argument("--helpers", type=int, default=0,
                        help="league night: also hand chunks to this many 'alley-poker "
                             "odds-helper' processes through Redis ([odds] shared)")
    parser.add_argument("--redis-url", default=os.environ.get("ALLEY_POKER_REDIS_URL",
                                                             "redis://127.0.0.1:6379/0"),
                        help="the Redis the helpers share (--helpers)")
    parser.add_argument("--league-night-only", action="store_true",
                        help="skip the accuracy, calibration and one-state parts")
    args = parser.parse_args(argv)
    try:
        levels = [int(level) for level in args.levels.split(",")]
    except ValueError:
        parser.error(f"--levels must be run counts separated by commas, not {args.levels!r}")
    if args.quick:
        args.states, levels, args.reference_iterations = 6, [20, 40], 120
        args.first_iterations, args.settled_iterations = 20, 60
        args.calibration_matches, args.calibration_iterations = 4, 20
        args.predict_every = 12
        args.pairs, args.rate, args.league_night_commands = 3, 20.0, 12
        args.league_night_reference_runs, args.league_night_reference_every = 100, 4
    if not 1 <= args.states <= STATES:
        parser.error(f"--states must be 1 to {STATES}")
    if min(levels) < 1 or args.reference_iterations < 1 or args.processes < 1:
        parser.error("the run counts and --processes must be at least 1")
    if args.pairs < 1 or args.rate <= 0 or args.league_night_commands < 0:
        parser.error("--pairs and --rate must be positive")
    if not 0 <= args.helpers <= 8:
        parser.error("--helpers must be 0 to 8")
    started = time.monotonic()
    result = {"engine": args.engine, "loadavg_1m_start": round(os.getloadavg()[0], 2)}
    if not args.league_night_only:
        with get_context("spawn").Pool(args.processes) as pool:
            accurate, refs = accuracy(args.states, levels, args.reference_iterations, pool,
                                      args.engine)
            result.update(accurate)
            result.update(calibration(args.calibration_matches, args.calibration_iterations,
                                      args.predict_every, pool, args.plot, args.engine))
        result["loadavg_1m_cold_latency_start"] = round(os.getloadavg()[0], 2)
        result.update(latency(args.states, args.first_iterations, args.settled_iterations,
                              args.processes, refs, args.engine, args.settled_points))
    if args.league_night_commands:
        result.update(league_night(
            pairs=args.pairs, rate=args.rate, commands=args.league_night_commands,
            processes=args.processes, first=args.first_iterations,
            settled=args.settled_iterations,
            reference_runs=args.league_night_reference_runs,
            reference_every=args.league_night_reference_every, engine=args.engine,
            settled_points=args.settled_points, helpers=args.helpers,
            redis_url=args.redis_url))
    result["loadavg_1m_end"] = round(os.getloadavg()[0], 2)
    result["seconds"] = round(time.monotonic() - started, 1)
    print_result(result, as_json=args.json)


if __name__ == "__main__":
    main()
