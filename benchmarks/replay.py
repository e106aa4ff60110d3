"""Rebuilding matches from the event log, and how soon a restarted service serves again.

``python -m benchmarks.replay --json [--quick] [--events 100000] [--seed N]``

1. Builds a SQLite event log of at least ``--events`` real ledger events (whole matches of
   12 bowlers bowled through the ledger, copied under new ids; see ``_event_log``).
2. ``events_per_s``: a fresh :class:`MatchRepository` rebuilds every match from that store —
   as a restarted service does on first use of a match: its latest snapshot (saved by the
   repository as the match went, see ``SnapshotFolder``), then the events after it, checked
   against the invariants.  ``cold_events_per_s``: the same from the log alone (no
   snapshots: load, decode, fold, check); ``fold_events_per_s``: the fold alone, over
   records already in memory.
3. ``restart_s``: ``alley-poker serve`` started over that store as a subprocess, from process
   start until ``GET /api/v1/matches`` answers 200 — which lists every match with its
   status, so every match has been rebuilt by then (with the snapshots a service that ran
   on the store leaves; the cold figure above says what a store without them costs).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks._event_log import build_log
from benchmarks._output import print_result
from benchmarks._service_process import ServiceProcess, write_config


def rebuild_all(database_url: str, *, snapshots: bool) -> tuple[int, float]:
    """(matches, seconds) to rebuild every match of the store with a fresh repository,
    from the snapshots beside the database or (``snapshots=False``) from the first event."""
    from alley_poker.store import EventStore, MatchRepository

    with EventStore.open(database_url) as store:
        repository = MatchRepository(store) if snapshots else MatchRepository(
            store, snapshots=None)
        match_ids = store.match_ids()
        started = time.perf_counter()
        for match_id in match_ids:
            repository.state(match_id)
        return len(match_ids), time.perf_counter() - started


def fold_only(database_url: str, matches: int) -> tuple[int, float]:
    """(events, seconds) to fold the first ``matches`` matches from records in memory."""
    from alley_poker.ledger import check_invariants, event_from_record, replay
    from alley_poker.store import EventStore

    with EventStore.open(database_url) as store:
        logs = [(match_id, store.load(match_id)) for match_id in store.match_ids()[:matches]]
    started = time.perf_counter()
    for match_id, records in logs:
        check_invariants(replay(match_id, (event_from_record(r) for r in records)))
    return sum(len(records) for _, records in logs), time.perf_counter() - started


def run(args: argparse.Namespace) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="alley-replay-"))
    try:
        database_url = f"sqlite:///{workdir / 'alley.sqlite3'}"
        started = time.perf_counter()
        built = build_log(database_url, args.events, args.seed)
        build_s = time.perf_counter() - started
        # Cold: the log alone (a store no service has run on).  Writing the snapshots is
        # not part of it: a service saves them as its matches go, a few at a time.
        matches, cold_s = rebuild_all(database_url, snapshots=False)
        rebuild_all(database_url, snapshots=True)  # the service ran: its snapshots exist
        _, rebuild_s = rebuild_all(database_url, snapshots=True)
        fold_events, fold_s = fold_only(database_url, min(matches, 10))
        config = write_config(workdir / "alley.toml", lanes=2, database_url=database_url)
        restarts = []
        for _ in range(args.restarts):
            with ServiceProcess(config, workdir) as service:
                restarts.append(service.wait_serving(timeout=120))
        return {
            "events": built["events"],
            "matches": matches,
            "events_per_match": built["events_per_match"],
            "events_per_s": round(built["events"] / rebuild_s),
            "rebuild_s": round(rebuild_s, 3),
            "cold_events_per_s": round(built["events"] / cold_s),
            "cold_rebuild_s": round(cold_s, 3),
            "fold_events_per_s": round(fold_events / fold_s),
            "restart_s": round(sorted(restarts)[len(restarts) // 2], 3),
            "restart_s_each": [round(s, 3) for s in restarts],
            "build_s": round(build_s, 1),
            "seed": args.seed,
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.replay",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="a small log (CI's smoke tier)")
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--restarts", type=int, default=3,
                        help="service starts to time (restart_s is the median)")
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.restarts = 5_000, 1
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print_result(run(args), as_json=args.json)


if __name__ == "__main__":
    main()
