"""The worker model on a centre's night: what a bowler sees, threads against gevent.

``python -m benchmarks.worker_model [--json] [--quick] [--workers threads,gevent,threads,gevent]
[--lanes 8] [--kiosks 8] [--balls-per-s 5] [--phase-s 30] [--idle 1000]
[--conditions quiet,idle,heavy,odds]``

For each worker in ``--workers`` (in that order: interleave them, so the shared machine's
load falls on both alike), the same centre runs as ``alley-poker serve`` over SQLite,
started by :mod:`benchmarks._worker_serve` with that gunicorn worker: ``threads`` (the
server's own) or ``gevent`` (gunicorn's gevent worker; needs ``pip install gevent``, which is
deliberately not a dependency: docs/performance.md).  Scorers' balls arrive on real serial
feeds (socat ptys read by pyserial, one per two lane pairs) at ``--balls-per-s``, and
``--kiosks`` python-socketio kiosks (websocket transport, joined to the lane pairs) time each
ball's ``match_update``: **feed line → kiosk push** at the pair's last kiosk, as
:mod:`benchmarks.latency` measures it (its pieces are reused).  Each condition bowls for
``--phase-s`` seconds and gives p50 / p99 / max of that:

* ``quiet``: the balls alone (odds off);
* ``idle``: with ``--idle`` idle Socket.IO websockets held open
  (:class:`~benchmarks._idle_flood.IdleFlood`);
* ``heavy``: those sockets plus the desk fetching the slowest real GET the app has, one after
  another (a long night's settled match, bowled through the ledger before the server starts:
  its story, ``GET /api/v1/matches/<id>/story``, which replays and words the whole log; its
  export is timed beside it on the quiet server) — that GET's own duration is reported too;
* ``odds``: a second server of the same worker with the odds on (``[odds] enabled``, the
  config's default) during the night: balls alone, and the odds' own feed → kiosk latency.

Beside every condition: the one-minute load average at its start and end, and the worker's
resident memory and threads at its end (``VmRSS``, ``Threads`` from ``/proc``).
A benchmark, not a timed test: it prints figures (docs/performance.md, "Idle websockets and
the worker model").
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import shutil
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks._idle_flood import IdleFlood, worker_only_sections
from benchmarks._kiosk_clients import BallKey, KioskFleet
from benchmarks._latency_figures import Written, ball_figures, odds_figures, spread
from benchmarks._output import print_result
from benchmarks._pty_links import PtyCable
from benchmarks._service_process import ServiceProcess, reap, write_config
from benchmarks.idle_sockets import worker_figures
from benchmarks.latency import (
    bowler_name,
    match_id_for,
    paced_balls,
    set_up_matches,
    wait_for_first_odds,
)
from drivers.dialects.apf1 import Apf1Encoder

CONDITIONS = ("quiet", "idle", "heavy", "odds")
#: The settled match the desk reads in the ``heavy`` condition: a long night's (6 a lane, 12).
LONG_NIGHT = "long-night"
#: The story first: the one the ``heavy`` condition loops on both models (it replays and
#: words the whole log; ≈ 80–115 ms on the quiet server, about as long as the export).
HEAVY_PATHS = (f"/api/v1/matches/{LONG_NIGHT}/story", f"/api/v1/matches/{LONG_NIGHT}/export")


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def add_long_night(database_url: str, bowlers_per_lane: int) -> None:
    """A whole match bowled through the real ledger, settled by the desk (its decisions
    closed, the hands paid, the seed revealed), for the desk to read."""
    from alley_poker.ledger.commands import CommissionerSettleAsHandsStand
    from alley_poker.store import EventStore, MatchRepository
    from benchmarks._event_log import bowl_match

    records = bowl_match(LONG_NIGHT, bowlers_per_lane, seed=38)
    with EventStore.open(database_url) as store:
        store.append(LONG_NIGHT, records, 0)
        MatchRepository(store).execute(LONG_NIGHT, CommissionerSettleAsHandsStand(
            "the night's close", actor="commissioner:bench"))


def timed_get(url: str) -> float:
    """Milliseconds of one GET of ``url`` read whole on a new connection."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
    return (time.perf_counter() - started) * 1000


