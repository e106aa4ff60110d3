"""The simulated scorer after its reader crashed: let the new reader in, re-send, catch up.

A reader that was SIGKILLed never closes its connection politely and loses whatever sat
unread in its socket.  The writer (a device server in TCP-server mode) must let the restarted
reader in at once, re-send every line the dead connection may have swallowed, and follow with
a scoresheet of every game so far.
"""

from __future__ import annotations

import socket
import time

from drivers.dialects.apf1 import Apf1Dialect
from drivers.feed_writer import FeedWriter, serve
from drivers.simulator import Simulator


def connect(writer: FeedWriter) -> socket.socket:
    host, port = writer.address
    reader = socket.create_connection((host, port), timeout=5)
    reader.settimeout(0.3)
    return reader


def read_lines(reader: socket.socket, count: int, timeout: float = 5.0) -> list[bytes]:
    """At least ``count`` lines, or all that came within ``timeout``."""
    data = b""
    deadline = time.monotonic() + timeout
    while data.count(b"\n") < count and time.monotonic() < deadline:
        try:
            chunk = reader.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            break
        data += chunk
    return [line for line in data.split(b"\n") if line]


def test_a_new_reader_replaces_a_connection_whose_reader_died_silently():
    with FeedWriter("socket://127.0.0.1:0", resend_window=4) as writer:
        first = connect(writer)
        writer.write(b"one\r\n")
        assert read_lines(first, 1) == [b"one\r"]
        # The reader is frozen or dead without a FIN (a hung process): nothing more is
        # written, yet a new reader must not wait for the old connection to time out.
        second = connect(writer)
        assert read_lines(second, 1) == [b"one\r"], "the last line is re-sent to the newcomer"
        assert writer.connections == 2
        assert first.recv(100) == b"", "the old connection was dropped"
        first.close()
        second.close()


def test_every_line_written_on_the_dropped_connection_is_sent_again():
    lines = [f"line {number}\r\n".encode() for number in range(1, 41)]
    with FeedWriter("socket://127.0.0.1:0", resend_window=4) as writer:
        crashed = connect(writer)
        for line in lines:
            writer.write(line)
        assert writer.flush(5)
        crashed.close()  # a SIGKILLed reader: the 40 lines died unread in its socket
        restarted = connect(writer)
        received = read_lines(restarted, len(lines))
        restarted.close()
    assert received == [line.rstrip(b"\n") for line in lines], \
        "more than the 4-line window: every line of the dropped connection"


def test_after_a_reconnect_the_scorer_sends_a_sheet_of_every_game_so_far():
    simulator = Simulator([3, 4], seed=5, games=1, bowlers_per_lane=2)
    with FeedWriter("socket://127.0.0.1:0", resend_window=4) as writer:
        first = connect(writer)
        serve(simulator, writer, speed=0, session="s1")
        assert writer.flush(5)
        before = read_lines(first, 10_000, timeout=1.0)
        first.close()
        second = connect(writer)
        after = read_lines(second, 10_000, timeout=1.0)
        second.close()

    # A fresh reader (the restarted service) accepts every line, in order, with no gap.
    dialect = Apf1Dialect(source="scorer")
    events = [event for line in after for event in dialect.parse(line)]
    sheets = {(event.lane, event.bowler, event.game): event for event in events
              if type(event).__name__ == "ScoresheetSnapshot"}
    assert not any(type(event).__name__ == "SequenceGap" for event in events)
    assert set(sheets) == {(lane, slot, 1) for lane in (3, 4) for slot in (1, 2)}
    for key, sheet in sheets.items():
        bowled = [ball.pins for ball in simulator.balls
                  if (ball.lane, ball.bowler, ball.game) == key]
        assert [ball.pins for ball in sheet.ball_events()] == bowled
    # Everything went out on the dropped connection, so everything is re-sent, then 4 sheets.
    assert after[:len(before)] == before
    assert len(after) == len(before) + 4 and all(b",SNAP," in line for line in after[-4:])
