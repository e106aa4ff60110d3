"""Feed line → kiosk update: how long a lane-side screen waits for the card a ball dealt.

``python -m benchmarks.latency --json [--quick] [--seed N] [--lanes 100]
[--bowlers-per-lane 6] [--balls-per-s 200] [--clients 200] [--duration S]``

What runs, all of it real:

1. A SQLite store in a temporary folder, with one match per lane pair (``bowlers-per-lane``
   bowlers on each lane, antes paid, started), set up through the service over that store.
2. ``alley-poker serve`` as a subprocess, its feeds reading **serial ports**: one socat pty
   pair per ``--lanes-per-feed`` lanes (a pty is a real tty that pyserial opens exactly as it
   opens ``/dev/ttyUSB0``; a ``socket://`` device server would add a TCP hop and a writer
   thread per cable on the load side, which shares the two cores with the service).
3. ``--clients`` python-socketio clients (websocket transport) joined as kiosks, spread
   round-robin over the lane pairs and over ``--client-processes`` processes (one
   interpreter decoding 800 updates a second would queue them behind its own lock).
4. One writer thread paces every lane: valid apf1 ``BALL`` lines at ``--balls-per-s`` in total,
   the lanes taking turns in a shuffled order each round.

For every ball it takes the time from the line's last byte written into the pty to the
``match_update`` carrying that ball arriving at the *last* kiosk of that lane pair, and
prints p50/p95/p99/max over the measured balls (after ``--warmup`` seconds), the balls that
never reached every kiosk within ``--lost-after`` seconds (``lost``), throughput, the service's
CPU use and its peak resident memory (``VmHWM`` from ``/proc``).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks._kiosk_clients import BallKey, KioskFleet
from benchmarks._lane_balls import lane_balls
from benchmarks._output import print_result
from benchmarks._pty_links import PtyCable
from benchmarks._service_process import ServiceProcess, write_config
from drivers.base import BallRecorded
from drivers.dialects.apf1 import Apf1Encoder

GAMES = 3


@dataclass
class Written:
    at: float
    pair: str
    measured: bool


def bowler_name(lane: int, slot: int) -> str:
    return f"L{lane}s{slot}"


def match_id_for(pair: str) -> str:
    return f"pair-{pair}"


def set_up_matches(database_url: str, lanes: int, bowlers_per_lane: int) -> list[str]:
    """One started match per lane pair, written to the store the service will open."""
    from alley_poker.ledger.commands import ConsentToAnte, StartMatch
    from alley_poker.service import open_service

    service = open_service(database_url)
    pairs = []
    for first in range(1, lanes, 2):
        pair = f"{first}-{first + 1}"
        match_id = match_id_for(pair)
        slots = {(lane, slot): bowler_name(lane, slot)
                 for lane in (first, first + 1) for slot in range(1, bowlers_per_lane + 1)}
        service.create_match(match_id, slots, games=GAMES, actor="desk:bench")
        for name in slots.values():
            service.execute(match_id, ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, StartMatch(actor="desk:bench"))
        pairs.append(pair)
    service.repository.store.close()
    return pairs


def paced_balls(lanes: int, bowlers: int, rng: random.Random) -> Iterator[BallRecorded]:
    """Every lane's balls, the lanes taking turns (shuffled each round) until all are done."""
    streams = {lane: lane_balls(lane, bowlers, GAMES, rng) for lane in range(1, lanes + 1)}
    while streams:
        order = list(streams)
        rng.shuffle(order)
        for lane in order:
            ball = next(streams[lane], None)
            if ball is None:
                del streams[lane]
            else:
                yield ball


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` of 1)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


def run(args: argparse.Namespace) -> dict:
    if args.lanes < 2 or args.lanes % 2:
        raise SystemExit("--lanes: an even number of lanes (they are paired), at least 2")
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="alley-latency-"))
    cables: list[PtyCable] = []
    fleet = None
    service = None
    try:
        database_url = f"sqlite:///{workdir / 'alley.sqlite3'}"
        pairs = set_up_matches(database_url, args.lanes, args.bowlers_per_lane)
        feeds = []
        cable_for_lane: dict[int, PtyCable] = {}
        for first in range(1, args.lanes + 1, args.lanes_per_feed):
            carried = list(range(first, min(args.lanes, first + args.lanes_per_feed - 1) + 1))
            cable = PtyCable(workdir, f"feed{first}")
            cables.append(cable)
            feeds.append((f"lanes-{carried[0]}-{carried[-1]}", cable.reader_path, carried))
            cable_for_lane.update(dict.fromkeys(carried, cable))
        for cable in cables:
            cable.wait_ready()
        config = write_config(workdir / "alley.toml", lanes=args.lanes,
                              database_url=database_url, feeds=feeds)
        service = ServiceProcess(config, workdir, sample_stacks_to=args.profile).start()
        service.wait_serving(timeout=60)

        fleet = KioskFleet(service.base_url, pairs, args.clients, args.client_processes)
        kiosks_on_pair: dict[str, set[int]] = {pair: set() for pair in pairs}
        for index, lanes in fleet.lanes_of.items():
            kiosks_on_pair[lanes].add(index)

        encoders = {id(cable): Apf1Encoder(session=f"bench-{index}")
                    for index, cable in enumerate(cables)}
        for cable in cables:
            cable.write(encoders[id(cable)].hello())

        written: dict[BallKey, Written] = {}
        interval = 1.0 / args.balls_per_s
        balls = paced_balls(args.lanes, args.bowlers_per_lane, rng)
        start = time.perf_counter()
        measure_from = start + args.warmup
        stop_at = measure_from + args.duration
        cpu_before = None
        for count, ball in enumerate(balls):
            due = start + count * interval
            now = time.perf_counter()
            if due >= stop_at:
                break
            if cpu_before is None and now >= measure_from:
                cpu_before = cpu_seconds(service.process.pid)
                load_cpu_before = time.process_time()
            if due > now:
                time.sleep(due - now)
            pair_first = ball.lane if ball.lane % 2 else ball.lane - 1
            pair = f"{pair_first}-{pair_first + 1}"
            cable = cable_for_lane[ball.lane]
            line = encoders[id(cable)].encode(ball)
            cable.write(line)
            at = time.perf_counter()
            key = (match_id_for(pair), bowler_name(ball.lane, ball.bowler), ball.game,
                   ball.frame, ball.ball)
            written[key] = Written(at, pair, at >= measure_from)
        finished = time.perf_counter()
        cpu_after = cpu_seconds(service.process.pid)
        load_cpu = time.process_time() - load_cpu_before if cpu_before is not None else 0.0

        arrivals = fleet.collect(args.lost_after)
        peak_rss_mb = service.peak_rss_mb()

        def delivered(key: BallKey, entry: Written) -> bool:
            return kiosks_on_pair[entry.pair] <= arrivals.times.get(key, {}).keys()

        latencies_ms, lost, unwatched = [], 0, 0
        timeline: list[tuple[float, float]] = []
        for key, entry in written.items():
            if not entry.measured:
                continue
            if not kiosks_on_pair[entry.pair]:
                unwatched += 1
            elif delivered(key, entry):
                last = max(arrivals.times[key][kiosk] for kiosk in kiosks_on_pair[entry.pair])
                latencies_ms.append((last - entry.at) * 1000)
                timeline.append((entry.at - start, latencies_ms[-1]))
            else:
                lost += 1
        measured_s = finished - max(measure_from, start)
        result = {
            "lanes": args.lanes,
            "bowlers_per_lane": args.bowlers_per_lane,
            "balls_per_s": args.balls_per_s,
            "clients": args.clients,
            "client_processes": args.client_processes,
            "feeds": len(cables),
            "transport": "pty (socat pair, opened by pyserial)",
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "balls_measured": len(latencies_ms) + lost,
            "achieved_balls_per_s": round((len(latencies_ms) + lost + unwatched)
                                          / measured_s, 1) if measured_s > 0 else 0.0,
            "updates_received": arrivals.updates,
            "p50_ms": round(percentile(latencies_ms, 0.50), 2) if latencies_ms else None,
            "p95_ms": round(percentile(latencies_ms, 0.95), 2) if latencies_ms else None,
            "p99_ms": round(percentile(latencies_ms, 0.99), 2) if latencies_ms else None,
            "max_ms": round(max(latencies_ms), 2) if latencies_ms else None,
            "mean_ms": round(statistics.fmean(latencies_ms), 2) if latencies_ms else None,
            "lost": lost,
            "unwatched": unwatched,
            "peak_rss_mb": round(peak_rss_mb, 1),
            "service_cpu_pct": round(100 * (cpu_after - (cpu_before or cpu_after))
                                     / measured_s, 1) if measured_s > 0 else None,
            "kiosks_cpu_pct": round(fleet.cpu_pct, 1),
            "writer_cpu_pct": round(100 * load_cpu / measured_s, 1) if measured_s > 0 else None,
            "seed": args.seed,
        }
        if args.timeline:
            Path(args.timeline).write_text("".join(
                f"{at:.4f},{ms:.2f}\n" for at, ms in sorted(timeline)), encoding="utf-8")
        if lost:
            print(f"lost balls; the service said:\n{service.output()}", file=sys.stderr)
        return result
    finally:
        if fleet is not None:
            fleet.close()
        if service is not None:
            service.stop()
        for cable in cables:
            cable.close()
        shutil.rmtree(workdir, ignore_errors=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.latency",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true",
                        help="a few lanes for a few seconds (CI's smoke tier)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lanes", type=int, default=100)
    parser.add_argument("--bowlers-per-lane", type=int, default=6)
    parser.add_argument("--balls-per-s", type=float, default=200.0)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of play before measuring starts")
    parser.add_argument("--lanes-per-feed", type=int, default=2,
                        help="lanes carried by each serial feed (one pty pair each)")
    parser.add_argument("--client-processes", type=int, default=2,
                        help="processes the kiosk clients are spread over")
    parser.add_argument("--lost-after", type=float, default=5.0,
                        help="an update not at every kiosk this long after the last ball is lost")
    parser.add_argument("--timeline", metavar="FILE",
                        help="write each measured ball's 'seconds into the run,latency ms' (CSV)")
    parser.add_argument("--profile", metavar="FILE",
                        help="sample the service's stacks (wall clock, collapsed) into FILE")
    args = parser.parse_args(argv)
    if args.quick:
        args.lanes, args.clients, args.balls_per_s = 4, 8, 20.0
        args.duration, args.warmup, args.client_processes = 3.0, 1.0, 1
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print_result(run(args), as_json=args.json)


if __name__ == "__main__":
    main()
