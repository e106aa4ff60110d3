"""Feed health for real: a socat pty pair, the centre scheduler's health job, the bus.

The scorer side writes apf1 heartbeats into one end of the pair; the service's feed reads the
other.  The tablet's view of it (the latest ``feed_health`` report on the ``alley`` topic, as
``FeedStatusBoard`` keeps it) must go green → amber → red when the scorer falls silent, back
to green when it talks again, and red when the cable is pulled.  The heartbeat is 0.5 s so
the whole walk takes seconds.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from datetime import UTC, datetime

import pytest

from alley_poker.config import AlleyConfig, BackupConfig, CentreConfig, DatabaseConfig, FeedConfig
from alley_poker.service import open_service
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.health import FeedStatusBoard
from alley_poker.service.scheduler import FEED_HEALTH_JOB, CentreScheduler
from drivers.base import Heartbeat
from drivers.dialects.apf1 import Apf1Encoder, frame_line

HEARTBEAT_S = 0.5


class Scorer:
    """Writes a heartbeat line into the scorer's end of the pty every 0.1 s while talking."""

    def __init__(self, path: str):
        self.path = path
        self.encoder = Apf1Encoder(session="health")
        self.talking = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        # OSError: the cable was pulled (socat killed); the scorer has nobody to talk to.
        with contextlib.suppress(OSError), open(self.path, "wb", buffering=0) as tty:
            tty.write(self.encoder.hello())
            while not self._stop.wait(0.1):
                if self.talking.is_set():
                    tty.write(self.encoder.encode(Heartbeat()))

    def __enter__(self) -> Scorer:
        self.talking.set()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(5)


def wait_for_report(board: FeedStatusBoard, condition, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reports = board.current()
        if reports and condition(reports[0]):
            return reports[0]
        time.sleep(0.02)
    raise AssertionError(f"no report matched within {timeout} s; last: {board.current()}")


@pytest.fixture
def centre(pty_pair):
    """The service, the feed on the pty and the centre scheduler, all running."""
    config = AlleyConfig(
        centre=CentreConfig(name="Health Lanes", lanes=4),
        database=DatabaseConfig(url="sqlite://"),
        backup=BackupConfig(enabled=False),
        feeds=[FeedConfig(name="north", url=pty_pair.reader_path, lanes=[1, 2],
                          heartbeat_s=HEARTBEAT_S)],
    )
    service = open_service(config.database.url)
    board = FeedStatusBoard(service.bus)
    messages: list[dict] = []
    service.bus.subscribe(lambda topic, message: messages.append(message)
                          if message.get("kind") == "feed_health" else None)
    feeds = FeedSupervisor(config.feeds, service.handle_lane_event)
    scheduler = CentreScheduler(service, config, feeds)
    feeds.start()
    scheduler.start()
    yield board, messages, scheduler, pty_pair
    scheduler.shutdown()
    feeds.stop()


def test_a_talking_feed_stays_green_then_goes_amber_red_and_green_again(centre):
    board, messages, scheduler, pty_pair = centre
    assert FEED_HEALTH_JOB in scheduler.job_ids()
    assert scheduler.pending_jobs() == [], "pending_jobs lists decision deadlines only"
    with Scorer(pty_pair.writer_path) as scorer:
        green = wait_for_report(board, lambda r: r["state"] == "green" and r["lines"] > 2, 5)
        assert green["source"] == "north" and green["lanes"] == [1, 2]
        assert green["dialect"] == "apf1" and green["url"] == pty_pair.reader_path
        assert green["rejected"] == 0 and green["reconnects"] == 0
        heard = datetime.fromisoformat(green["last_line_at"])
        assert abs((datetime.now(UTC) - heard).total_seconds()) < 2
        assert green["seconds_silent"] < HEARTBEAT_S

        # Talking for a while: every report in that time is green.
        seen_before = len(messages)
        time.sleep(4 * HEARTBEAT_S)
        states = [m["feeds"][0]["state"] for m in messages[seen_before:]]
        assert len(states) >= 4, "the job reports every fraction of a heartbeat"
        assert set(states) == {"green"}

        scorer.talking.clear()  # the scorer falls silent
        amber = wait_for_report(board, lambda r: r["state"] == "amber", 3 * HEARTBEAT_S + 1)
        # (seconds_silent is rounded to 0.1 s)
        assert HEARTBEAT_S - 0.05 <= amber["seconds_silent"] <= 3 * HEARTBEAT_S + 0.05
        red = wait_for_report(board, lambda r: r["state"] == "red", 4 * HEARTBEAT_S + 2)
        assert red["seconds_silent"] >= 3 * HEARTBEAT_S - 0.05
        assert red["connected"] is True, "silent, not unplugged"
        walk = [m["feeds"][0]["state"] for m in messages[seen_before:]]
        assert walk.index("amber") < walk.index("red"), "amber comes before red"

        scorer.talking.set()  # it talks again
        back = wait_for_report(board, lambda r: r["state"] == "green", 2)
        assert back["lines"] > red["lines"]


def test_a_pulled_cable_turns_the_feed_red_with_the_reason(centre):
    board, _messages, _scheduler, pty_pair = centre
    with Scorer(pty_pair.writer_path):
        wait_for_report(board, lambda r: r["state"] == "green", 5)
        pty_pair.unplug()  # socat SIGKILLed: both ptys vanish
        red = wait_for_report(board, lambda r: r["state"] == "red" and not r["connected"], 5)
    assert red["seconds_silent"] is None
    assert red["last_error"], "the tablet says why"


def test_a_feed_whose_every_ball_is_refused_is_not_green_and_says_why(centre):
    """Talking, heartbeats and all, but every ball refused (here: balls that cannot follow
    the game so far): the feed is amber with the reason, and green again once a ball is
    taken."""
    board, _messages, _scheduler, pty_pair = centre
    numbers = itertools.count(1)

    def line(record: str) -> bytes:
        return frame_line(f"APF1,{next(numbers)},{record}")

    with open(pty_pair.writer_path, "wb", buffering=0) as tty:
        tty.write(line("HELLO,refused") + line("BALL,1,1,1,1,1,7,8.9.10,-"))  # 3 stand
        wait_for_report(board, lambda r: r["state"] == "green" and r["lines"] >= 2, 5)
        for _ in range(6):
            tty.write(line("BALL,1,1,1,1,2,8,-,-"))  # 8 of the 3 standing: impossible
            tty.write(line("HB"))  # alive all along
        refusing = wait_for_report(board, lambda r: r["state"] == "amber" and r["refusing"], 5)
        assert refusing["connected"] and refusing["rejected"] == 6
        assert "the last 6 lines were all refused" in refusing["refusing"]
        assert "impossible ball" in refusing["refusing"]
        tty.write(line("BALL,1,1,1,1,2,3,-,-"))  # the spare: taken
        back = wait_for_report(board, lambda r: r["state"] == "green", 5)
    assert back["refusing"] is None

