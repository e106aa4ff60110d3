"""A feed line refused for its content is treated as not received (docs/feed-protocol.md):
its sequence number stays free for the good line, it counts as rejected (not good), and a
number reused with other content is a conflict on the feed board.

The scorer end writes real apf1 lines into a socat pty pair; the feed reads them with
pyserial and hands them to the real service over a SQLite ledger.
"""

from __future__ import annotations

import time

import pytest

from alley_poker.config import FeedConfig
from alley_poker.ledger import commands as c
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.health import feed_report
from drivers.dialects.apf1 import frame_line
from tests.web.conftest import DESK, open_service


def ball(seq: int, lane: int, frame: int, ball_no: int, pins: int, standing: str,
         game: int = 1) -> bytes:
    return frame_line(f"APF1,{seq},BALL,{lane},1,{game},{frame},{ball_no},{pins},{standing},-")


@pytest.fixture
def fed(tmp_path, pty_pair):
    """A started one-game match (Ann lane 1, Bob lane 2), a feed carrying lanes 1-2 read from
    the pty, and a function writing lines into the scorer's end."""
    service = open_service(tmp_path / "ledger.sqlite3")
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor=DESK)
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.ConsentToAnte(bowler, actor=DESK))
    service.execute("m1", c.StartMatch(actor=DESK))
    feeds = FeedSupervisor([FeedConfig(name="scorer", url=pty_pair.reader_path, lanes=[1, 2])],
                           service.handle_lane_event)
    feeds.start()
    feed = feeds.feeds["scorer"]
    assert feed.wait_connected(5)
    scorer = open(pty_pair.writer_path, "wb", buffering=0)  # noqa: SIM115 - closed below

    def send(*lines: bytes, seen: int) -> dict:
        """Write ``lines``; wait until the feed has handled ``seen`` lines in all."""
        for line in lines:
            scorer.write(line)
        assert feed.wait_for(lambda h: h.lines_ok + h.lines_rejected + h.duplicates >= seen, 5)
        time.sleep(0.05)
        return feeds.health()[0]

    send(frame_line("APF1,1,HELLO,night1"), seen=1)
    yield service, send, feeds
    scorer.close()
    feeds.stop()


def balls_of(service, bowler: str) -> list[tuple[int, int, int]]:
    return [(b["frame"], b["ball"], b["pins"]) for b in service.state("m1").balls[bowler][0]]


def test_a_line_for_a_lane_the_feed_lacks_leaves_its_number_to_the_good_line(fed):
    service, send, _ = fed
    health = send(ball(2, 150, 1, 1, 7, "8.9.10"), seen=2)
    assert (health["lines_ok"], health["lines_rejected"]) == (1, 1)
    assert "lane 150 is not a lane of this feed" in health["last_rejected"]["reason"]
    # The scorer sends the line again, now for the right lane, with the same number.
    health = send(ball(2, 1, 1, 1, 7, "8.9.10"), seen=3)
    assert (health["lines_ok"], health["lines_rejected"], health["duplicates"]) == (2, 1, 0)
    assert balls_of(service, "Ann") == [(1, 1, 7)]
    # Her next ball follows on at once (it does not wait behind a lost one).
    send(ball(3, 1, 1, 2, 2, "10"), seen=4)
    assert balls_of(service, "Ann") == [(1, 1, 7), (1, 2, 2)]


def test_a_ball_the_service_refuses_leaves_its_number_to_the_good_line(fed):
    service, send, _ = fed
    # Game 2 of a one-game match: the dialect takes it, the service cannot place it.
    health = send(ball(2, 1, 1, 1, 9, "10", game=2), seen=2)
    assert (health["lines_ok"], health["lines_rejected"]) == (1, 1)
    assert "refused by the service" in health["last_rejected"]["reason"]
    health = send(ball(2, 1, 1, 1, 9, "10"), seen=3)
    assert (health["lines_ok"], health["lines_rejected"], health["duplicates"]) == (2, 1, 0)
    assert balls_of(service, "Ann") == [(1, 1, 9)]


def test_a_number_reused_with_other_content_is_a_conflict_on_the_feed_board(fed):
    service, send, _ = fed
    send(ball(2, 2, 1, 1, 4, "1.2.3.7.8.9"), seen=2)
    seq = service.state("m1").seq
    health = send(ball(2, 2, 1, 1, 6, "1.7.8.9"), seen=3)
    assert (health["lines_ok"], health["lines_rejected"], health["conflicts"]) == (2, 1, 1)
    assert balls_of(service, "Bob") == [(1, 1, 4)] and service.state("m1").seq == seq
    board = feed_report(health)
    assert board["conflicts"] == 1
    assert "sequence 2 was already used by another line" in board["last_conflict"]["reason"]
    # The very same line again is a re-send: dropped, counted as a duplicate, no conflict.
    health = send(ball(2, 2, 1, 1, 4, "1.2.3.7.8.9"), seen=4)
    assert (health["duplicates"], health["conflicts"]) == (1, 1)
