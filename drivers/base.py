"""Normalized lane events and the adapter interface every scoreboard adapter implements.

Every adapter — the serial feed with its dialects, manual entry, the simulator — speaks in the
frozen dataclasses below and nothing else.  Adapters never touch the ledger: the service
receives these events, dedupes them by ball identity and turns them into ledger commands.

Every event carries the ``source`` it came from (a feed name from ``alley.toml``, or
``"manual"``) and, where the feed numbers its lines, the feed's sequence number ``seq`` — so
the service can recognise a re-sent ball and catch up after an outage.

>>> ball = BallRecorded(lane=3, bowler=1, game=1, frame=4, ball=1, pins=8,
...                     standing=frozenset({7, 10}), flags=Flags(split=True),
...                     source="scorer", seq=57)
>>> ball.key
(3, 1, 1, 4, 1)
>>> ball.flags.letters
'S'
>>> ball.describe()
'lane 3 bowler 1 game 1 frame 4 ball 1: 8 pins, standing 7-10, split'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import ClassVar, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")

#: Every pin of a rack, numbered as USBC does: 1 the head pin, 7 and 10 the back corners.
ALL_PINS: frozenset[int] = frozenset(range(1, 11))


class FeedLineRejected(ValueError):
    """A line from a feed that cannot be used; ``reason`` says why, ``raw`` is the line as read.

    Dialects raise this and only this for bad input.  The feed counts it, logs the raw bytes and
    keeps reading; no state changes.

    >>> error = FeedLineRejected("bad checksum: line says 4F, computed 4E", b"$APF1,1,HB*4F")
    >>> str(error)
    "bad checksum: line says 4F, computed 4E: b'$APF1,1,HB*4F'"
    """

    def __init__(self, reason: str, raw: bytes = b""):
        super().__init__(f"{reason}: {bytes(raw)[:120]!r}")
        self.reason = reason
        self.raw = bytes(raw)


class DuplicateLine(FeedLineRejected):
    """A line whose sequence number was already accepted: a scorer re-sending after a reconnect.

    Not bad input — the feed counts it as a duplicate (not a rejection) and emits nothing.
    """


@dataclass(frozen=True, slots=True)
class Flags:
    """What a scoring system flags on a ball: a foul, a gutter ball, a split leave.

    >>> Flags.from_letters("GF")
    Flags(foul=True, gutter=True, split=False)
    >>> Flags(split=True).letters, Flags().letters
    ('S', '')
    >>> Flags.from_letters("X")
    Traceback (most recent call last):
    ...
    ValueError: unknown flag letter 'X' (expected F, G, S)
    """

    foul: bool = False
    gutter: bool = False
    split: bool = False

    LETTERS: ClassVar[dict[str, str]] = {"F": "foul", "G": "gutter", "S": "split"}

    @classmethod
    def from_letters(cls, letters: str) -> Flags:
        """Flags from letters ``F`` (foul), ``G`` (gutter), ``S`` (split), in any order."""
        values = {}
        for letter in letters:
            name = cls.LETTERS.get(letter.upper())
            if name is None:
                raise ValueError(f"unknown flag letter {letter!r} (expected F, G, S)")
            values[name] = True
        return cls(**values)

    @property
    def letters(self) -> str:
        """The set flags as letters, in the fixed order ``FGS``."""
        return "".join(letter for letter, name in self.LETTERS.items() if getattr(self, name))


def format_pins(pins: Iterable[int] | None) -> str:
    """Pins the way a desk attendant says them.

    >>> format_pins({10, 7}), format_pins(set()), format_pins(None)
    ('7-10', 'none', 'unknown')
    """
    if pins is None:
        return "unknown"
    ordered = sorted(pins)
    return "-".join(map(str, ordered)) if ordered else "none"


@dataclass(frozen=True, slots=True)
class BowlerSlot:
    """A bowler as a lane knows them: the scorer's slot number and the name typed in."""

    slot: int
    name: str = ""


@dataclass(frozen=True, kw_only=True, slots=True)
class LaneEvent:
    """Base of every lane event: where it came from, and the feed's sequence number if any."""

    source: str = ""
    seq: int | None = None
    #: The feed line it came from, as text (what a held ball shows the desk); not identity.
    raw: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LaneOpened(LaneEvent):
    """A lane opened for play (a new game or a new set of bowlers), with its bowlers in order."""

    lane: int
    bowlers: tuple[BowlerSlot, ...]
    game: int = 1


@dataclass(frozen=True, slots=True)
class BallRecorded(LaneEvent):
    """One ball, as the scoring system recorded it.

    ``pins`` are the pins credited (0 on a foul); ``standing`` the pins left standing after the
    ball, or ``None`` where the feed does not say (the ``scoresheet`` dialect).  ``frame`` 1-10,
    ``ball`` 1-3 within the frame.
    """

    lane: int
    bowler: int
    game: int
    frame: int
    ball: int
    pins: int
    standing: frozenset[int] | None = None
    flags: Flags = field(default_factory=Flags)
    #: True when the ball was not seen live but recovered from a scoresheet after an outage.
    recovered: bool = False

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        """The ball's identity: (lane, bowler, game, frame, ball) — what the service dedupes on."""
        return (self.lane, self.bowler, self.game, self.frame, self.ball)

    def describe(self) -> str:
        """One line for logs and the commissioner's feed screen."""
        flag_words = [name for letter, name in Flags.LETTERS.items()
                      if letter in self.flags.letters]
        text = (f"lane {self.lane} bowler {self.bowler} game {self.game} frame {self.frame} "
                f"ball {self.ball}: {self.pins} pins")
        if self.standing is not None:
            text += f", standing {format_pins(self.standing)}"
        return ", ".join([text, *flag_words])

    def to_keep(self) -> BallRecorded:
        """This ball as kept for the rest of a night: without its feed line's text, and with
        its standing pins and flags shared with every other ball that has the same ones.

        A night keeps tens of thousands of balls (what the scorer said, for the desk's
        re-sync); a line's text and a frozenset of its own cost ≈ 300 bytes a ball.

        >>> said = BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=7,
        ...                     standing=frozenset({7, 10, 4}), raw="AP1|7|...")
        >>> kept = said.to_keep()
        >>> kept == said, kept.raw, kept.standing is said.to_keep().standing
        (True, '', True)
        """
        return replace(self, raw="", standing=_shared(self.standing), flags=_shared(self.flags))


