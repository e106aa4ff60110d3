"""What Socket.IO's heartbeat costs the server: idle sockets held, pinged at two settings.

``python -m benchmarks.idle_pings --json [--sockets 300] [--hold-s 60]``

A hung server shows on a screen only when the ping goes silent: after the ping interval plus
its timeout.  The library's 25 s + 20 s left a kiosk "● Live" on a hung server for 41 s
(issue 38); the centre's 4 s + 4 s show it within 8 s, at the cost of a ping and a pong per
socket every 4 s instead of every 25 s.  This measures that cost: ``alley-poker serve`` runs
as a subprocess (SQLite, 2 lanes) once per setting, ``--sockets`` python-socketio clients
(``AsyncClient``s on one asyncio loop, websocket transport, each joined to lanes 1-2 as a
kiosk) connect and then idle for ``--hold-s`` seconds, and the server's CPU over the hold is
read from ``/proc`` (arbiter and worker).  A benchmark, not a timed test: it prints figures
(docs/performance.md, "Socket.IO's heartbeat").
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import socketio

from benchmarks._output import print_result
from benchmarks._service_process import ONE_MACHINE_FLEET, ServiceProcess, write_config

#: (interval, timeout) in seconds: the library's defaults, and the centre's (web/__init__.py).
SETTINGS = {"library_25_20": (25, 20), "centre_4_4": (4, 4)}


async def _hold(base_url: str, sockets: int, hold_s: float, served: ServiceProcess) -> dict:
    async def connect() -> socketio.AsyncClient:
        client = socketio.AsyncClient(reconnection=False)
        await client.connect(base_url, transports=["websocket"], wait_timeout=60)
        await client.call("join", {"lanes": "1-2"}, timeout=60)
        return client

    clients = []
    for start in range(0, sockets, 50):  # in batches: a connect storm is not what is measured
        clients += await asyncio.gather(*(connect() for _ in range(min(50, sockets - start))))
    await asyncio.sleep(2.0)
    cpu, wall = served.cpu_seconds(), time.monotonic()
    await asyncio.sleep(hold_s)
    busy = (served.cpu_seconds() - cpu) / (time.monotonic() - wall)
    still = sum(client.connected for client in clients)
    await asyncio.gather(*(client.disconnect() for client in clients), return_exceptions=True)
    return {"server_cpu_percent": round(100 * busy, 2), "still_connected": still}


def run(sockets: int, hold_s: float) -> dict:
    result: dict[str, object] = {"sockets": sockets, "hold_s": hold_s}
    with tempfile.TemporaryDirectory(prefix="alley-pings-") as work:
        for name, (interval, timeout) in SETTINGS.items():
            directory = Path(work) / name
            directory.mkdir()
            config = write_config(directory / "alley.toml", lanes=2,
                                  database_url=f"sqlite:///{directory / 'alley.sqlite3'}",
                                  sections={"sockets": ONE_MACHINE_FLEET})
            env = {"ALLEY_POKER_SOCKETIO_PING_INTERVAL": str(interval),
                   "ALLEY_POKER_SOCKETIO_PING_TIMEOUT": str(timeout)}
            with ServiceProcess(config, directory, env=env) as served:
                served.wait_serving(timeout=60)
                figures = asyncio.run(_hold(served.base_url, sockets, hold_s, served))
            result[f"{name}_server_cpu_percent"] = figures["server_cpu_percent"]
            result[f"{name}_still_connected"] = figures["still_connected"]
            result[f"{name}_pings_per_s"] = round(sockets / interval, 1)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=300)
    parser.add_argument("--hold-s", type=float, default=60.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    print_result(run(args.sockets, args.hold_s), as_json=args.json)


if __name__ == "__main__":
    main()
