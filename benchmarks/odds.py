"""How good and how fast the live win odds are (docs/odds.md).

``python -m benchmarks.odds --json [--states N] [--levels 400,4000,16000]
[--calibration-matches N] [--plot PATH] [--quick]``

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
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from functools import cache
from multiprocessing import get_context

from benchmarks._output import print_result

STAGES = ("early", "middle", "last_frame")
RULE_BOOKS = ({}, {"buy_in": True}, {"buy_in": False})


#: The recorded states: ``_PLAIN`` stopped at fixed points, then ``_IN_THE_HOLE`` states of
#: weak bowlers stopped where one of them is in the hole (early, middle, last frame, twice).
_PLAIN = 54
_IN_THE_HOLE = 6
STATES = _PLAIN + _IN_THE_HOLE
_PER_BOWLER = {"early": 3, "middle": 10, "last_frame": 18}


@cache
def _state(index: int):
    """Recorded state number ``index``: rule book, bowlers and stage follow from it."""
    if index >= _PLAIN:
        return _hole_state(index - _PLAIN)
    from alley_poker.odds.practice import PracticeMatch

    bowlers = ("Ann", "Bob", "Cy", "Di")[:2 + index % 3]
    rules = RULE_BOOKS[index % len(RULE_BOOKS)]
    stage = STAGES[(index // 3) % len(STAGES)]
    averages = {name: 120 + (37 * (index + seat)) % 100 for seat, name in enumerate(bowlers)}
    match = PracticeMatch(bowlers, seed=1000 + index, rules=rules or None, averages=averages)
    match.play(_PER_BOWLER[stage] * len(bowlers))
    return match.state, _tags(match.state, stage, len(bowlers))


def _hole_state(number: int):
    """The first state of weak bowlers' practice matches (seeds tried in order) that is at
    ``number``'s stage with a bowler in the hole and no decision pending."""
    from alley_poker.odds.practice import PracticeMatch

    stage = STAGES[number % len(STAGES)]
    bowlers = ("Ann", "Bob", "Cy")
    first, last = {"early": (1, 4), "middle": (8, 12), "last_frame": (17, 20)}[stage]
    for seed in range(9000 + 1000 * number, 10000 + 1000 * number):
        match = PracticeMatch(bowlers, seed=seed, rules=RULE_BOOKS[number % 2 + 1],
                              averages={name: 100 + 7 * seat
                                        for seat, name in enumerate(bowlers)})
        while match.state.balls_recorded < last * len(bowlers) and match.step():
            state = match.state
            if (state.balls_recorded >= first * len(bowlers) and state.status == "playing"
                    and not state.decisions and any(h < 0 for h in state.hole.values())):
                return state, _tags(state, stage, len(bowlers))
    raise RuntimeError(f"no practice match reached the hole at the {stage} stage")


def _tags(state, stage: str, bowlers: int) -> dict:
    return {
        "stage": stage, "bowlers": bowlers, "buys": bool(state.rules.buy_in),
        "joker_held": any(card.startswith("JOKER") for hand in state.hands.values()
                          for card in hand),
        "in_the_hole": any(hole < 0 for hole in state.hole.values()),
    }


def _odds(args: tuple[int, int, int]) -> dict[str, float]:
    from alley_poker.odds import win_odds

    index, iterations, seed = args
    state, _ = _state(index)
    odds = win_odds(state, iterations=iterations, seed=seed)
    return {name: bowler.win for name, bowler in odds.bowlers.items()}


def _reference(states: int, computed_iterations: int, pool) -> tuple[list[dict], dict]:
    """Each state's reference odds, from the recorded file when it is current."""
    from benchmarks.odds_reference import REFERENCE, load, stale_reason

    recorded = load()
    why = "no recorded reference" if recorded is None else stale_reason(recorded)
    if why is None:
        entries = recorded["states"][:states]
        least = min(entry["iterations"] for entry in entries)
        return ([{name: won / entry["iterations"] for name, won in entry["wins"].items()}
                 for entry in entries],
                {"reference_source": str(REFERENCE.relative_to(REFERENCE.parents[2])),
                 "reference_iterations": least})
    refs = pool.map(_odds, [(index, computed_iterations, 7_000_003)
                            for index in range(states)])
    return refs, {"reference_source": f"computed now ({why})",
                  "reference_iterations": computed_iterations}


