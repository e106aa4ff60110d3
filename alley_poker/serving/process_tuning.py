"""Serving, not answering: how a long-running service process keeps the interpreter's own
pauses off the ball path.

``serve``, ``web`` and ``worker`` call :func:`tune_garbage_collector` and
:func:`tune_thread_switching` once everything is started.  Figures are from
``python -m benchmarks.latency`` (100 lanes × 6 bowlers, 200 balls/s, 200 kiosks); see
``docs/performance.md``.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable

#: How often the young generation is collected, whatever CPython's allocation count says.
YOUNG_EVERY_S = 0.1
#: Young passes per pass over the middle generation (every 2 s at the default pace).
MIDDLE_EVERY = 20
#: How often everything but what start-up froze is collected, for the rare reference cycle
#: (a pause that grows with the night's state: 66-207 ms at the benchmark's load).
FULL_EVERY_S = 1800.0


class CollectionPacer:
    """Runs the cyclic garbage collector in small slices at a steady pace, on its own thread.

    CPython starts a young-generation pass when allocations *minus deallocations* pass a
    threshold.  A served match replaces its state and public view on every ball, freeing about
    as many containers as it makes, so that count creeps up ever more slowly while the young
    generation itself keeps growing: the passes come rarely and each scans everything made
    since the last one.  Over a whole night at the benchmark's load they grew from 17 ms to
    156 ms (the largest latencies of the run, 170-176 ms).  Collecting on a clock instead
    bounds a pass to what a tenth of a second left alive (a few milliseconds): the whole
    night then ran with a largest latency of 44-46 ms.  A full collection every half hour
    frees any reference cycle that outlived the middle generation (under load none did: the
    full passes measured collected nothing); the automatic one would hardly ever run now,
    since each paced pass resets the count that triggers it.  A full pass scans every match's
    state and view, so it is the one pause left that grows with the night.
    """

    def __init__(self, *, young_every_s: float = YOUNG_EVERY_S, middle_every: int = MIDDLE_EVERY,
                 full_every_s: float = FULL_EVERY_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if young_every_s <= 0 or middle_every < 1 or full_every_s <= 0:
            raise ValueError("collection pace: intervals must be positive")
        self.young_every_s = young_every_s
        self.middle_every = middle_every
        self.full_every_s = full_every_s
        self._clock = clock
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gc-pacer", daemon=True)

    def start(self) -> CollectionPacer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        passes = 0
        full_due = self._clock() + self.full_every_s
        while not self._stopping.wait(self.young_every_s):
            passes += 1
            if self._clock() >= full_due:
                gc.collect(2)
                full_due = self._clock() + self.full_every_s
            else:
                gc.collect(1 if passes % self.middle_every == 0 else 0)


def tune_garbage_collector() -> CollectionPacer:
    """Keep the collector's pauses off the path from a ball to the kiosks; returns the
    running :class:`CollectionPacer` (stop it when the process stops).

    Everything built at start-up (the app, the web stack's modules, every match rebuilt)
    lives all night: ``gc.freeze`` keeps the collector from scanning it again and again.
    The high automatic threshold stays as a backstop for bursts between paced passes (with
    CPython's default of 700 the young generation was collected several times per ball and
    124 middle-generation passes of up to 92 ms came in 20 s).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    return CollectionPacer().start()


#: How long a thread may keep the interpreter lock while others wait for it (CPython's
#: default is 5 ms).
SWITCH_INTERVAL_S = 0.05


def tune_thread_switching() -> None:
    """Let a thread finish what it is doing before another takes the interpreter lock.

    A served centre runs hundreds of threads (per kiosk connection: its reader, writer and
    pinger; per feed: its reader), almost all waiting on sockets and serial ports.  A ball's
    work (route, decide, store, publish) is a few milliseconds of Python; with the default
    5 ms interval the threads woken by other balls' pushes take the lock from it again and
    again, and every hand-over costs more than it lets through.  Threads blocking on I/O
    still give the lock up at once, so a longer interval only stops the forced switching.
    Under the latency benchmark (100 lanes, 200 balls/s, 200 kiosks): p99 144 ms at 5 ms,
    54-77 ms at 50-250 ms.
    """
    sys.setswitchinterval(SWITCH_INTERVAL_S)
