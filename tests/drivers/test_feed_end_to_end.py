"""End to end over real byte streams: the simulator writes into a socat pty pair or a TCP
port, SerialFeed reads through pyserial, and the events must be exactly what was bowled."""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Iterator

import pytest

from drivers.base import BallRecorded, GameEnded
from drivers.dialects.apf1 import Apf1Encoder, checksum
from drivers.feed_writer import FeedWriter, encode_lines, serve
from drivers.serial_feed import BackoffSchedule, SerialFeed
from drivers.simulator import Simulator
from tests.drivers.conftest import ball_projection, comparable

FAST = BackoffSchedule(initial=0.02, maximum=0.2)


def _reader(url: str, dialect: str, events: list) -> SerialFeed:
    feed = SerialFeed(url, dialect, events.append, source="scorer", backoff=FAST,
                      read_timeout=0.05)
    feed.start()
    return feed


@contextlib.contextmanager
def _over_pty(pty_pair, dialect: str, events: list,
              **writer_options) -> Iterator[tuple[SerialFeed, FeedWriter]]:
    """A reader on the pty pair's one end, connected, and a writer on its other; the writer
    closed, then the reader stopped, after."""
    feed = _reader(pty_pair.reader_path, dialect, events)
    try:
        assert feed.wait_connected(5)
        with FeedWriter(pty_pair.writer_path, **writer_options) as writer:
            yield feed, writer
    finally:
        feed.stop()


@contextlib.contextmanager
def _over_tcp(events: list, **writer_options) -> Iterator[tuple[SerialFeed, FeedWriter]]:
    """A writer listening on a loopback port and an APF1 reader connecting to it; the reader
    stopped, then the writer closed, after."""
    with FeedWriter("socket://127.0.0.1:0", **writer_options) as writer:
        host, port = writer.address
        feed = _reader(f"socket://{host}:{port}", "apf1", events)
        try:
            yield feed, writer
        finally:
            feed.stop()


def _all_read(feed: SerialFeed, lines: int, timeout: float = 20) -> None:
    done = feed.wait_for(
        lambda h: h.lines_ok + h.lines_rejected + h.duplicates >= lines, timeout)
    assert done, feed.health()


def _served(simulator: Simulator, writer: FeedWriter, feed: SerialFeed, **options) -> int:
    """The simulator's games written out and read in; the number of lines written."""
    written = serve(simulator, writer, speed=0, **options)
    assert writer.flush(20)
    _all_read(feed, written)
    return written


def _delivered(writer: FeedWriter, feed: SerialFeed, lines: list[bytes], counted: int) -> None:
    """``lines`` written out, and read until the feed has counted ``counted`` lines in all
    (taken, refused or dropped as re-sent)."""
    for line in lines:
        writer.write(line)
    assert writer.flush(20)
    _all_read(feed, counted)


def test_apf1_over_a_tcp_port_delivers_exactly_the_games_bowled():
    simulator = Simulator(lanes=[1, 2, 3, 4], seed=11, games=2)
    events: list = []
    with _over_tcp(events) as (feed, writer):
        written = _served(simulator, writer, feed)
    health = feed.health()
    assert comparable(events) == simulator.record
    assert health.lines_ok == written and health.lines_rejected == 0
    assert health.duplicates == 0 and health.gaps == ()
    ended = [event for event in events if isinstance(event, GameEnded)]
    assert len(ended) == 4 * 4 * 2  # lanes x bowlers x games, every one complete
    assert {event.source for event in events} == {"scorer"}


def test_apf1_through_a_socat_pty_pair(pty_pair):
    simulator = Simulator(lanes=[5, 6], seed=12, games=3, bowlers_per_lane=3)
    events: list = []
    with _over_pty(pty_pair, "apf1", events) as (feed, writer):
        written = _served(simulator, writer, feed)
    assert comparable(events) == simulator.record
    assert feed.health().lines_ok == written
    assert sum(isinstance(event, GameEnded) for event in events) == 2 * 3 * 3


def test_scoresheet_dialect_through_a_socat_pty_pair(pty_pair):
    simulator = Simulator(lanes=[1, 2], seed=13, games=2, bowlers_per_lane=2)
    events: list = []
    with _over_pty(pty_pair, "scoresheet", events) as (feed, writer):
        _served(simulator, writer, feed, dialect="scoresheet")
    assert ball_projection(events) == ball_projection(simulator.record)
    assert len([event for event in events if type(event) is BallRecorded]) \
        == len(simulator.balls)


