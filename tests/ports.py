"""Loopback ports for the servers the tests start, never one port to two of them at once.

A port read from ``bind(("127.0.0.1", 0))`` and closed again is free only for that moment:
under pytest-xdist the other workers' probes, and every outgoing connection on the machine
(to PostgreSQL, Redis, a test's own server), draw from the same ephemeral range and can take
it before the server binds it.  So each test process claims a block of ports of its own
*below* the ephemeral range, by holding a lock file for as long as it runs (two workers, or
two runs of the suite on one machine, never hold the same block), and hands the block's ports
out in turn, passing over any that something else is bound to.  With no block left it falls
back to asking the system for a free port.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import socket
import tempfile
import threading
from pathlib import Path

FIRST_PORT = 20_000
BLOCK_SIZE = 400
LOCK_DIRECTORY = Path(tempfile.gettempdir()) / "alley-poker-test-ports"


def ephemeral_low(default: int = 32_768) -> int:
    """The first port of the system's ephemeral range (Linux; ``default`` elsewhere)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


class PortBlock:
    """The ports this process may hand out: ``range`` of its claimed block, or None."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claimed: int | None = None
        self._handle = None  # the open lock file: the claim lasts while the process does
        self._next = None

    def _claim(self) -> range | None:
        LOCK_DIRECTORY.mkdir(exist_ok=True)
        blocks = (ephemeral_low() - FIRST_PORT) // BLOCK_SIZE
        for index in range(blocks):
            handle = open(LOCK_DIRECTORY / f"block-{index}.lock", "a")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            self._handle = handle
            start = FIRST_PORT + index * BLOCK_SIZE
            return range(start, start + BLOCK_SIZE)
        return None

    def next_port(self) -> int:
        with self._lock:
            if self._claimed != os.getpid():  # a forked child claims a block of its own
                self._claimed = os.getpid()
                block = self._claim()
                self._next = None if block is None else itertools.cycle(block)
            if self._next is not None:
                for _ in range(BLOCK_SIZE):
                    port = next(self._next)
                    if _bindable(port):
                        return port
            return _any_free_port()


def _bindable(port: int) -> bool:
    """Whether nothing holds ``port`` on the loopback (listening, connected or closing)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _any_free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


_BLOCK = PortBlock()


def free_port() -> int:
    """A loopback port no other server of the suite has been given, free right now."""
    return _BLOCK.next_port()
