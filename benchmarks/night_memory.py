"""A whole night's memory: where ``alley-poker serve`` spends its RSS over three games.

``python -m benchmarks.night_memory --json [--odds] [--trace FRAMES] [latency options]``

Runs :mod:`benchmarks.latency`'s night unchanged (100 lanes, 6 bowlers a lane, 200 balls/s,
200 kiosks; ``--duration 160`` by default here: every match bowled to its end) and watches
the service process from outside while it runs:

- its peak resident set (``VmHWM``), its RSS every ``--sample-s`` seconds, and its threads;
- at the end of the night, before it stops, ``/proc/<pid>/smaps``: anonymous memory, and
  what the live threads' stacks hold (touched pages only), by thread name;
- every child process (the odds pool's ``spawn`` workers, multiprocessing's resource
  tracker) with its own peak, reported separately.

``--odds`` turns the live win odds on in the centre file the night writes
(``[odds] enabled``, ``--odds-processes``, ``--odds-iterations``).  ``--trace N`` runs the
service under tracemalloc (``PYTHONTRACEMALLOC=N``) and reads the summary it writes as it
stops (:mod:`alley_poker.serving.memory_report`), summed up here: totals by package, the top
lines, and the project's lines that asked for the memory.  A traced
night's RSS includes the tracing's own bookkeeping, so quote RSS from an untraced night.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from alley_poker.serving.memory_report import summarise
from benchmarks import _deployments as deployments
from benchmarks import latency
from benchmarks._output import print_result
from benchmarks._service_process import ServiceProcess, children

MIB = 1024 * 1024


def proc_status(pid: int) -> dict[str, int]:
    """The ``kB`` and count fields of ``/proc/<pid>/status`` (VmRSS, VmHWM, Threads...)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            fields[name] = int(parts[0])
    return fields


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:160]


def thread_stack_pointers(pid: int) -> dict[int, int]:
    """Each thread's stack pointer, by native thread id (from ``/proc/<pid>/task/*/syscall``,
    which shows it while the thread waits in a system call, as idle threads do)."""
    pointers = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "syscall").read_text().split()
        except OSError:
            continue
        if len(fields) >= 3 and fields[-2].startswith("0x"):
            pointers[int(task.name)] = int(fields[-2], 16)
    return pointers


def stacks_by_thread(pointers: dict[int, int], owners: dict[tuple[int, int], int],
                     names: dict[int, str]) -> dict[str, list[int]]:
    """[threads, resident KiB, largest] of the stacks, by thread name (less its number)."""
    grouped: dict[str, list[int]] = {}
    for tid, pointer in pointers.items():
        for (start, end), kb in owners.items():
            if start <= pointer < end:
                name = names.get(tid, "?").split(" (")[0].rstrip("0123456789-")
                grouped.setdefault(name, []).append(kb)
    return {name: [len(kbs), sum(kbs), max(kbs)]
            for name, kbs in sorted(grouped.items(), key=lambda item: -sum(item[1]))}


def open_databases(pid: int) -> int:
    """How many SQLite database files the process has open (one per pooled connection)."""
    count = 0
    for link in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += os.readlink(link).endswith(".sqlite3")
        except OSError:
            continue
    return count


