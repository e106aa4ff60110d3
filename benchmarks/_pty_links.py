"""Serial cables for the benchmarks: ``socat`` pty pairs, as in the tests' ``pty_pair`` fixture.

The service opens the reader end with pyserial like any serial port (``/dev/ttyUSB0``); the
benchmark's single writer thread writes the scorer's lines into the other end with plain
``os.write``, so no per-cable thread is needed on the load side.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path


class PtyCable:
    """One socat pty pair: the service reads ``reader_path``; :meth:`write` feeds it."""

    def __init__(self, directory: Path, name: str):
        if shutil.which("socat") is None:
            raise RuntimeError("socat is not installed (scripts/install-system-deps installs it)")
        self.writer_path = str(directory / f"{name}-scorer")
        self.reader_path = str(directory / f"{name}-alley")
        self.process = subprocess.Popen(
            ["socat", f"pty,raw,echo=0,link={self.writer_path}",
             f"pty,raw,echo=0,link={self.reader_path}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._fd: int | None = None

    def wait_ready(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while not (os.path.exists(self.writer_path) and os.path.exists(self.reader_path)):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"socat did not create the pty pair {self.reader_path}")
            time.sleep(0.005)
        self._fd = os.open(self.writer_path, os.O_WRONLY | os.O_NOCTTY)

    def write(self, line: bytes) -> None:
        """Write a whole line (returns once its last byte is in the pty)."""
        assert self._fd is not None
        view = memoryview(line)
        while view:
            view = view[os.write(self._fd, view):]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
