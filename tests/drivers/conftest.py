"""Fixtures for the driver tests: real pty pairs made by socat, real TCP ports."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from drivers.base import BallRecorded, GameEnded, Heartbeat, LaneEvent, SequenceGap
from tests.conftest import skip_or_fail


class SocatPtyPair:
    """Two linked ptys, ``writer_path`` and ``reader_path``; ``unplug()`` kills socat with
    SIGKILL (the cable is gone), ``plug()`` starts it again on the same paths."""

    def __init__(self, directory: Path):
        self.writer_path = str(directory / "scorer-tty")
        self.reader_path = str(directory / "alley-tty")
        self.process: subprocess.Popen[bytes] | None = None

    def plug(self) -> None:
        for path in (self.writer_path, self.reader_path):
            if os.path.lexists(path):
                os.unlink(path)  # stale links from a socat killed with SIGKILL
        self.process = subprocess.Popen(
            ["socat", f"pty,raw,echo=0,link={self.writer_path}",
             f"pty,raw,echo=0,link={self.reader_path}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not (os.path.exists(self.writer_path) and os.path.exists(self.reader_path)):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("socat did not create the pty pair")
            time.sleep(0.01)

    def unplug(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
        self.process = None


@pytest.fixture
def pty_pair(tmp_path: Path):
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")
    pair = SocatPtyPair(tmp_path)
    pair.plug()
    yield pair
    pair.unplug()


def comparable(events: list[LaneEvent]) -> list[LaneEvent]:
    """Events as the simulator recorded them: no heartbeats or gap reports (the feed's own),
    no feed-assigned source/seq."""
    return [dataclasses.replace(event, source="", seq=None) for event in events
            if not isinstance(event, Heartbeat | SequenceGap)]


def ball_projection(events: list[LaneEvent]) -> list[tuple]:
    """What a scoresheet carries of balls and game ends (no standing pins, no handicap)."""
    rows = []
    for event in events:
        if type(event) is BallRecorded:
            rows.append(("ball", *event.key, event.pins, event.flags))
        elif isinstance(event, GameEnded):
            rows.append(("end", event.lane, event.bowler, event.game, event.scratch))
    return rows