def smaps_breakdown(pid: int, stack_kb: int,
                    stack_owners: dict[tuple[int, int], int] | None = None) -> dict:
    """Resident memory by kind from ``/proc/<pid>/smaps``, in MiB, and the largest parts."""
    rss = {"anonymous": 0, "file_backed": 0, "thread_stacks": 0}
    stacks: list[int] = []
    files: dict[str, int] = {}
    size, name, anonymous_mapping, span = 0, "", False, (0, 0)
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if not head:
            continue
        if "-" in head[0] and not head[0].endswith(":"):
            name = " ".join(head[5:])
            anonymous_mapping = not name or name.startswith("[")
            start, end = head[0].split("-")
            span = (int(start, 16), int(end, 16))
            size = 0
        elif head[0] == "Size:":
            size = int(head[1])
        elif head[0] == "Rss:":
            kb = int(head[1])
            # A thread's stack is an anonymous mapping of exactly the stack size (its guard
            # page is a separate mapping), but so may be other anonymous memory (adjacent
            # mappings merge): the caller keeps only those a live thread's stack pointer is in.
            if anonymous_mapping and size == stack_kb:
                rss["thread_stacks"] += kb
                stacks.append(kb)
                if stack_owners is not None:
                    stack_owners[span] = kb
            elif anonymous_mapping:
                rss["anonymous"] += kb
            else:
                rss["file_backed"] += kb
                files[name] = files.get(name, 0) + kb
    result: dict = {kind: round(kb / 1024, 1) for kind, kb in rss.items()}
    result["stack_sized_mappings"] = len(stacks)
    result["largest_files_mb"] = {
        Path(file).name: round(kb / 1024, 1)
        for file, kb in sorted(files.items(), key=lambda item: -item[1])[:6]}
    return result


class WatchedService(ServiceProcess):
    """The night's ``serve``, with a thread reading its memory (and its children's)."""

    watched: WatchedService | None = None
    sample_s = 5.0
    stack_kb = 8192
    stop_timeout_s = 10.0
    start_timeout_s = 60.0
    #: tracemalloc's frames for the service alone (0: untraced); the kiosk clients and the
    #: benchmark itself run untraced, so the night is not slowed where nothing is measured.
    trace_frames = 0

    def start(self) -> WatchedService:
        if self.trace_frames:
            self.extra_env["PYTHONTRACEMALLOC"] = str(self.trace_frames)
        super().start()
        WatchedService.watched = self
        self.timeline: list[tuple[float, float, int]] = []
        self.children: dict[int, dict] = {}
        self.at_end: dict = {}
        self.stack_owners: dict[tuple[int, int], int] = {}
        self.stack_pointers: dict[int, int] = {}
        self._done = threading.Event()
        threading.Thread(target=self._watch, name="rss-watch", daemon=True).start()
        return self

    def wait_serving(self, timeout: float = 30.0) -> float:
        return super().wait_serving(max(timeout, self.start_timeout_s))

    def _read(self) -> None:
        assert self.process is not None
        pid = self.process.pid
        status = proc_status(pid)
        self.timeline.append((round(time.monotonic() - self.started_at, 1),
                              round(status.get("VmRSS", 0) / 1024, 1), status.get("Threads", 0)))
        # On gunicorn the odds pool is the worker's child: look one generation further.
        below = {child for parent in self.service_pids() for child in children(parent)}
        for child in sorted(below - {pid}):
            try:
                child_status = proc_status(child)
            except OSError:
                continue
            seen = self.children.setdefault(child, {"command": command_line(child)})
            seen["peak_rss_mb"] = round(child_status.get("VmHWM", 0) / 1024, 1)
            seen["rss_mb"] = round(child_status.get("VmRSS", 0) / 1024, 1)

    def _watch(self) -> None:
        while not self._done.wait(self.sample_s):
            try:
                self._read()
            except (OSError, ValueError):
                return

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is not None and self.process.poll() is None and not self._done.is_set():
            self._done.set()
            self._read()
            status = proc_status(self.process.pid)
            self.at_end = {"peak_rss_mb": round(status["VmHWM"] / 1024, 1),
                           "rss_mb": round(status["VmRSS"] / 1024, 1),
                           "threads": status.get("Threads", 0),
                           "sqlite_connections": open_databases(self.process.pid),
                           "smaps_mb": smaps_breakdown(self.process.pid, self.stack_kb,
                                                       self.stack_owners)}
            self.stack_pointers = thread_stack_pointers(self.process.pid)
            smaps = self.at_end["smaps_mb"]
            live_kb = sum(kb for (start, end), kb in self.stack_owners.items()
                          if any(start <= sp < end for sp in self.stack_pointers.values()))
            smaps["anonymous"] = round(smaps["anonymous"] + smaps["thread_stacks"]
                                       - live_kb / 1024, 1)
            smaps["thread_stacks"] = round(live_kb / 1024, 1)
        super().stop(max(timeout, self.stop_timeout_s))