#: One instance of each standing-pins set and each flag combination (at most 1,024 and 8).
_SHARED: dict[object, object] = {}


def _shared(value: T) -> T:
    return _SHARED.setdefault(value, value)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class BallCorrected(BallRecorded):
    """An earlier ball changed (the desk corrected the scorer): the new values for that ball.

    It replaces the ball with the same ``key``; balls after it are unchanged unless corrected
    too.
    """


@dataclass(frozen=True, slots=True)
class BallRetracted(LaneEvent):
    """A ball withdrawn entirely (manual-entry undo, or a scorer that erased its last ball)."""

    lane: int
    bowler: int
    game: int
    frame: int
    ball: int

    @property
    def key(self) -> tuple[int, int, int, int, int]:
        """The identity of the ball withdrawn, as in :attr:`BallRecorded.key`."""
        return (self.lane, self.bowler, self.game, self.frame, self.ball)


@dataclass(frozen=True, slots=True)
class GameEnded(LaneEvent):
    """A bowler finished a game: the scorer's scratch score and the handicap it added."""

    lane: int
    bowler: int
    game: int
    scratch: int
    handicap: int = 0


@dataclass(frozen=True, slots=True)
class WrongLane(LaneEvent):
    """The desk flagged that this bowler bowled on the wrong lane (a "Holland-daze")."""

    lane: int
    bowler: int


@dataclass(frozen=True, slots=True)
class SheetBall:
    """One ball as a scoresheet shows it: pins credited and flags (no standing pins)."""

    pins: int
    flags: Flags = field(default_factory=Flags)


@dataclass(frozen=True, slots=True)
class ScoresheetSnapshot(LaneEvent):
    """A bowler's whole sheet so far for a game; how the service catches up after an outage.

    >>> sheet = ScoresheetSnapshot(lane=7, bowler=2, game=1, frames=(
    ...     (SheetBall(10),), (SheetBall(7), SheetBall(3)), (SheetBall(0, Flags(gutter=True)),)))
    >>> [(ball.frame, ball.ball, ball.pins) for ball in sheet.ball_events()]
    [(1, 1, 10), (2, 1, 7), (2, 2, 3), (3, 1, 0)]
    >>> [ball.key for ball in sheet.balls_after((2, 1))]
    [(7, 2, 1, 2, 2), (7, 2, 1, 3, 1)]
    """

    lane: int
    bowler: int
    game: int
    frames: tuple[tuple[SheetBall, ...], ...]

    def ball_events(self) -> list[BallRecorded]:
        """Every ball on the sheet as a (recovered) :class:`BallRecorded`, in bowling order."""
        return [
            BallRecorded(lane=self.lane, bowler=self.bowler, game=self.game, frame=frame_no,
                         ball=ball_no, pins=ball.pins, flags=ball.flags, recovered=True,
                         source=self.source, seq=self.seq)
            for frame_no, frame in enumerate(self.frames, start=1)
            for ball_no, ball in enumerate(frame, start=1)
        ]

    def balls_after(self, last_seen: tuple[int, int] | None) -> list[BallRecorded]:
        """The balls after ``last_seen`` = (frame, ball) — what a catch-up must replay, in order.

        ``None`` means nothing of this game was seen: every ball on the sheet.
        """
        balls = self.ball_events()
        if last_seen is None:
            return balls
        return [ball for ball in balls if (ball.frame, ball.ball) > tuple(last_seen)]


@dataclass(frozen=True, slots=True)
class SequenceGap(LaneEvent):
    """Lines ``first_missing``..``last_missing`` never arrived; a snapshot will fill the hole."""

    first_missing: int
    last_missing: int


@dataclass(frozen=True, slots=True)
class Heartbeat(LaneEvent):
    """The scorer is alive (sent when it has nothing else to say)."""


@runtime_checkable
class Dialect(Protocol):
    """Turns raw lines from one feed into lane events.

    One instance per feed (a dialect may keep per-lane state, e.g. to diff scoresheets).
    ``parse`` gets one line without its line ending and returns the events it carries — often
    one, sometimes none — or raises :class:`FeedLineRejected` and changes no state.
    """

    name: ClassVar[str]
    source: str

    def parse(self, line: bytes) -> list[LaneEvent]: ...


@runtime_checkable
class TakesLinesBack(Protocol):
    """A dialect whose state a line changes (sequence numbers, the bowlers' games) and that
    can undo it when the service refuses the line for its content: the line then counts as
    never received (``docs/feed-protocol.md``)."""

    def refused(self, events: list[LaneEvent]) -> None: ...
