"""The real service for a benchmark: ``alley-poker serve`` (or ``web`` / ``worker``) as a
subprocess.

:func:`write_config` writes the centre's ``alley.toml`` (lanes, feeds, database, odds);
:class:`ServiceProcess` starts ``python -m alley_poker.cli COMMAND`` with it, waits until it
says it is ready (and, for a server, until the JSON API answers), reads the peak resident
memory of the process and of its children (the odds pool) from ``/proc`` and stops it with
SIGTERM (SIGKILL if it hangs).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_PIN = "bench-2468"

#: What each command prints once it is ready: the URL it serves on, or its election won.
READY_MARKS = {"serve": ": serving on ", "web": " web process serving on ",
               "worker": "active for centre"}


#: ``[sockets]`` (``sections={"sockets": ...}``) for a benchmark whose kiosks all run on one
#: machine: every client comes from 127.0.0.1, which the centre's per-address ceiling (20)
#: would hold to a few kiosks.
ONE_MACHINE_FLEET = {"per_address": 20_000, "in_all": 20_000, "kept_for_known_devices": 100}


def write_config(path: Path, *, lanes: int, database_url: str | None,
                 feeds: Sequence[tuple[str, str, Sequence[int]]] = (),
                 centre_id: str = "default", odds: Mapping[str, object] | None = None,
                 sections: Mapping[str, Mapping[str, object]] | None = None) -> Path:
    """An ``alley.toml`` for ``lanes`` lanes; ``feeds`` are (name, serial URL, lanes carried);
    ``odds`` the ``[odds]`` keys (none: the odds are switched off, ``enabled = false``; the
    config's own default is on); ``sections`` more tables, by name, with their keys.  A
    ``database_url`` of None leaves the database to the environment
    (``ALLEY_POKER_DATABASE_URL``)."""
    text = ["[centre]", f'id = "{centre_id}"', 'name = "Benchmark Lanes"', f"lanes = {lanes}",
            ""]
    if database_url is not None:
        text += ["[database]", f"url = {json.dumps(database_url)}", ""]
    text += ["[backup]", "enabled = false", ""]
    text += ["[odds]", *(f"{key} = {json.dumps(value)}"
                         for key, value in (odds or {"enabled": False}).items()), ""]
    for section, keys in (sections or {}).items():
        text += [f"[{section}]", *(f"{key} = {json.dumps(value)}" for key, value in keys.items()),
                 ""]
    for name, url, carried in feeds:
        text += ["[[feeds]]", f"name = {json.dumps(name)}", f"url = {json.dumps(url)}",
                 'dialect = "apf1"', f"lanes = {list(carried)}", "heartbeat_s = 60", ""]
    path.write_text("\n".join(text), encoding="utf-8")
    return path


def get_ms(url: str, timeout: float) -> float:
    """The milliseconds a ``GET`` of ``url`` takes, its whole answer read (an ``OSError``,
    ``urllib.error.URLError`` among them, when it fails or takes over ``timeout``)."""
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        answer.read()
    return (time.perf_counter() - started) * 1000


def peak_rss_mb(pid: int) -> float:
    """Process ``pid``'s peak resident set size so far (``VmHWM``), in MiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines()
                if line.startswith("VmHWM:")) / 1024