def run(args: argparse.Namespace, night: argparse.Namespace) -> dict:
    WatchedService.sample_s = args.sample_s
    WatchedService.stack_kb = args.stack_kb
    deployments.ServiceProcess = WatchedService
    # The night's own --odds: the centre runs with [odds] on, and the odds' figures come too.
    night.odds = args.odds
    night.odds_processes, night.odds_iterations = args.odds_processes, args.odds_iterations
    # The service writes its threads' names there as it stops (and, traced, its snapshot).
    report_path = Path(tempfile.mkdtemp(prefix="alley-memory-")) / "memory.snapshot"
    os.environ["ALLEY_POKER_MEMORY_SNAPSHOT"] = str(report_path)
    if args.trace:
        WatchedService.trace_frames = args.trace
        # A traced start-up (rebuilding every match) and its dump take minutes, not seconds.
        WatchedService.stop_timeout_s = WatchedService.start_timeout_s = 300.0
    began = time.monotonic()
    result = latency.run(night)
    service = WatchedService.watched
    assert service is not None
    every = max(1, round(30 / args.sample_s))
    report = {
        "night": {key: result[key] for key in (
            "lanes", "clients", "balls_per_s", "duration_s", "balls_measured", "lost",
            "p50_ms", "p99_ms", "max_ms", "service_cpu_pct")},
        "odds": ({"processes": args.odds_processes,
                  "iterations": args.odds_iterations or "default",
                  **{key: value for key, value in result.items() if key.startswith("odds_")}}
                 if args.odds else None),
        "traced_frames": args.trace or None,
        "serve_peak_rss_mb": service.at_end.get("peak_rss_mb", result["peak_rss_mb"]),
        "serve_at_end": service.at_end,
        "serve_rss_every_30s": [[t, mb, threads] for t, mb, threads in service.timeline[::every]],
        "children": sorted(service.children.values(), key=lambda child: child["command"]),
        "wall_s": round(time.monotonic() - began, 1),
    }
    threads_file = Path(f"{report_path}.threads")
    if threads_file.exists():
        names = dict(line.split(" ", 1) for line in
                     threads_file.read_text(encoding="utf-8").splitlines())
        report["stacks_by_thread_kb"] = stacks_by_thread(
            service.stack_pointers, service.stack_owners,
            {int(tid): name for tid, name in names.items()})
    if args.trace:
        if report_path.exists():
            memory = summarise(tracemalloc.Snapshot.load(str(report_path)), top=args.top)
            memory["packages_mb"] = dict(list(memory["packages_mb"].items())[:args.top])
            report["tracemalloc"] = memory
        else:
            report["tracemalloc"] = "the service wrote no snapshot (stopped too soon?)"
    shutil.rmtree(report_path.parent, ignore_errors=True)
    return report


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, argparse.Namespace]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.night_memory",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--odds", action="store_true", help="live win odds on")
    parser.add_argument("--odds-processes", type=int, default=1)
    parser.add_argument("--odds-iterations", type=int,
                        help="[odds] iterations (the config's default)")
    parser.add_argument("--trace", type=int, metavar="FRAMES", default=0,
                        help="run the service under tracemalloc keeping FRAMES frames")
    parser.add_argument("--top", type=int, default=20, help="lines of each ranking shown")
    parser.add_argument("--sample-s", type=float, default=5.0)
    parser.add_argument("--stack-kb", type=int, default=8192,
                        help="the threads' stack size, to tell their mappings apart")
    args, rest = parser.parse_known_args(argv)
    if "--duration" not in rest and "--quick" not in rest:
        rest += ["--duration", "160"]
    if "--server" not in rest:
        # The walk reads one process's threads, mappings and tracemalloc: the centre must
        # live in the process it starts (on gunicorn it lives in the forked worker).
        rest += ["--server", "werkzeug"]
    night = latency.parse_args(rest)
    args.json = night.json
    return args, night


def main(argv: list[str] | None = None) -> None:
    args, night = parse_args(argv)
    print_result(run(args, night), as_json=args.json)


if __name__ == "__main__":
    sys.exit(main())
