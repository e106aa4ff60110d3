"""How the buffering worker reads a request's head (``serving.request_buffering.Arrival``) and when
it hands memory back (``serving.memory_return.BurstMemory``), without a server (the real-server
probes are in test_request_heads.py)."""

from __future__ import annotations

from alley_poker.serving.memory_return import BurstMemory
from alley_poker.serving.request_buffering import Arrival, Deadlines


def fed(arrival: Arrival, data: bytes) -> bool:
    return arrival.feed(memoryview(data), now=0.0)


def test_a_head_over_the_ceiling_is_refused_431_with_connection_close():
    arrival = Arrival(Deadlines(max_head_bytes=4096), now=0.0)
    assert not fed(arrival, b"GET / HTTP/1.1\r\nHost: x\r\n")
    assert not fed(arrival, b"X-Pad: " + b"a" * 3000 + b"\r\n")
    assert fed(arrival, b"X-Pad: " + b"a" * 3000 + b"\r\n")  # 6 KB, never ended
    assert arrival.refusal.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert b"\r\nConnection: close\r\n" in arrival.refusal
    assert b"longer than this server accepts (4 KB)" in arrival.refusal


def test_a_head_under_the_ceiling_with_its_body_is_taken_whole():
    arrival = Arrival(Deadlines(max_head_bytes=4096), now=0.0)
    head = (b"POST /x HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 3000 +
            b"\r\nContent-Length: 2\r\n\r\n")
    assert fed(arrival, head + b"{}")
    assert arrival.refusal == b"" and not arrival.unread_body
    assert bytes(arrival.raw) == head + b"{}"


def test_a_declared_body_too_large_is_handed_over_unread():
    arrival = Arrival(Deadlines(), now=0.0)
    assert fed(arrival, b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n{")
    assert arrival.unread_body and arrival.refusal == b""


def test_memory_is_trimmed_once_after_a_burst_not_during_it_nor_for_small_traffic():
    trims: list[int] = []
    burst = BurstMemory(burst_bytes=1000, trim=lambda: trims.append(1))
    for buffered in (100, 200, 100, 0):  # ordinary requests: never a burst
        burst.note(buffered)
    assert trims == []
    burst.note(800, released=400)  # 1,200 bytes: a burst
    burst.note(1500)
    assert trims == []  # still arriving
    burst.note(300)  # below a quarter of the peak: it is over
    assert trims == [1]
    burst.note(200)
    assert trims == [1]  # once per burst


def test_a_burst_refused_between_two_looks_counts_too():
    trims: list[int] = []
    burst = BurstMemory(burst_bytes=1000, trim=lambda: trims.append(1))
    burst.note(0, released=5000)  # came, was refused and left within one sweep
    assert trims == [1]
