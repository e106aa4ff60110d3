"""Feed line → kiosk update: how long a lane-side screen waits for the card a ball dealt.

``python -m benchmarks.latency --json [--quick] [--seed N] [--lanes 100]
[--bowlers-per-lane 6] [--balls-per-s 200] [--clients 200] [--duration S]
[--deployment single|scaled|both] [--server gunicorn|werkzeug|both]
[--odds [--odds-iterations N] [--odds-processes N]]``

What runs, all of it real:

1. The centre (``--deployment``): ``single`` is ``alley-poker serve`` over a SQLite store in a
   temporary folder; ``scaled`` is one ``alley-poker worker`` (the feeds) and two
   ``alley-poker web`` processes (the kiosks) over a PostgreSQL schema and a Redis centre
   prefix of the run's own (``--pg-url``, ``--redis-url``), dropped afterwards; ``both`` runs
   single, then scaled, and prints both and the ratio scaled/single of p50, p95 and p99.
   One started match per lane pair (``bowlers-per-lane`` bowlers on each lane, antes paid)
   is set up through the service over that store before the processes start.
   ``--server`` is the HTTP server of ``serve`` and ``web``: gunicorn (the production one,
   the default) or Werkzeug's; ``both`` runs Werkzeug's, then gunicorn, over the same
   balls (the same seed) and prints both and the ratio gunicorn/werkzeug of p50, p95, p99
   and CPU.
2. Feeds reading **serial ports**: one socat pty pair per ``--lanes-per-feed`` lanes (a pty
   is a real tty that pyserial opens exactly as it opens ``/dev/ttyUSB0``; a ``socket://``
   device server would add a TCP hop and a writer thread per cable on the load side, which
   shares the two cores with the service).
3. ``--clients`` python-socketio clients (websocket transport) joined as kiosks, spread
   round-robin over the lane pairs, over ``--client-processes`` processes (one interpreter
   decoding 800 updates a second would queue them behind its own lock) and, scaled out,
   alternately over the web processes, so each pair has kiosks on both.
4. One writer thread paces every lane: valid apf1 ``BALL`` lines at ``--balls-per-s`` in total,
   the lanes taking turns in a shuffled order each round.

For every ball it takes the time from the line's last byte written into the pty to the
``match_update`` carrying that ball arriving at the *last* kiosk of that lane pair, and
prints p50/p95/p99/max over the measured balls (after ``--warmup`` seconds), the balls that
never reached every kiosk within ``--lost-after`` seconds (``lost``), throughput, CPU use and
peak resident memory (``VmHWM`` from ``/proc``) of every service process.

With ``--odds`` the centre runs with live odds on (``[odds] enabled = true``), and for every
ball it also takes the time to the first ``match_odds`` at the pair's last kiosk that
includes the ball (``odds_p50_ms`` …; see :mod:`benchmarks._latency_figures`), the share of
balls whose own odds were superseded by a later ball's, the mean iterations per odds
message, and the peak memory of the odds pool's processes beside the service's.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks._deployments import DEFAULT_PG_URL, DEFAULT_REDIS_URL, ScaledOut, SingleBox
from benchmarks._kiosk_clients import BallKey, KioskFleet
from benchmarks._lane_balls import lane_balls
from benchmarks._latency_figures import Written, ball_figures, odds_figures
from benchmarks._output import print_result
from benchmarks._pty_links import PtyCable
from benchmarks._service_process import reap
from drivers.base import BallRecorded
from drivers.dialects.apf1 import Apf1Encoder

GAMES = 3


def bowler_name(lane: int, slot: int) -> str:
    return f"L{lane}s{slot}"


def match_id_for(pair: str) -> str:
    return f"pair-{pair}"


def set_up_matches(database_url: str, lanes: int, bowlers_per_lane: int,
                   centre: str = "default") -> list[str]:
    """One started match per lane pair, written to the store the service will open."""
    from alley_poker.centre import open_ledger_service
    from alley_poker.ledger.commands import ConsentToAnte, StartMatch

    service = open_ledger_service(database_url, centre=centre)
    pairs = []
    for first in range(1, lanes, 2):
        pair = f"{first}-{first + 1}"
        match_id = match_id_for(pair)
        slots = {(lane, slot): bowler_name(lane, slot)
                 for lane in (first, first + 1) for slot in range(1, bowlers_per_lane + 1)}
        service.create_match(match_id, slots, games=GAMES, actor="commissioner:bench")
        for name in slots.values():
            service.execute(match_id, ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, StartMatch(actor="commissioner:bench"))
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


def odds_settings(args: argparse.Namespace) -> dict[str, object] | None:
    """The ``[odds]`` keys the centre runs with (None: odds off, written as
    ``enabled = false``: the config's default is on)."""
    if not args.odds:
        return None
    settings: dict[str, object] = {"enabled": True}
    if args.odds_iterations is not None:
        settings["iterations"] = args.odds_iterations
    if args.odds_processes is not None:
        settings["processes"] = args.odds_processes
    return settings


def wait_for_first_odds(url: str, pair: str, bowl, timeout: float = 120.0) -> None:
    """Bowl one ball and wait until a kiosk of its pair gets odds: the pool's processes start
    (and import) at the first request, a start-up cost that is not the odds' latency."""
    import threading

    import socketio

    arrived = threading.Event()
    kiosk = socketio.Client(reconnection=False)
    kiosk.on("match_odds", lambda _payload: arrived.set())
    kiosk.connect(url, transports=["websocket"], wait_timeout=30)
    try:
        kiosk.call("join", {"lanes": pair}, timeout=30)
        bowl()
        if not arrived.wait(timeout):
            raise RuntimeError(f"no odds reached a kiosk of lanes {pair} in {timeout:.0f} s")
    finally:
        kiosk.disconnect()


def run(args: argparse.Namespace, deployment: str = "single",
        server: str | None = None) -> dict:
    if args.lanes < 2 or args.lanes % 2:
        raise SystemExit("--lanes: an even number of lanes (they are paired), at least 2")
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="alley-latency-"))
    cables: list[PtyCable] = []
    fleet = None
    centre: SingleBox | ScaledOut | None = None
    try:
        server = server or args.server
        centre = (SingleBox(workdir, server=server) if deployment == "single" else
                  ScaledOut(workdir, pg_url=args.pg_url, redis_url=args.redis_url,
                            server=server))
        pairs = set_up_matches(centre.database_url, args.lanes, args.bowlers_per_lane,
                               centre.centre)
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
        centre.start(lanes=args.lanes, feeds=feeds, odds=odds_settings(args),
                     profile=args.profile)

        fleet = KioskFleet(centre.urls, pairs, args.clients, args.client_processes)
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
        if args.odds:
            first = next(balls)
            cable = cable_for_lane[first.lane]
            wait_for_first_odds(centre.urls[0], pairs[(first.lane - 1) // 2],
                                lambda: cable.write(encoders[id(cable)].encode(first)))
        start = time.perf_counter()
        measure_from = start + args.warmup
        stop_at = measure_from + args.duration
        cpu_before: dict[str, float] | None = None
        for count, ball in enumerate(balls):
            due = start + count * interval
            now = time.perf_counter()
            if due >= stop_at:
                break
            if cpu_before is None and now >= measure_from:
                cpu_before = {name: process.cpu_seconds()
                              for name, process in centre.processes.items()}
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
        cpu_after = {name: process.cpu_seconds() for name, process in centre.processes.items()}
        load_cpu = time.process_time() - load_cpu_before if cpu_before is not None else 0.0

        arrivals = fleet.collect(max(args.lost_after, args.odds_lost_after if args.odds else 0))
        peak_rss = {name: process.peak_rss_mb() for name, process in centre.processes.items()}
        pool = centre.feeds_process.pool_processes()
        pool_rss = centre.feeds_process.pool_peak_rss_mb(pool)
        centre.close()
        pool_left_running = reap(pool)
        measured_s = finished - max(measure_from, start)

        def cpu_pct(name: str) -> float | None:
            if measured_s <= 0 or cpu_before is None:
                return None
            return round(100 * (cpu_after[name] - cpu_before[name]) / measured_s, 1)

        figures, timeline = ball_figures(written, arrivals, kiosks_on_pair, start)
        result: dict = {
            "deployment": deployment,
            "server": server,
            "lanes": args.lanes,
            "bowlers_per_lane": args.bowlers_per_lane,
            "balls_per_s": args.balls_per_s,
            "clients": args.clients,
            "client_processes": args.client_processes,
            "feeds": len(cables),
            "transport": "pty (socat pair, opened by pyserial)",
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "balls_measured": figures.pop("balls_measured"),
        }
        watched = result["balls_measured"] + figures["unwatched"]
        result["achieved_balls_per_s"] = (round(watched / measured_s, 1) if measured_s > 0
                                          else 0.0)
        result["updates_received"] = arrivals.updates
        result.update(figures)
        # The service's memory: serve's own, or every process's of the scaled-out centre.
        result["peak_rss_mb"] = round(sum(peak_rss.values()), 1)
        cpus = [cpu_pct(name) for name in centre.processes]
        result["service_cpu_pct"] = (round(sum(cpus), 1) if None not in cpus else None)
        if deployment != "single":
            result["processes"] = {name: {"peak_rss_mb": round(peak_rss[name], 1),
                                          "cpu_pct": cpu_pct(name)}
                                   for name in centre.processes}
        result["kiosks_cpu_pct"] = round(fleet.cpu_pct, 1)
        result["writer_cpu_pct"] = (round(100 * load_cpu / measured_s, 1) if measured_s > 0
                                    else None)
        if args.odds:
            settings = odds_settings(args) or {}
            result["odds_iterations_setting"] = settings.get("iterations", "default")
            result["odds_processes_setting"] = settings.get("processes", "default")
            result.update(odds_figures(written, arrivals, kiosks_on_pair))
            result["odds_pool_processes"] = len(pool)
            # Pool processes still running 5 s after the service stopped (then killed).
            result["odds_pool_left_running"] = pool_left_running
            result["odds_pool_peak_rss_mb"] = round(pool_rss, 1)
            result["peak_rss_with_pool_mb"] = round(result["peak_rss_mb"] + pool_rss, 1)
        result["seed"] = args.seed
        if args.timeline:
            Path(f"{args.timeline}.{deployment}" if args.deployment == "both"
                 else args.timeline).write_text("".join(
                     f"{at:.4f},{ms:.2f}\n" for at, ms in sorted(timeline)), encoding="utf-8")
        no_odds = args.odds and not result["odds_messages_received"]
        if result["lost"] or no_odds:
            said = "\n".join(f"--- {name}\n{process.output()}"
                             for name, process in centre.processes.items())
            print(f"{'lost balls' if result['lost'] else 'no odds'}; the service said:\n{said}",
                  file=sys.stderr)
        return result
    finally:
        if fleet is not None:
            fleet.close()
        if centre is not None:
            centre.close()
        for cable in cables:
            cable.close()
        shutil.rmtree(workdir, ignore_errors=True)


def compare(single: dict, scaled: dict) -> dict:
    """Both runs' figures and the ratio scaled/single of p50, p95 and p99."""
    ratios = {}
    for name in ("p50_ms", "p95_ms", "p99_ms"):
        if single.get(name) and scaled.get(name) is not None:
            ratios[name.removesuffix("_ms")] = round(scaled[name] / single[name], 2)
    return {"single": single, "scaled": scaled, "scaled_over_single": ratios}


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
    parser.add_argument("--deployment", choices=("single", "scaled", "both"), default="single",
                        help="serve on SQLite, 2 web + 1 worker on PostgreSQL and Redis, or both "
                             "in one run (with the ratios scaled/single)")
    parser.add_argument("--server", choices=("gunicorn", "werkzeug", "both"), default="gunicorn",
                        help="the HTTP server of serve and web: gunicorn (production), "
                             "werkzeug's, or both in one run (werkzeug first; with the ratios "
                             "gunicorn/werkzeug)")
    parser.add_argument("--pg-url", default=DEFAULT_PG_URL,
                        help="PostgreSQL for --deployment scaled (a schema of its own is made "
                             "and dropped in it)")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL,
                        help="Redis for --deployment scaled (a centre id of its own)")
    parser.add_argument("--odds", action="store_true",
                        help="run with live odds on and measure ball → odds at the kiosks")
    parser.add_argument("--odds-iterations", type=int, help="[odds] iterations (config default)")
    parser.add_argument("--odds-processes", type=int, help="[odds] processes (config default)")
    parser.add_argument("--odds-lost-after", type=float, default=10.0,
                        help="seconds after the last ball to wait for the odds")
    parser.add_argument("--timeline", metavar="FILE",
                        help="write each measured ball's 'seconds into the run,latency ms' (CSV;"
                             " FILE.single and FILE.scaled with --deployment both)")
    parser.add_argument("--profile", metavar="FILE",
                        help="sample the service's stacks (wall clock, collapsed) into FILE "
                             "(FILE.worker, FILE.web1, … scaled out)")
    args = parser.parse_args(argv)
    if args.quick:
        args.lanes, args.clients, args.balls_per_s = 4, 8, 20.0
        args.duration, args.warmup, args.client_processes = 3.0, 1.0, 1
        args.odds_lost_after = min(args.odds_lost_after, 5.0)
    return args