class DeskLoop:
    """The desk fetching one heavy GET after another until stopped; each one's duration."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.took_ms: list[float] = []
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="desk", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.took_ms.append(timed_get(self.url))
            except OSError:
                self.failed += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(90)


class Night:
    """One centre's night on one worker model: the server, its feeds, its kiosks, its balls."""

    def __init__(self, workdir: Path, args: argparse.Namespace, worker: str, odds: bool):
        self.args = args
        self.rng = random.Random(args.seed)
        self.cables: list[PtyCable] = []
        self.fleet: KioskFleet | None = None
        self.service: ServiceProcess | None = None
        database_url = f"sqlite:///{workdir / 'alley.sqlite3'}"
        self.pairs = set_up_matches(database_url, args.lanes, args.bowlers_per_lane)
        add_long_night(database_url, args.long_night_bowlers)
        feeds, self.cable_for_lane = [], {}
        for first in range(1, args.lanes + 1, 4):
            carried = list(range(first, min(args.lanes, first + 3) + 1))
            cable = PtyCable(workdir, f"feed{first}")
            self.cables.append(cable)
            feeds.append((f"lanes-{carried[0]}-{carried[-1]}", cable.reader_path, carried))
            self.cable_for_lane.update(dict.fromkeys(carried, cable))
        for cable in self.cables:
            cable.wait_ready()
        config = write_config(workdir / "alley.toml", lanes=args.lanes,
                              database_url=database_url, feeds=feeds,
                              odds={"enabled": True} if odds else None,
                              sections=worker_only_sections())
        self.service = ServiceProcess(config, workdir, module="benchmarks._worker_serve",
                                      env={"ALLEY_POKER_BENCH_WORKER": worker})
        self.service.start()
        self.service.wait_serving(timeout=90)
        self.encoders = {id(cable): Apf1Encoder(session=f"bench-{index}")
                         for index, cable in enumerate(self.cables)}
        for cable in self.cables:
            cable.write(self.encoders[id(cable)].hello())
        self.fleet = KioskFleet([self.service.base_url], self.pairs, args.kiosks, 1)
        self.kiosks_on_pair: dict[str, set[int]] = {pair: set() for pair in self.pairs}
        for index, lanes in self.fleet.lanes_of.items():
            self.kiosks_on_pair[lanes].add(index)
        self.balls = paced_balls(args.lanes, args.bowlers_per_lane, self.rng)
        self.phases: dict[str, dict[BallKey, Written]] = {}

    def _write(self, ball) -> tuple[BallKey, Written]:
        pair_first = ball.lane if ball.lane % 2 else ball.lane - 1
        pair = f"{pair_first}-{pair_first + 1}"
        cable = self.cable_for_lane[ball.lane]
        cable.write(self.encoders[id(cable)].encode(ball))
        at = time.perf_counter()
        key = (match_id_for(pair), bowler_name(ball.lane, ball.bowler), ball.game,
               ball.frame, ball.ball)
        return key, Written(at, pair, True)

    def wait_for_odds(self) -> None:
        first = next(self.balls)
        cable = self.cable_for_lane[first.lane]
        wait_for_first_odds(self.service.base_url, self.pairs[(first.lane - 1) // 2],
                            lambda: cable.write(self.encoders[id(cable)].encode(first)))

    def bowl(self, phase: str) -> None:
        """Balls at ``--balls-per-s`` for ``--phase-s`` seconds, noted under ``phase``."""
        written = self.phases.setdefault(phase, {})
        interval = 1.0 / self.args.balls_per_s
        start = time.perf_counter()
        count = 0
        # The clock is checked before a ball is drawn: a ball drawn and not written would
        # leave a hole in its bowler's frames that the ledger refuses.
        while (due := start + count * interval) < start + self.args.phase_s:
            ball = next(self.balls, None)
            if ball is None:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            key, entry = self._write(ball)
            written[key] = entry
            count += 1

    def figures(self) -> dict[str, dict]:
        """Per phase: the balls' feed → kiosk figures (and the odds' where they came)."""
        arrivals = self.fleet.collect(self.args.lost_after)
        result = {}
        for phase, written in self.phases.items():
            balls, _ = ball_figures(written, arrivals, self.kiosks_on_pair, 0.0)
            result[phase] = balls
            if arrivals.odds:
                result[phase].update(odds_figures(written, arrivals, self.kiosks_on_pair))
        return result

    def close(self) -> None:
        if self.fleet is not None:
            self.fleet.close()
        pool = self.service.pool_processes() if self.service is not None else []
        if self.service is not None:
            self.service.stop()
        reap(pool)
        for cable in self.cables:
            cable.close()


def _heavy_gets_quiet(base_url: str) -> dict[str, float]:
    """Each heavy GET's duration on the quiet server (median of three, after one to warm)."""
    medians = {}
    for path in HEAVY_PATHS:
        timed_get(base_url + path)
        medians[path] = round(sorted(timed_get(base_url + path) for _ in range(3))[1], 1)
    return medians


def _snapshot(service: ServiceProcess) -> dict[str, float]:
    figures = worker_figures(service)
    return {"rss_mb": figures["rss_mb"], "threads": figures["threads"]}


def run_worker(worker: str, args: argparse.Namespace) -> dict[str, object]:
    """Every condition of ``args.conditions`` on one worker model."""
    result: dict[str, object] = {}
    wanted = [c for c in CONDITIONS if c in args.conditions]
    if any(c != "odds" for c in wanted):
        result.update(_night_without_odds(worker, args, wanted))
    if "odds" in wanted:
        result.update(_night_with_odds(worker, args))
    return result


def _night_without_odds(worker: str, args, wanted: list[str]) -> dict[str, object]:
    result: dict[str, object] = {}
    workdir = Path(tempfile.mkdtemp(prefix="alley-model-"))
    night = flood = None
    try:
        night = Night(workdir, args, worker, odds=False)
        base_url = night.service.base_url
        conditions: dict[str, dict] = {}
        heavy_path = HEAVY_PATHS[0]
        result["heavy_get"] = heavy_path
        result["heavy_get_quiet_ms"] = _heavy_gets_quiet(base_url)
        for condition in wanted:
            if condition == "odds":
                continue
            if condition in ("idle", "heavy") and flood is None:
                host, port = base_url.rsplit("//", 1)[1].rsplit(":", 1)
                flood = IdleFlood(host, int(port))
                started = time.monotonic()
                result["idle_joined"] = flood.grow_to(args.idle, max(60, args.idle / 20))
                result["idle_grow_s"] = round(time.monotonic() - started, 1)
                time.sleep(2.0)
            desk = DeskLoop(base_url + heavy_path) if condition == "heavy" else None
            load_before = load_average()
            night.bowl(condition)
            if desk is not None:
                desk.stop()
            conditions[condition] = {"load": [load_before, load_average()],
                                     **_snapshot(night.service)}
            if desk is not None:
                conditions[condition].update(
                    {"heavy_gets": len(desk.took_ms), "heavy_failed": desk.failed,
                     **spread(desk.took_ms, "heavy_")})
        if flood is not None:
            result["idle_closed_by_server"] = flood.closed_by_server
        for condition, balls in night.figures().items():
            result[condition] = {**balls, **conditions[condition]}
    finally:
        if flood is not None:
            flood.close()
        if night is not None:
            night.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def _night_with_odds(worker: str, args) -> dict[str, object]:
    workdir = Path(tempfile.mkdtemp(prefix="alley-model-odds-"))
    night = None
    try:
        night = Night(workdir, args, worker, odds=True)
        try:
            night.wait_for_odds()
        except RuntimeError as error:  # the odds never came: that is the figure
            return {"odds": {"error": str(error), **_snapshot(night.service)}}
        load_before = load_average()
        night.bowl("odds")
        figures = {"load": [load_before, load_average()], **_snapshot(night.service)}
        return {"odds": {**night.figures()["odds"], **figures}}
    finally:
        if night is not None:
            night.close()
        shutil.rmtree(workdir, ignore_errors=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 2 lanes, 2 kiosks, 50 idle sockets, 4 s a condition")
    parser.add_argument("--workers", default="threads,gevent,threads,gevent",
                        help="worker models in run order (threads, gevent), comma-separated")
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--lanes", type=int, default=8)
    parser.add_argument("--bowlers-per-lane", type=int, default=6)
    parser.add_argument("--long-night-bowlers", type=int, default=6,
                        help="bowlers a lane in the settled match the desk reads")
    parser.add_argument("--kiosks", type=int, default=8)
    parser.add_argument("--balls-per-s", type=float, default=5.0)
    parser.add_argument("--phase-s", type=float, default=30.0)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--lost-after", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args(argv)
    if args.quick:
        args.lanes, args.kiosks, args.idle, args.phase_s = 2, 2, 50, 4.0
        args.long_night_bowlers, args.lost_after = 2, 5.0
    args.workers = [worker.strip() for worker in args.workers.split(",") if worker.strip()]
    args.conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    for worker in args.workers:
        if worker not in ("threads", "gevent"):
            parser.error(f"--workers: {worker!r} is not a worker model (threads, gevent)")
    unknown = set(args.conditions) - set(CONDITIONS)
    if unknown:
        parser.error(f"--conditions: {', '.join(sorted(unknown))} not among {CONDITIONS}")
    if args.lanes < 2 or args.lanes % 2:
        parser.error("--lanes: an even number of lanes (they are paired), at least 2")
    if "gevent" in args.workers and importlib.util.find_spec("gevent") is None:
        parser.error("--workers gevent needs gevent in this environment (pip install gevent; "
                     "not a dependency of the project: docs/performance.md)")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    result: dict[str, object] = {
        "lanes": args.lanes, "kiosks": args.kiosks, "balls_per_s": args.balls_per_s,
        "phase_s": args.phase_s, "idle_sockets": args.idle, "conditions": args.conditions}
    for run_index, worker in enumerate(args.workers, 1):
        result[f"run{run_index}.{worker}"] = run_worker(worker, args)
    print_result(result, as_json=args.json)


if __name__ == "__main__":
    main()
