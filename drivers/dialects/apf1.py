"""``apf1``: the Alley Poker Feed reference protocol, read and written.

The protocol is specified in ``docs/feed-protocol.md``.  In short: one ASCII line per record,
``$APF1,<seq>,<TYPE>,<fields...>*<hh>`` where ``hh`` is the XOR of every byte between ``$``
and ``*`` in two hex digits (as NMEA 0183 does it).

>>> encoder = Apf1Encoder(session="a1")
>>> line = encoder.encode(BallRecorded(lane=3, bowler=1, game=1, frame=1, ball=1, pins=8,
...                                    standing=frozenset({7, 10}), flags=Flags(split=True)))
>>> line
b'$APF1,1,BALL,3,1,1,1,1,8,7.10,S*14\\r\\n'
>>> dialect = Apf1Dialect(source="scorer")
>>> [event.describe() for event in dialect.parse(line)]
['lane 3 bowler 1 game 1 frame 1 ball 1: 8 pins, standing 7-10, split']
>>> dialect.parse(b"$APF1,2,BALL,3,1,1,1,2,2,-,-*00")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
drivers.base.FeedLineRejected: bad checksum: the line says 00, its bytes give 55: ...
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from functools import reduce

from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    BowlerSlot,
    DuplicateLine,
    FeedLineRejected,
    Flags,
    GameEnded,
    Heartbeat,
    LaneEvent,
    LaneOpened,
    ScoresheetSnapshot,
    SequenceGap,
    WrongLane,
)
from drivers.dialects.notation import SheetError, format_sheet, parse_sheet
from drivers.dialects.registry import register_dialect
from drivers.lanegame import AlreadyRecorded, GameBook, ImpossibleBall
from drivers.sequence import SequenceTracker

PROTOCOL = "APF1"
#: Longest line accepted, line ending included: a full SNAP with a long name fits easily.
MAX_LINE_BYTES = 256
MAX_SEQ = 999_999_999
MAX_LANE = 999
MAX_SLOT = 99
MAX_GAME = 99
NAME_PATTERN = re.compile(r"[^\x00-\x1f\x7f$*,;=]{0,24}")
SESSION_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,32}")
_LINE = re.compile(rb"\$([\x20-\x7e]*)\*([0-9A-Fa-f]{2})")


def checksum(body: str | bytes) -> str:
    """The XOR of the bytes of ``body`` (what lies between ``$`` and ``*``) as two hex digits.

    >>> checksum("APF1,1,HB")
    '5D'
    """
    data = body.encode("ascii") if isinstance(body, str) else body
    return f"{reduce(lambda acc, byte: acc ^ byte, data, 0):02X}"


def frame_line(body: str) -> bytes:
    """A complete line for ``body``: ``$`` + body + ``*`` + checksum + CR LF.

    >>> frame_line("APF1,1,HB")
    b'$APF1,1,HB*5D\\r\\n'
    """
    return f"${body}*{checksum(body)}\r\n".encode("ascii")


def _pins_field(pins: frozenset[int] | None) -> str:
    if pins is None:
        return ""
    return ".".join(map(str, sorted(pins))) if pins else "-"


class Apf1Encoder:
    """Writes lane events as apf1 lines, numbering them within one scorer session.

    Used by the simulator; also the reference for anyone writing a converter.
    """

    def __init__(self, session: str, *, first_seq: int = 1):
        if not SESSION_PATTERN.fullmatch(session):
            raise ValueError(f"session id {session!r}: 1-32 letters, digits or _.:-")
        self.session = session
        self.next_seq = first_seq

    def hello(self) -> bytes:
        """The line a scorer sends when it starts and after every reconnect."""
        return self._line(f"HELLO,{self.session}")

    def encode(self, event: LaneEvent) -> bytes:
        """One line for ``event`` (raises ValueError for an event apf1 does not carry)."""
        return self._line(self.record(event))

    @staticmethod
    def record(event: LaneEvent) -> str:
        """The record part of the line: type and fields, without ``$APF1,<seq>,``."""
        match event:
            case BallRecorded():
                kind = "CORR" if isinstance(event, BallCorrected) else "BALL"
                return (f"{kind},{event.lane},{event.bowler},{event.game},{event.frame},"
                        f"{event.ball},{event.pins},{_pins_field(event.standing)},"
                        f"{event.flags.letters or '-'}")
            case BallRetracted():
                return (f"VOID,{event.lane},{event.bowler},{event.game},{event.frame},"
                        f"{event.ball}")
            case LaneOpened():
                bowlers = ";".join(f"{slot.slot}={slot.name}" for slot in event.bowlers)
                return f"OPEN,{event.lane},{event.game},{bowlers}"
            case GameEnded():
                return (f"END,{event.lane},{event.bowler},{event.game},{event.scratch},"
                        f"{event.handicap}")
            case WrongLane():
                return f"WRONG,{event.lane},{event.bowler}"
            case ScoresheetSnapshot():
                return (f"SNAP,{event.lane},{event.bowler},{event.game},"
                        f"{format_sheet(event.frames)}")
            case Heartbeat():
                return "HB"
        raise ValueError(f"apf1 has no record for {type(event).__name__}")

    def _line(self, record: str) -> bytes:
        seq, self.next_seq = self.next_seq, self.next_seq + 1
        return frame_line(f"{PROTOCOL},{seq},{record}")


class _Fields:
    """The comma-separated fields of one record, read with range checks."""

    def __init__(self, kind: str, fields: list[str], raw: bytes):
        self.kind, self.fields, self.raw = kind, fields, raw

    def expect(self, *names: str) -> None:
        if len(self.fields) != len(names):
            raise FeedLineRejected(
                f"{self.kind} needs {len(names)} fields ({', '.join(names)}), "
                f"got {len(self.fields)}", self.raw)

    def int(self, index: int, name: str, low: int, high: int) -> int:
        text = self.fields[index]
        if not text.isdigit() or len(text) > 9 or not low <= int(text) <= high:
            raise FeedLineRejected(
                f"{self.kind} field {name}: {text!r} is not a number from {low} to {high}",
                self.raw)
        return int(text)

    def pins(self, index: int, name: str) -> frozenset[int] | None:
        text = self.fields[index]
        if text == "":
            return None
        if text == "-":
            return frozenset()
        parts = text.split(".")
        if not all(part.isdigit() and 1 <= int(part) <= 10 for part in parts) \
                or len(set(parts)) != len(parts) or any(p.startswith("0") for p in parts):
            raise FeedLineRejected(
                f"{self.kind} field {name}: {text!r} is not pin numbers 1-10 joined by '.'",
                self.raw)
        return frozenset(map(int, parts))

    def flags(self, index: int) -> Flags:
        text = self.fields[index]
        if text == "-":
            return Flags()
        if not text or len(set(text)) != len(text):
            raise FeedLineRejected(f"{self.kind} field flags: {text!r} is not '-' or letters "
                                   "from F, G, S", self.raw)
        try:
            return Flags.from_letters(text)
        except ValueError as exc:
            raise FeedLineRejected(f"{self.kind} field flags: {exc}", self.raw) from None


@register_dialect
class Apf1Dialect:
    """Reads apf1 lines: checks framing, checksum, fields, sequence and the ball itself."""

    name = "apf1"

    def __init__(self, source: str = "feed"):
        self.source = source
        self.sequence = SequenceTracker()
        self.games = GameBook()
        self._parsers: dict[str, Callable[[_Fields, int], LaneEvent]] = {
            "HELLO": self._hello, "HB": self._heartbeat, "OPEN": self._open,
            "BALL": self._ball, "CORR": self._correction, "VOID": self._void,
            "END": self._end, "WRONG": self._wrong, "SNAP": self._snapshot,
        }

    def parse(self, line: bytes) -> list[LaneEvent]:
        """The events on one line; raises :class:`FeedLineRejected` and changes nothing."""
        raw = bytes(line)
        body = _unframe(raw)
        fields = body.split(",")
        if fields[0] != PROTOCOL:
            raise FeedLineRejected(f"not an apf1 line: it starts {fields[0][:8]!r}", raw)
        if len(fields) < 3:
            raise FeedLineRejected("a line needs APF1, a sequence number and a record type",
                                   raw)
        record = _Fields(fields[2], fields[3:], raw)
        seq = _Fields("line", fields[1:2], raw).int(0, "sequence", 1, MAX_SEQ)
        parser = self._parsers.get(record.kind)
        if parser is None:
            raise FeedLineRejected(f"unknown record type {record.kind[:12]!r}", raw)
        if record.kind == "HELLO":
            record.expect("session")
            session = record.fields[0]
            if not SESSION_PATTERN.fullmatch(session):
                raise FeedLineRejected(f"HELLO session {session[:40]!r}: 1-32 letters, "
                                       "digits or _.:-", raw)
            self.sequence.new_session(session)
        # The record without its number: a re-send carries the same, a conflict other.
        content = ",".join(fields[2:])
        gap = self.sequence.peek(seq, raw, content=content)
        try:
            event = parser(record, seq)
        except DuplicateLine:
            # The number did arrive; only its ball was a repeat.
            self.sequence.accept(seq, content=content)
            raise
        self.sequence.accept(seq, content=content)
        events: list[LaneEvent] = []
        if gap is not None:
            events.append(SequenceGap(first_missing=gap[0], last_missing=gap[1],
                                      source=self.source, seq=seq))
        events.append(event)
        return events

    def refused(self, events: list[LaneEvent]) -> None:
        """The service refused the line these events came from, for its content (a ball it
        cannot place, a lane the feed does not carry): undo what the line changed here, so
        it counts as never received and a good line with its number is taken."""
        for event in reversed(events):
            if type(event) is BallRecorded:
                with contextlib.suppress(ImpossibleBall):
                    self.games.retract(event.lane, event.bowler, event.game, event.frame,
                                       event.ball)
        seqs = {event.seq for event in events if event.seq is not None}
        for seq in seqs:
            self.sequence.release(seq)

    # Each record parser validates, then changes state only as its last step.

    def _hello(self, record: _Fields, seq: int) -> LaneEvent:
        return Heartbeat(source=self.source, seq=seq)

    def _heartbeat(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect()
        return Heartbeat(source=self.source, seq=seq)

    def _open(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect("lane", "game", "bowlers")
        lane = record.int(0, "lane", 1, MAX_LANE)
        game = record.int(1, "game", 1, MAX_GAME)
        bowlers = []
        for entry in record.fields[2].split(";"):
            slot_text, equals, name = entry.partition("=")
            slot = _Fields("OPEN", [slot_text], record.raw).int(0, "bowler slot", 1, MAX_SLOT)
            if not equals or not NAME_PATTERN.fullmatch(name):
                raise FeedLineRejected(f"OPEN bowler {entry[:30]!r}: write slot=NAME, the name "
                                       "up to 24 characters without $ * , ; =", record.raw)
            bowlers.append(BowlerSlot(slot, name))
        if len({bowler.slot for bowler in bowlers}) != len(bowlers):
            raise FeedLineRejected("OPEN lists a bowler slot twice", record.raw)
        self.games.lane_opened(lane, game)
        return LaneOpened(lane=lane, game=game, bowlers=tuple(bowlers), source=self.source,
                          seq=seq)

    def _read_ball(self, record: _Fields, seq: int, cls: type[BallRecorded]) -> BallRecorded:
        record.expect("lane", "bowler", "game", "frame", "ball", "pins", "standing", "flags")
        frame = record.int(3, "frame", 1, 10)
        ball = record.int(4, "ball", 1, 3 if frame == 10 else 2)
        return cls(
            lane=record.int(0, "lane", 1, MAX_LANE), bowler=record.int(1, "bowler", 1, MAX_SLOT),
            game=record.int(2, "game", 1, MAX_GAME), frame=frame, ball=ball,
            pins=record.int(5, "pins", 0, 10), standing=record.pins(6, "standing"),
            flags=record.flags(7), source=self.source, seq=seq,
        )

    def _ball(self, record: _Fields, seq: int) -> LaneEvent:
        event = self._read_ball(record, seq, BallRecorded)
        try:
            return self.games.record(event)
        except AlreadyRecorded as exc:
            # The same ball under a new number: a scorer that restarted and re-sent it.
            raise DuplicateLine(str(exc), record.raw) from None
        except ImpossibleBall as exc:
            raise FeedLineRejected(f"impossible ball: {exc}", record.raw) from None

    def _correction(self, record: _Fields, seq: int) -> LaneEvent:
        event = self._read_ball(record, seq, BallCorrected)
        try:
            return self.games.correct(event)
        except ImpossibleBall as exc:
            raise FeedLineRejected(f"impossible correction: {exc}", record.raw) from None

    def _void(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect("lane", "bowler", "game", "frame", "ball")
        frame = record.int(3, "frame", 1, 10)
        event = BallRetracted(
            lane=record.int(0, "lane", 1, MAX_LANE), bowler=record.int(1, "bowler", 1, MAX_SLOT),
            game=record.int(2, "game", 1, MAX_GAME), frame=frame,
            ball=record.int(4, "ball", 1, 3 if frame == 10 else 2), source=self.source, seq=seq)
        try:
            self.games.retract(event.lane, event.bowler, event.game, event.frame, event.ball)
        except ImpossibleBall as exc:
            raise FeedLineRejected(f"cannot withdraw: {exc}", record.raw) from None
        return event

    def _end(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect("lane", "bowler", "game", "scratch", "handicap")
        return GameEnded(
            lane=record.int(0, "lane", 1, MAX_LANE), bowler=record.int(1, "bowler", 1, MAX_SLOT),
            game=record.int(2, "game", 1, MAX_GAME), scratch=record.int(3, "scratch", 0, 300),
            handicap=record.int(4, "handicap", 0, 300), source=self.source, seq=seq)

    def _wrong(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect("lane", "bowler")
        return WrongLane(lane=record.int(0, "lane", 1, MAX_LANE),
                         bowler=record.int(1, "bowler", 1, MAX_SLOT), source=self.source, seq=seq)

    def _snapshot(self, record: _Fields, seq: int) -> LaneEvent:
        record.expect("lane", "bowler", "game", "sheet")
        try:
            frames = parse_sheet(record.fields[3])
        except SheetError as exc:
            raise FeedLineRejected(f"SNAP sheet: {exc}", record.raw) from None
        snapshot = ScoresheetSnapshot(
            lane=record.int(0, "lane", 1, MAX_LANE), bowler=record.int(1, "bowler", 1, MAX_SLOT),
            game=record.int(2, "game", 1, MAX_GAME), frames=frames, source=self.source, seq=seq)
        try:
            self.games.resync(snapshot)
        except ImpossibleBall as exc:
            raise FeedLineRejected(f"SNAP: {exc}", record.raw) from None
        return snapshot


def _unframe(raw: bytes) -> str:
    """The body between ``$`` and ``*`` after checking length, characters and checksum."""
    line = raw.rstrip(b"\r\n")
    if len(raw) > MAX_LINE_BYTES:
        raise FeedLineRejected(f"line too long: {len(raw)} bytes, at most {MAX_LINE_BYTES}", raw)
    if not line:
        raise FeedLineRejected("empty line", raw)
    match = _LINE.fullmatch(line)
    if match is None:
        if not line.startswith(b"$"):
            raise FeedLineRejected("a line must start with '$'", raw)
        if any(byte < 0x20 or byte > 0x7E for byte in line):
            raise FeedLineRejected("control or non-ASCII bytes in the line", raw)
        raise FeedLineRejected("a line must end with '*' and two hex digits (truncated?)", raw)
    body, given = match.group(1), match.group(2).decode("ascii").upper()
    computed = checksum(body)
    if given != computed:
        raise FeedLineRejected(
            f"bad checksum: the line says {given}, its bytes give {computed}", raw)
    return body.decode("ascii")
