"""Thousands of idle Socket.IO websockets against the production server: does the centre hold,
and what does it cost?

``python -m benchmarks.idle_sockets [--json] [--quick] [--counts 1000,2000,4000]
[--worker threads|gevent] [--pool N] [--stack-kb N]``

``alley-poker serve`` runs as a subprocess over a SQLite store (2 lanes, one started match).
An :class:`~benchmarks._idle_flood.IdleFlood` grows to each count of idle, joined Socket.IO
websockets (from ``127.0.0.2``..``127.0.0.9``, answering the server's pings; the app's own
socket ceiling, where there is one, raised out of the way: this measures the worker); at each count
it reports the worker's resident memory (``VmRSS``), threads and open files, how many of the
flood joined, and what a kiosk sees meanwhile: ``GET /api/v1/lanes/1-2/screen`` (p50, p99,
max over ``--samples`` reads on new connections), ``GET /healthz`` and a new kiosk's
Socket.IO connect.  A read that fails or takes over 10 s counts as 10 s and as a failure.
Then the flood closes and the worker's memory is read again.

``--worker`` picks the gunicorn worker: ``threads`` (the server's own, as ``serve`` runs it)
or ``gevent`` (gunicorn's gevent worker with Flask-SocketIO's ``gevent`` mode over
simple-websocket, started by :mod:`benchmarks._worker_serve`; needs ``pip install gevent``).
``--pool`` sets the threaded worker's request threads (``ServerSettings.threads``),
``--stack-kb`` every thread's stack.
A benchmark, not a timed test: it prints figures (docs/performance.md, "Idle websockets").
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

import socketio

from benchmarks._idle_flood import IdleFlood, worker_only_sections
from benchmarks._output import print_result
from benchmarks._service_process import ServiceProcess, get_ms, write_config
from benchmarks.slow_clients import prepare_store

READ_TIMEOUT_S = 10.0


def worker_figures(service: ServiceProcess) -> dict[str, float]:
    """The serving worker's resident memory (MiB), threads and open files."""
    pid = service.service_pids()[-1]
    status = {line.split(":")[0]: line.split()[1:]
              for line in Path(f"/proc/{pid}/status").read_text().splitlines()}
    return {"rss_mb": round(int(status["VmRSS"][0]) / 1024, 1),
            "threads": int(status["Threads"][0]),
            "open_fds": len(list(Path(f"/proc/{pid}/fd").iterdir()))}


def timed_reads(url: str, samples: int, budget_s: float) -> tuple[list[float], int]:
    """Milliseconds of up to ``samples`` GETs of ``url`` within ``budget_s``; failures."""
    took, failures = [], 0
    deadline = time.monotonic() + budget_s
    for _ in range(samples):
        if time.monotonic() > deadline:
            break
        try:
            took.append(get_ms(url, timeout=READ_TIMEOUT_S))
        except Exception:
            failures += 1
            took.append(READ_TIMEOUT_S * 1000)
        time.sleep(0.01)
    return took, failures


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def kiosk_figures(base_url: str, samples: int) -> dict[str, float]:
    screen, screen_failed = timed_reads(f"{base_url}/api/v1/lanes/1-2/screen", samples, 60)
    health, health_failed = timed_reads(f"{base_url}/healthz", 20, 30)
    kiosk = socketio.Client()
    started = time.perf_counter()
    try:
        kiosk.connect(base_url, transports=["websocket"], wait_timeout=READ_TIMEOUT_S)
        connect_ms = round((time.perf_counter() - started) * 1000, 1)
    except Exception:
        connect_ms = -1.0
    finally:
        kiosk.disconnect()
    return {"screen_reads": len(screen), "screen_p50_ms": round(statistics.median(screen), 1),
            "screen_p99_ms": quantile(screen, 0.99), "screen_max_ms": round(max(screen), 1),
            "screen_failed": screen_failed, "healthz_p50_ms": round(statistics.median(health), 1),
            "healthz_max_ms": round(max(health), 1), "healthz_failed": health_failed,
            "kiosk_connect_ms": connect_ms}


def run(counts: list[int], samples: int, worker: str, pool: int | None,
        stack_kb: int | None = None) -> dict[str, object]:
    result: dict[str, object] = {"worker": worker, "pool": pool or "default",
                                 "stack_kb": stack_kb or "default", "counts": counts}
    with tempfile.TemporaryDirectory(prefix="alley-idle-") as folder:
        workdir = Path(folder)
        config = write_config(workdir / "alley.toml", lanes=2,
                              database_url=prepare_store(workdir),
                              sections=worker_only_sections())
        env = {"ALLEY_POKER_BENCH_WORKER": worker, "ALLEY_POKER_BENCH_POOL": str(pool or ""),
               "ALLEY_POKER_BENCH_STACK_KB": str(stack_kb or "")}
        with ServiceProcess(config, workdir, module="benchmarks._worker_serve",
                            env=env) as service:
            service.wait_serving(timeout=60)
            host, port = service.base_url.rsplit("//", 1)[1].rsplit(":", 1)
            kiosk_figures(service.base_url, 10)  # warm
            for key, value in {**worker_figures(service),
                               **kiosk_figures(service.base_url, samples)}.items():
                result[f"0.{key}"] = value
            flood = IdleFlood(host, int(port))
            try:
                for count in counts:
                    started = time.monotonic()
                    joined = flood.grow_to(count, timeout_s=max(60, count / 20))
                    result[f"{count}.joined"] = joined
                    result[f"{count}.handshake_failed"] = flood.failed
                    result[f"{count}.grow_s"] = round(time.monotonic() - started, 1)
                    time.sleep(2.0)
                    for key, value in {**worker_figures(service),
                                       **kiosk_figures(service.base_url, samples)}.items():
                        result[f"{count}.{key}"] = value
                    result[f"{count}.closed_by_server"] = flood.closed_by_server
            finally:
                flood.close()
            time.sleep(5.0)  # the server notices the closed sockets
            for key, value in worker_figures(service).items():
                result[f"after.{key}"] = value
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 100 sockets")
    parser.add_argument("--counts", default="1000,2000,4000")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--worker", choices=("threads", "gevent"), default="threads")
    parser.add_argument("--pool", type=int, default=None,
                        help="the threaded worker's request threads (default: the server's own)")
    parser.add_argument("--stack-kb", type=int, default=None,
                        help="every thread's stack (default: the C library's, 8 MB)")
    args = parser.parse_args(argv)
    if args.worker == "gevent" and importlib.util.find_spec("gevent") is None:
        parser.error("--worker gevent needs gevent in this environment (pip install gevent; "
                     "not a dependency of the project: docs/performance.md)")
    counts = [int(count) for count in args.counts.split(",")]
    if args.quick:
        counts, args.samples = [100], 20
    print_result(run(counts, args.samples, args.worker, args.pool, args.stack_kb),
                 as_json=args.json)


if __name__ == "__main__":
    main()