def test_tcp_cable_pulled_mid_game_loses_nothing_and_emits_nothing_twice():
    simulator = Simulator(lanes=[1, 2], seed=21, games=2)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s1")]
    events: list = []
    with _over_tcp(events, resend_window=32) as (feed, writer):
        _delivered(writer, feed, lines[:200], 200)
        writer.drop_connection()  # mid-game: lane 1 is in game 1's middle frames
        _delivered(writer, feed, lines[200:], len(lines) + 200)
    health = feed.health()
    assert comparable(events) == simulator.record
    assert health.reconnects == 1
    # Re-sent: every line the dropped connection carried in its last minute (all 200 here),
    # each recognised by its number and dropped.
    assert health.duplicates == 200
    assert health.lines_ok == len(lines) and health.lines_rejected == 0
    assert writer.connections == 2


def test_pty_unplugged_mid_game_reader_reconnects_and_loses_nothing(pty_pair, caplog):
    simulator = Simulator(lanes=[3, 4], seed=22, games=2, bowlers_per_lane=3)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s2")]
    events: list = []
    with _over_pty(pty_pair, "apf1", events, resend_window=16) as (feed, writer):
        _delivered(writer, feed, lines[:150], 150)
        pty_pair.unplug()  # SIGKILL: both ptys vanish under the open ports
        assert feed.wait_for(lambda h: not h.connected, 5)
        pty_pair.plug()
        assert feed.wait_for(lambda h: h.connected and h.reconnects == 1, 10)
        _delivered(writer, feed, lines[150:], len(lines) + 150)
    health = feed.health()
    assert comparable(events) == simulator.record
    assert health.reconnects == 1 and health.duplicates == 150  # the lost port's 150 lines
    # Connected again and taking lines: the loss is over, so the tablet shows no error.
    assert health.last_error is None, health.last_error
    # The loss is told (logged for the feed board's history), not read from ``last_error``:
    # the reader retries at once, and while the pty is gone that field already says "cannot
    # open" (a loaded parallel run read that instead).
    assert any("connection to" in record.getMessage() and "lost" in record.getMessage()
               for record in caplog.records), caplog.text


def test_lines_read_before_the_cable_is_pulled_are_all_handled(pty_pair):
    """The service is busy (here: held on the first ball) while the scorer writes on; the
    cable is then pulled, and the port's buffer goes with it.  Every line the reader had
    taken off the port is still handed on, in order, with no re-send."""
    simulator = Simulator(lanes=[1, 2], seed=23, games=1, bowlers_per_lane=2)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s5")]
    lines = lines[:100]  # about 3 kB: all of it fits in the pty's buffer
    busy = threading.Event()
    events: list = []

    def slow_service(event) -> None:
        if not events:
            busy.wait(60)  # a slow ledger write (released once the cable is out)
        events.append(event)

    feed = SerialFeed(pty_pair.reader_path, "apf1", slow_service, source="scorer",
                      backoff=FAST, read_timeout=0.05)
    feed.start()
    try:
        assert feed.wait_connected(5)
        with FeedWriter(pty_pair.writer_path, resend_window=0) as writer:
            for line in lines:
                writer.write(line)
            assert writer.flush(10)
            assert feed.wait_for(lambda h: h.lines_read == len(lines), 8), feed.health()
            pty_pair.unplug()  # nothing after this point re-sends anything
            assert feed.wait_for(lambda h: not h.connected, 5)
            busy.set()
            _all_read(feed, len(lines))
    finally:
        busy.set()
        feed.stop()
    health = feed.health()
    assert health.lines_ok == len(lines) and health.lines_rejected == 0
    assert health.reconnects == 0
    assert comparable(events) == simulator.record[:len(comparable(events))]
    assert len(events) == len(lines)


