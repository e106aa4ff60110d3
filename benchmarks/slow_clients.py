"""Slow and idle clients (slowloris) against the production server: does a kiosk still get
its answers in time?

``python -m benchmarks.slow_clients --json [--quick] [--slow 300] [--samples 40]``

``alley-poker serve`` runs as a subprocess over a SQLite store (2 lanes, one started match).
A kiosk — a python-socketio client on the websocket transport — measures, in each phase:

- ``join_ms``: the round trip of ``join {"lanes": "1-2"}`` on its open socket (what a kiosk
  does after every reconnect; answered with the whole state);
- ``connect_ms``: a new Socket.IO connection (a kiosk after a network blip);
- ``http_ms``: ``GET /api/v1/matches`` on a new TCP connection (the tablet's reads).

Phases: ``baseline`` (nothing else); ``idle`` (``--slow`` connections that connect and send
nothing); ``slowloris`` (``--slow`` connections that send a request line, then one header
byte every ``--trickle-s`` seconds, never finishing).  For each phase it also reports the
service's threads and open file descriptors one second after the slow clients connected,
and how many of the slow connections the server has closed ``--hold-s`` seconds after the
measurements.  A benchmark, not a
timed test: it prints figures (``docs/performance.md``, "Slow and idle clients").
"""

from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import socketio

from benchmarks._output import print_result
from benchmarks._service_process import ServiceProcess, get_ms, write_config


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _figures(name: str, values: list[float]) -> dict[str, float]:
    if not values:
        return {f"{name}_p50": -1.0, f"{name}_p95": -1.0, f"{name}_max": -1.0}
    return {f"{name}_p50": round(statistics.median(values), 1),
            f"{name}_p95": round(_percentile(values, 0.95), 1),
            f"{name}_max": round(max(values), 1)}


def prepare_store(workdir: Path) -> str:
    """A SQLite store with a started match on lanes 1-2."""
    from alley_poker.centre import open_ledger_service
    from alley_poker.ledger import commands as c

    url = f"sqlite:///{workdir / 'ledger.sqlite3'}"
    service = open_ledger_service(url)
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor="commissioner:bench")
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.ConsentToAnte(bowler, actor="commissioner:bench"))
    service.execute("m1", c.StartMatch(actor="commissioner:bench"))
    return url


class SlowClients:
    """``count`` connections that either say nothing or trickle a header for ever."""

    def __init__(self, host: str, port: int, count: int, *, trickle_s: float | None):
        self.sockets: list[socket.socket] = []
        self.refused = 0
        self._stop = threading.Event()
        for _ in range(count):
            try:
                conn = socket.create_connection((host, port), timeout=5)
            except OSError:
                self.refused += 1
                continue
            self.sockets.append(conn)
        if trickle_s is not None:
            for conn in self.sockets:
                self._send(conn, b"GET /api/v1/matches HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            threading.Thread(target=self._trickle, args=(trickle_s,), daemon=True).start()

    @staticmethod
    def _send(conn: socket.socket, data: bytes) -> bool:
        try:
            conn.sendall(data)
            return True
        except OSError:
            return False

    def _trickle(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            for conn in self.sockets:
                self._send(conn, b"a")

    def closed_by_server(self) -> int:
        """How many of the connections the server has closed (a read sees EOF or a reset,
        after whatever the server said first, e.g. ``408 Request Timeout``)."""
        closed = 0
        for conn in self.sockets:
            conn.setblocking(False)
            try:
                while data := conn.recv(1 << 16):
                    del data  # what it said before closing
                closed += 1
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        return closed

    def close(self) -> None:
        self._stop.set()
        for conn in self.sockets:
            conn.close()


def proc_figures(service: ServiceProcess) -> dict[str, int]:
    """Threads and open files of the process that serves: gunicorn's worker (the last of
    :meth:`ServiceProcess.service_pids`), or Werkzeug's server itself."""
    pid = service.service_pids()[-1]
    status = Path(f"/proc/{pid}/status").read_text()
    threads = next(int(line.split()[1]) for line in status.splitlines()
                   if line.startswith("Threads:"))
    return {"threads": threads, "open_fds": len(list(Path(f"/proc/{pid}/fd").iterdir()))}


def measure(base_url: str, samples: int) -> dict[str, float]:
    kiosk = socketio.Client()
    join_ms: list[float] = []
    connect_ms: list[float] = []
    http_ms: list[float] = []
    failures = 0
    try:
        kiosk.connect(base_url, transports=["websocket"], wait_timeout=10)
        for _ in range(samples):
            started = time.perf_counter()
            try:
                kiosk.call("join", {"lanes": "1-2"}, timeout=10)
                join_ms.append((time.perf_counter() - started) * 1000)
            except Exception:
                failures += 1
    except Exception:
        failures += samples
    finally:
        kiosk.disconnect()
    for _ in range(max(3, samples // 4)):
        fresh = socketio.Client()
        started = time.perf_counter()
        try:
            fresh.connect(base_url, transports=["websocket"], wait_timeout=10)
            connect_ms.append((time.perf_counter() - started) * 1000)
        except Exception:
            failures += 1
        finally:
            fresh.disconnect()
    for _ in range(samples):
        try:
            http_ms.append(get_ms(f"{base_url}/api/v1/matches", timeout=10))
        except Exception:
            failures += 1
    return {**_figures("join_ms", join_ms), **_figures("connect_ms", connect_ms),
            **_figures("http_ms", http_ms), "failures": failures}


def run(slow: int, samples: int, trickle_s: float, hold_s: float) -> dict[str, object]:
    result: dict[str, object] = {"slow_connections": slow, "samples": samples}
    with tempfile.TemporaryDirectory(prefix="alley-slow-") as folder:
        workdir = Path(folder)
        config = write_config(workdir / "alley.toml", lanes=2,
                              database_url=prepare_store(workdir))
        with ServiceProcess(config, workdir) as service:
            service.wait_serving()
            assert service.process is not None
            host, port = service.base_url.rsplit("//", 1)[1].rsplit(":", 1)
            for phase, trickle in (("baseline", None), ("idle", None),
                                   ("slowloris", trickle_s)):
                clients = SlowClients(host, int(port), 0 if phase == "baseline" else slow,
                                      trickle_s=trickle)
                try:
                    time.sleep(1.0)
                    held = proc_figures(service)  # while every slow client is on
                    figures = {**measure(service.base_url, samples),
                               "threads": held["threads"], "open_fds": held["open_fds"],
                               "refused_at_connect": clients.refused}
                    time.sleep(hold_s)
                    figures["closed_by_server"] = clients.closed_by_server()
                    figures["threads_after_hold"] = proc_figures(service)["threads"]
                finally:
                    clients.close()
                for key, value in figures.items():
                    result[f"{phase}.{key}"] = value
                time.sleep(1.0)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    parser.add_argument("--slow", type=int, default=300, help="slow connections per phase")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--trickle-s", type=float, default=2.0)
    parser.add_argument("--hold-s", type=float, default=12.0,
                        help="how long after measuring to count the connections closed")
    args = parser.parse_args(argv)
    if args.quick:
        args.slow, args.samples, args.hold_s = 30, 8, 11.0
    print_result(run(args.slow, args.samples, args.trickle_s, args.hold_s), as_json=args.json)


if __name__ == "__main__":
    main()
