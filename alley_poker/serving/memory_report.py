"""Serving, not answering: where a served process's memory went, a tracemalloc summary written
as the process stops.

Off unless asked for.  Start ``alley-poker serve`` (or ``web``) with CPython's own
``PYTHONTRACEMALLOC=N`` (trace every allocation from the first import, keeping ``N`` frames)
and ``ALLEY_POKER_MEMORY_SNAPSHOT=FILE``; when the process is told to stop, before anything
is released, it dumps a tracemalloc snapshot of what is still allocated to ``FILE`` (and,
traced or not, its threads' names by native id to ``FILE.threads``).
:func:`summarise` reads it as totals by package, the largest allocating lines, and (with
``N`` > 1) the lines of this project that asked for them.
``python -m benchmarks.night_memory --trace N`` runs a whole night this way.  Tracing costs
memory and time of its own, so a traced run's RSS is not the figure to quote.

>>> package_of("/x/.venv/lib/python3.11/site-packages/sqlalchemy/sql/base.py")
'sqlalchemy'
>>> package_of("/work/alley_poker/ledger/state.py")
'alley_poker.ledger'
>>> package_of("/usr/lib/python3.11/json/decoder.py")
'stdlib json'
>>> package_of("<frozen importlib._bootstrap_external>")
'imported code'
"""

from __future__ import annotations

import os
import re
import threading
import tracemalloc
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

SNAPSHOT_ENV = "ALLEY_POKER_MEMORY_SNAPSHOT"
#: Lines listed in each ranking of the summary.
TOP = 60

_SITE = re.compile(r"/site-packages/([^/]+)")
_PROJECT = re.compile(r"/(alley_poker|drivers|kiosk)/(?:([a-z_]+)/)?")
_STDLIB = re.compile(r"/python3\.\d+/([^/]+?)(?:\.py)?(?:/|$)")


def package_of(filename: str) -> str:
    """The package a traced allocation is charged to, from the file that made it."""
    if filename.startswith("<frozen importlib"):
        # Loading a module's compiled code and running its body: every imported module.
        return "imported code"
    if site := _SITE.search(filename):
        return site.group(1).removesuffix(".py")
    if project := _PROJECT.search(filename):
        top, sub = project.groups()
        return f"{top}.{sub}" if sub else top
    if stdlib := _STDLIB.search(filename):
        return f"stdlib {stdlib.group(1)}"
    return filename


def _project_frame(traceback: tracemalloc.Traceback) -> str | None:
    """The innermost frame in this project's code: who asked for the memory."""
    for frame in traceback:  # most recent call first
        if "/alley_poker/" in frame.filename or "/drivers/" in frame.filename:
            return f"{_short(frame.filename)}:{frame.lineno}"
    return None


def _short(filename: str) -> str:
    for marker in ("/site-packages/", "/alley_poker/", "/drivers/", "/python3.11/"):
        if marker in filename:
            head = "" if marker == "/site-packages/" else marker.strip("/").split("/")[-1] + "/"
            return head + filename.split(marker, 1)[1]
    return filename


def summarise(snapshot: tracemalloc.Snapshot, *, top: int = TOP) -> dict:
    """Totals by package, the largest lines, and the project lines that asked for memory."""
    packages: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    line_blocks: Counter[str] = Counter()
    callers: Counter[str] = Counter()
    for trace in snapshot.traces:
        frame = trace.traceback[0]
        packages[package_of(frame.filename)] += trace.size
        where = f"{_short(frame.filename)}:{frame.lineno}"
        lines[where] += trace.size
        line_blocks[where] += 1
        if len(trace.traceback) > 1:
            callers[_project_frame(trace.traceback) or "(outside the project)"] += trace.size
    mib = 1024 * 1024
    return {
        "traced_mb": round(sum(packages.values()) / mib, 1),
        "frames": snapshot.traceback_limit,
        "packages_mb": {name: round(size / mib, 2) for name, size in packages.most_common()},
        "lines": [{"where": where, "mb": round(size / mib, 2), "blocks": line_blocks[where]}
                  for where, size in lines.most_common(top)],
        "project_callers_mb": {where: round(size / mib, 2)
                               for where, size in callers.most_common(top)},
    }


def write_memory_snapshot(env: Mapping[str, str] | None = None) -> Path | None:
    """If asked for (and tracing), dump what is allocated now for :func:`summarise`; its path.

    The raw snapshot, not the summary: summing up a night's millions of blocks takes minutes
    in a traced process, which must stop in seconds."""
    target = (os.environ if env is None else env).get(SNAPSHOT_ENV, "").strip()
    if not target:
        return None
    # Which thread is which, for telling the threads' stacks apart in /proc/<pid>/smaps.
    Path(f"{target}.threads").write_text("".join(
        f"{thread.native_id} {thread.name}\n" for thread in threading.enumerate()),
        encoding="utf-8")
    if not tracemalloc.is_tracing():
        return None
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    snapshot.dump(target)
    return Path(target)