def print_both(result: dict, *, as_json: bool) -> None:
    if as_json:
        print_result(result, as_json=True)
        return
    for name in ("single", "scaled"):
        print(f"--- {name}")
        print_result(result[name], as_json=False)
    print("--- scaled / single")
    print_result(result["scaled_over_single"], as_json=False)


def compare_servers(werkzeug: dict, gunicorn: dict) -> dict:
    """Both servers' figures and the ratio gunicorn/werkzeug of p50, p95, p99 and CPU."""
    ratios = {}
    for name in ("p50_ms", "p95_ms", "p99_ms", "service_cpu_pct"):
        if werkzeug.get(name) and gunicorn.get(name) is not None:
            ratios[name.removesuffix("_ms")] = round(gunicorn[name] / werkzeug[name], 2)
    return {"werkzeug": werkzeug, "gunicorn": gunicorn, "gunicorn_over_werkzeug": ratios}


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.server == "both":
        deployments = ("single", "scaled") if args.deployment == "both" else (args.deployment,)
        result = {deployment: compare_servers(run(args, deployment, "werkzeug"),
                                              run(args, deployment, "gunicorn"))
                  for deployment in deployments}
        print_result(result if len(deployments) > 1 else result[deployments[0]],
                     as_json=args.json)
        return
    if args.deployment == "both":
        single = run(args, "single")
        print_both(compare(single, run(args, "scaled")), as_json=args.json)
    else:
        print_result(run(args, args.deployment), as_json=args.json)


if __name__ == "__main__":
    main()