def process_stats() -> Iterator[tuple[int, list[str]]]:
    """``(pid, fields)`` of every live process: ``/proc/<pid>/stat`` after its command's
    name (``fields[1]`` the parent, ``fields[11:15]`` its and its reaped children's CPU)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        yield int(entry.name), stat.rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    return [child for child, fields in process_stats() if int(fields[1]) == pid]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServiceProcess:
    """``alley-poker COMMAND --config CONFIG`` in a subprocess, working in ``workdir``."""

    def __init__(self, config: Path, workdir: Path, *, port: int = 0,
                 sample_stacks_to: str | None = None, command: str = "serve",
                 env: Mapping[str, str] | None = None, name: str | None = None,
                 server: str | None = None, module: str | None = None):
        self.config = config
        self.sample_stacks_to = sample_stacks_to
        self.workdir = workdir
        self.port = port
        self.command = command
        self.name = name or command
        #: ``--server`` of serve/web (gunicorn or werkzeug); None: the command's default.
        self.server = server
        #: The module run with ``python -m`` (a benchmark's launcher); None: the CLI's.
        self.module = module or "alley_poker.cli"
        self.extra_env = dict(env or {})
        self.process: subprocess.Popen[str] | None = None
        self.base_url = ""
        self.started_at = 0.0
        self._output: list[str] = []
        self._ready = threading.Event()

    def start(self) -> ServiceProcess:
        env = dict(os.environ, ALLEY_POKER_COMMISSIONER_PIN=BENCH_PIN, PYTHONUNBUFFERED="1",
                   **self.extra_env)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH"))
                                            if p)
        self.started_at = time.monotonic()
        program = (["-m", "benchmarks._sampled_serve", self.sample_stacks_to]
                   if self.sample_stacks_to else ["-m", self.module])
        arguments = [self.command, "--config", str(self.config)]
        if self.command != "worker":
            arguments += ["--port", str(self.port)]
            if self.server:
                arguments += ["--server", self.server]
        self.process = subprocess.Popen(
            [sys.executable, *program, *arguments],
            cwd=self.workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        threading.Thread(target=self._read_output, name=f"{self.name}-output",
                         daemon=True).start()
        return self

    def _read_output(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        mark = READY_MARKS[self.command]
        for line in self.process.stdout:
            self._output.append(line.rstrip("\n"))
            if not self._ready.is_set() and mark in line:
                if self.command != "worker":
                    self.base_url = line.rsplit(" ", 1)[-1].strip()
                self._ready.set()

    def wait_serving(self, timeout: float = 30.0) -> float:
        """Wait until the process is ready — a server until ``GET /api/v1/matches`` answers
        200 — and return the seconds since it started."""
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.005):
            self._check_alive(deadline)
        if self.command == "worker":
            return time.monotonic() - self.started_at
        while True:
            try:
                with urllib.request.urlopen(f"{self.base_url}/api/v1/matches", timeout=5) as r:
                    if r.status == 200:
                        return time.monotonic() - self.started_at
            except (urllib.error.URLError, ConnectionError):
                pass
            self._check_alive(deadline)
            time.sleep(0.005)

    def _check_alive(self, deadline: float) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited {self.process.returncode}:\n{self.output()}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{self.name} did not get ready in time:\n{self.output()}")

    def output(self) -> str:
        return "\n".join(self._output[-40:])

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def service_pids(self) -> list[int]:
        """The process and, on gunicorn, its worker (the one that holds the centre): every
        child but multiprocessing's (the odds pool and its resource tracker)."""
        pids = [self.pid]
        for child in children(self.pid):
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue  # gone meanwhile
            if b"multiprocessing" not in command:
                pids.append(child)
        return pids

    def cpu_seconds(self) -> float:
        """User + system CPU time so far of the process and its gunicorn worker."""
        total = 0.0
        for pid in self.service_pids():
            with contextlib.suppress(OSError):
                total += cpu_seconds(pid)
        return total

    def peak_rss_mb(self) -> float:
        """Peak resident set size so far (``VmHWM``), in MiB: the process's own plus, on
        gunicorn, its worker's (the arbiter's pages shared with the forked worker are
        counted twice: ≈ 40 MB more than one process's figure)."""
        total = 0.0
        for pid in self.service_pids():
            with contextlib.suppress(OSError, StopIteration):
                total += peak_rss_mb(pid)
        return total

    def pool_processes(self) -> list[int]:
        """Its pool processes now: children started by multiprocessing's ``spawn`` (the odds
        pool) of the process or its gunicorn worker.  multiprocessing's resource tracker,
        also a child, is not one (≈ 10 MB)."""
        found = []
        for child in (pid for parent in self.service_pids() for pid in children(parent)):
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue  # gone meanwhile
            if b"spawn_main" in command:
                found.append(child)
        return found

    def pool_peak_rss_mb(self, pids: list[int]) -> float:
        """The sum of the pool processes' peak resident set sizes, in MiB."""
        total = 0.0
        for child in pids:
            try:
                total += peak_rss_mb(child)
            except (OSError, StopIteration):
                continue  # gone meanwhile
        return total

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent has not collected it


def reap(pids: list[int], grace_s: float = 5.0) -> int:
    """Wait ``grace_s`` for processes ``pids`` (a stopped service's pool) to end; SIGKILL those
    still running and return how many there were: a pool left behind keeps a core busy."""
    deadline = time.monotonic() + grace_s
    alive = [pid for pid in pids if _running(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in alive if _running(pid)]
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(alive)
