"""What each test costs in CPU, for the suite's time budget (docs/performance.md "The suite").

Set ``ALLEY_POKER_TEST_CPU_LOG=<file>`` and every test appends one JSON line to it: its wall
time and the CPU (user + system) of the pytest worker and every process below it — the
servers, the subprocess commands, Chromium and its renderers — while it ran.  On two cores
a suite of four workers is bound by CPU, not by waiting, so these seconds, not the
durations (which grow with the load), say which tests to make cheaper.  Off by default:
reading ``/proc`` costs a few milliseconds a test."""

from __future__ import annotations

import json
import os
import resource
import time

from benchmarks._service_process import process_stats

_TICK = os.sysconf("SC_CLK_TCK")


def _descendants_cpu(root: int) -> float:
    """CPU seconds of the living processes below ``root``, with what their reaped children
    spent (/proc/<pid>/stat: utime, stime, cutime, cstime)."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    for pid, fields in process_stats():
        parents[pid] = int(fields[1])
        spent[pid] = sum(int(value) for value in fields[11:15]) / _TICK
    below, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
        below |= frontier
    return sum(spent[pid] for pid in below)


def cpu_now() -> float:
    """This process's CPU, its reaped children's and its living descendants'."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
            + _descendants_cpu(os.getpid()))


class CpuLog:
    """Appends ``{"test", "wall_s", "cpu_s"}`` per test to ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def measure(self, nodeid: str):
        started, cpu = time.perf_counter(), cpu_now()

        def done() -> None:
            line = json.dumps({"test": nodeid,
                               "wall_s": round(time.perf_counter() - started, 3),
                               "cpu_s": round(cpu_now() - cpu, 3)})
            with open(self.path, "a", encoding="utf-8") as log:
                log.write(line + "\n")

        return done
