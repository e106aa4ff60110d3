"""The odds benchmark's reference: each recorded state's odds at many runs, kept in a file.

``python -m benchmarks.odds_reference [--iterations 200000] [--step 5000] [--processes 2]
[--engine fast|ledger]``

A reference of 200,000 runs for each of the 60 recorded states (:mod:`benchmarks.odds`) costs
hours of CPU through the ledger's handlers (``--engine ledger``, which made the file of
2026-11-25) and about a tenth of that in the fast engine (the default for a new file), far
more than one benchmark run should, so it is computed once and kept in
``benchmarks/data/odds_reference.json``: for every state its runs so far and the total wins
per bowler (a tie counting as the share), and the engine that made them.  This command adds runs,
``--step`` per state at a time in turns over the states (so a run stopped early leaves every
state with about as many), each step with seeds of its own, until every state has
``--iterations``; the file is written after every round, so it can be extended later (a
bigger machine, another evening) and never starts over.

The file records a fingerprint of each state and of the simulation (a short run of the first
state with a fixed seed, by the file's engine; :mod:`benchmarks._odds_reference_file`): when
the recorded states or the simulation change, the benchmark says the reference is stale
instead of comparing against it, and ``--restart`` begins anew.
"""

from __future__ import annotations

import argparse
import json
import time
from multiprocessing import get_context
from pathlib import Path

from benchmarks._odds_reference_file import (
    REFERENCE,
    engine_of,
    load,
    simulation_probe,
    stale_reason,
    state_fingerprint,
)
from benchmarks._odds_states import STATES, recorded_state

#: Seeds of the reference's steps lie far away from the live runs' seeds.
_SEED_BASE = 900_000_000


def _step(args: tuple[int, int, int, str]) -> tuple[int, int, dict[str, float]]:
    from alley_poker.odds import win_odds

    index, runs, step_number, engine = args
    state, _ = recorded_state(index)
    odds = win_odds(state, iterations=runs, seed=_SEED_BASE + 1000 * index + step_number,
                    engine=engine)
    return index, runs, {name: b.win * runs for name, b in odds.bowlers.items()}


def _fresh(engine: str) -> dict:
    return {"engine": engine, "probe": simulation_probe(engine), "states": [
        {"index": index, "fingerprint": state_fingerprint(index), "iterations": 0,
         "steps": 0, "wins": {}} for index in range(STATES)]}


def extend(target: int, step: int, processes: int, restart: bool, path: Path,
           engine: str = "fast") -> dict:
    reference = load(path)
    if reference is None or restart:
        reference = _fresh(engine)
    elif (why := stale_reason(reference)) is not None:
        raise SystemExit(f"{path}: {why}; run with --restart to compute it anew")
    started = time.monotonic()
    with get_context("spawn").Pool(processes) as pool:
        while True:
            todo = [(entry["index"], min(step, target - entry["iterations"]), entry["steps"],
                     engine_of(reference))
                    for entry in reference["states"] if entry["iterations"] < target]
            if not todo:
                break
            for index, runs, wins in pool.imap_unordered(_step, todo):
                entry = reference["states"][index]
                entry["iterations"] += runs
                entry["steps"] += 1
                for name, won in wins.items():
                    entry["wins"][name] = entry["wins"].get(name, 0.0) + won
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(reference, indent=1, sort_keys=True) + "\n")
            least = min(entry["iterations"] for entry in reference["states"])
            print(f"every state has at least {least:,} runs "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
    return reference


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200_000)
    parser.add_argument("--step", type=int, default=5000)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--restart", action="store_true")
    parser.add_argument("--file", type=Path, default=REFERENCE)
    parser.add_argument("--engine", choices=("fast", "ledger"), default="fast",
                        help="the engine of a new (or --restart) file; an existing file is "
                             "extended by the engine that made it")
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.step < 1:
        parser.error("--iterations and --step must be at least 1")
    extend(args.iterations, args.step, args.processes, args.restart, args.file, args.engine)


if __name__ == "__main__":
    main()
