"""Serving, not answering: the worker process hands memory back to the system after a burst of
arriving requests.

glibc's allocator keeps the pages a process freed in its heap for the next allocation: after a
burst of connections each buffering tens of KB of headers, the worker's resident memory stays at
its peak (issue 38's probe: 207 → 588 MB, 416 MB left after the connections closed).
``malloc_trim(0)`` returns every free page of every arena to the system (glibc madvises them
away); it walks the heap, a few milliseconds, so it runs once a burst is over, not on every
close.  On a C library without it (musl, macOS) nothing is trimmed.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
from collections.abc import Callable

#: A burst worth trimming after: this many bytes buffered at once by arriving requests.
BURST_BYTES = 4 * 1024 * 1024


def _load_malloc_trim() -> Callable[[int], int] | None:
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
        trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
        return trim
    return None


_malloc_trim = _load_malloc_trim()


def return_free_memory() -> bool:
    """Give the allocator's free pages back to the system; True if the C library can."""
    if _malloc_trim is None:
        return False
    _malloc_trim(0)
    return True


class BurstMemory:
    """Trims once the bytes buffered by arriving requests fell to a quarter of a burst's peak.

    :meth:`note` is called by the worker's loop a few times a second with what its arriving
    requests hold now and what those that left since the last call held (a head refused at
    the ceiling comes and goes between two calls: its bytes count all the same)."""

    def __init__(self, burst_bytes: int = BURST_BYTES,
                 trim: Callable[[], object] = return_free_memory) -> None:
        self.burst_bytes = burst_bytes
        self._trim = trim
        self.peak = 0
        self.trims = 0

    def note(self, buffered: int, released: int = 0) -> None:
        self.peak = max(self.peak, buffered + released)
        if self.peak >= self.burst_bytes and buffered <= self.peak // 4:
            self._trim()
            self.trims += 1
            self.peak = buffered