def accuracy(states: int, levels: list[int], reference_iterations: int, pool) -> dict:
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
        lives = pool.map(_odds, [(index, level, 11) for index in range(states)])
        errors = [abs(lives[i][name] - refs[i][name]) * 100
                  for i in range(states) for name in refs[i]]
        result["levels"].append({"iterations": level, "max_error_pp": round(max(errors), 2),
                                 "mean_error_pp": round(statistics.fmean(errors), 2)})
    return result, refs


def _calibrate(args: tuple[int, int, int]) -> list[tuple[float, float]]:
    """One practice match, predicted every ``every`` balls: (predicted, outcome) pairs."""
    from alley_poker.odds import win_odds
    from alley_poker.odds.practice import PracticeMatch

    seed, iterations, every = args
    rng = random.Random(seed)
    bowlers = ("Ann", "Bob", "Cy", "Di")[:rng.randint(2, 4)]
    averages = {name: rng.randint(110, 220) for name in bowlers}
    match = PracticeMatch(bowlers, seed=seed, averages=averages)
    predictions = []
    while match.state.result is None:
        odds = win_odds(match.state, iterations=iterations, seed=seed)
        predictions.append({name: b.win for name, b in odds.bowlers.items()})
        match.play(match.state.balls_recorded + every)
        if match.state.status == "ending":
            match.finish()
    winners = match.state.result["winners"]
    outcome = {name: (1 / len(winners) if name in winners else 0.0) for name in bowlers}
    return [(p[name], outcome[name]) for p in predictions for name in bowlers]


def calibration(matches: int, iterations: int, every: int, pool, plot: str | None) -> dict:
    pairs = [pair for chunk in pool.map(_calibrate, [(5000 + m, iterations, every)
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
            refs: list[dict[str, float]]) -> dict:
    """Request to first estimate, and to settled odds, through the service's LiveOdds; and
    how far the first estimates and the settled odds are from the reference."""
    from alley_poker.service.bus import InProcessBus
    from alley_poker.service.odds import LiveOdds

    bus = InProcessBus()
    arrivals: list[tuple[float, dict]] = []
    bus.subscribe(lambda topic, message: arrivals.append((time.perf_counter(),
                                                          message["odds"])))
    odds = LiveOdds(bus, iterations=settled, first_iterations=first, processes=processes)
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
    parser.add_argument("--states", type=int, default=STATES)
    parser.add_argument("--levels", default="400,4000",
                        help="fixed run counts to measure the error at")
    parser.add_argument("--first-iterations", type=int, default=400,
                        help="the live odds' first estimate, at most (as [odds])")
    parser.add_argument("--settled-iterations", type=int, default=20_000,
                        help="the live odds' runs once settled, at most (as [odds])")
    parser.add_argument("--reference-iterations", type=int, default=20_000,
                        help="runs of a reference computed now, when the recorded one is "
                             "missing or stale")
    parser.add_argument("--calibration-matches", type=int, default=2000)
    parser.add_argument("--calibration-iterations", type=int, default=60)
    parser.add_argument("--predict-every", type=int, default=10,
                        help="balls between predictions")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--plot", help="write the reliability diagram (PNG) here")
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
    if not 1 <= args.states <= STATES:
        parser.error(f"--states must be 1 to {STATES}")
    if min(levels) < 1 or args.reference_iterations < 1 or args.processes < 1:
        parser.error("the run counts and --processes must be at least 1")
    started = time.monotonic()
    with get_context("spawn").Pool(args.processes) as pool:
        result, refs = accuracy(args.states, levels, args.reference_iterations, pool)
        result.update(calibration(args.calibration_matches, args.calibration_iterations,
                                  args.predict_every, pool, args.plot))
    result.update(latency(args.states, args.first_iterations, args.settled_iterations,
                          args.processes, refs))
    result["seconds"] = round(time.monotonic() - started, 1)
    print_result(result, as_json=args.json)


if __name__ == "__main__":
    main()