def test_bad_lines_on_the_wire_are_rejected_counted_and_reading_goes_on():
    simulator = Simulator(lanes=[1], seed=31, games=1, bowlers_per_lane=2)
    good = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s3")]
    rng = random.Random(5)
    bad_checksum = good[5].replace(b"*", b"0*", 1)  # a byte changed in flight
    truncated = good[6][: len(good[6]) // 2] + b"\r\n"
    garbage = bytes(rng.randrange(256) for _ in range(300)).replace(b"\n", b"") + b"\n"
    endless = b"\x00\xff" * 1500 + b"\n"  # no line end for 3000 bytes: line noise
    late = next(index for index in range(20, len(good)) if b",HB*" in good[index])
    # A heartbeat held back in a buffer arrives five lines late: its number was skipped
    # (reported as a gap), and the line fills it when it comes.
    stream = [*good[:10], bad_checksum, truncated, garbage, endless, good[8], good[9],
              *good[10:late], *good[late + 1:late + 6], good[late], *good[late + 6:]]
    events: list = []
    with _over_tcp(events) as (feed, writer):
        _delivered(writer, feed, stream, len(good) + 6)
    health = feed.health()
    assert comparable(events) == simulator.record
    assert health.lines_ok == len(good)
    assert health.gaps == ((late + 1, late + 1),)  # reported when the next line came
    assert health.duplicates == 2  # good[8] and good[9] again
    reasons = [rejected.reason for rejected in health.recent_rejected]
    assert health.lines_rejected == len(reasons) == 4, reasons
    assert reasons[0].startswith("bad checksum")
    assert "truncated" in reasons[1]
    assert any("longer than" in reason for reason in reasons)
    assert health.recent_rejected[0].raw == bad_checksum.rstrip(b"\r\n")


def test_a_ball_garbled_on_the_wire_is_taken_from_its_re_send_through_a_pty(pty_pair):
    simulator = Simulator(lanes=[1, 2], seed=32, games=1, bowlers_per_lane=2)
    good = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s4")]
    garbled_at = next(index for index in range(12, len(good)) if b",BALL," in good[index])
    garbled = good[garbled_at].replace(b",BALL,", b",BALK,", 1)  # one byte hit by noise
    # The scorer goes on; later it re-sends its recent lines (after a reconnect, or its
    # one-minute re-send), the garbled one among them, now correct.
    stream = [*good[:garbled_at], garbled, *good[garbled_at + 1:garbled_at + 8],
              *good[garbled_at - 2:garbled_at + 8], *good[garbled_at + 8:]]
    events: list = []
    with _over_pty(pty_pair, "apf1", events) as (feed, writer):
        _delivered(writer, feed, stream, len(stream))
    health = feed.health()
    assert [rejected.reason for rejected in health.recent_rejected] == [
        "bad checksum: the line says "
        f"{garbled[-4:-2].decode()}, its bytes give {checksum(garbled[1:-5])}"]
    assert health.gaps == ((garbled_at + 1, garbled_at + 1),)  # lines are numbered from 1
    assert health.lines_ok == len(good) and health.duplicates == 9
    # Every ball bowled came through once: the garbled one from its re-send.
    assert sorted(ball_projection(events)) == sorted(ball_projection(simulator.record))
    (late,) = [event for event in events if event.seq == garbled_at + 1]
    assert isinstance(late, BallRecorded) and late.raw.encode() + b"\r\n" == good[garbled_at]


@pytest.mark.slow
def test_many_lanes_and_games_over_tcp():
    simulator = Simulator(lanes=range(1, 13), seed=99, games=3)
    events: list = []
    with _over_tcp(events) as (feed, writer):
        written = serve(simulator, writer, speed=0)
        assert writer.flush(60)
        _all_read(feed, written, timeout=60)
    assert comparable(events) == simulator.record


def test_health_turns_silent_then_down_when_a_connected_scorer_says_nothing():
    with FeedWriter("socket://127.0.0.1:0") as writer:
        host, port = writer.address
        feed = SerialFeed(f"socket://{host}:{port}", "apf1", lambda event: None,
                          heartbeat_s=0.3, backoff=FAST, read_timeout=0.05)
        with feed:
            assert feed.wait_connected(5)
            assert feed.health().state == "ok"
            assert feed.wait_for(lambda h: h.state == "silent", 2)
            assert feed.wait_for(lambda h: h.state == "down", 2)
            writer.write(Apf1Encoder(session="hb").hello())
            assert feed.wait_for(lambda h: h.state == "ok" and h.lines_ok == 1, 2)
    assert feed.health().state == "stopped"


def test_a_port_that_does_not_exist_yet_is_retried_without_blocking(tmp_path):
    feed = SerialFeed(str(tmp_path / "no-such-tty"), "apf1", lambda event: None,
                      backoff=FAST)
    with feed:
        assert feed.wait_for(lambda h: h.last_error is not None, 2)
        health = feed.health()
        assert not health.connected and health.state == "down"
        assert "cannot open" in health.last_error
