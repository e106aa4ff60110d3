"""``live-board``: the JSON a scorer's spectator page serves, read by the HTTP poll feed.

Some scoring systems publish live scores on the web for spectators.  The shape below is the
one documented publicly for a hall's live endpoint (``docs/feeds.md``), **as we understand
it; not yet confirmed against a live centre**::

    {"updated": 1718040000.5,                 # the scorer's clock at its last update (optional)
     "lanes": [
       {"lane": 3,
        "bowlers": [                          # in bowling order; the position is the slot
          {"name": "ANN",
           "games": [[10, 0, 7, 259, ...]],   # per game: 21 ball slots
           "totals": [[20, 39, null, ...]]}   # per game: 10 running totals (optional)
        ]}]}

A game is 21 slots: two per frame for frames 1-9, three for the tenth.  A slot is ``-1``
until its ball is bowled; slots fill in order.  The low byte of a slot is the pins the ball
knocked down, bit 256 marks a split.  Bits 512 (foul) and 1024 (gutter) are our reading of
the flags the page leaves out of the public notes; other bits are ignored.  A strike's
unused second slot (frames 1-9) is padding whatever it holds.  A bowler is identified by
position, never by name: a substitute who bowls two slots appears twice.

Decoding (:func:`decode_board`) gives a :class:`LiveBoard` of played balls, checked by our
own ten-pin scoring: an impossible game or a broken shape raises :class:`BoardRejected`
naming where, and nothing is taken from that snapshot.  Where the page shows running totals,
:meth:`BoardGame.rescore_problem` says whether our score of the decoded balls agrees.
:func:`encode_board` writes the same shape (what the simulator serves).

>>> from alley_poker.bowling import Game
>>> body = encode_board({3: [("ANN", [Game.from_rolls([10, 7, 3, {"pins": 8, "split": True}])])]})
>>> board = decode_board(body)
>>> game = board.lanes[3].bowlers[0].games[0]
>>> [(ball.frame, ball.ball, ball.pins, ball.flags.letters) for ball in game.balls]
[(1, 1, 10, ''), (2, 1, 7, ''), (2, 2, 3, ''), (3, 1, 8, 'S')]
>>> game.totals[:3], game.rescore_problem() is None
((20, 38, None), True)
>>> decode_board(b'{"lanes": [{"lane": 1, "bowlers": [{"name": "X", "games": [[11]]}]}]}')
Traceback (most recent call last):
...
drivers.dialects.live_board.BoardRejected: lanes[0].bowlers[0].games[0]: 21 ball slots \
expected, the page has 1: b'{"lanes": [{"lane": 1, "bowlers": [{"name": "X", "games": [[11]]}]}]}'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alley_poker.bowling import BowlingError, Game
from drivers.base import FeedLineRejected, Flags

#: The dialect's name in ``alley.toml`` (``dialect = "live-board"`` on an http feed).
NAME = "live-board"
SLOTS_PER_GAME = 21
FRAMES = 10
EMPTY = -1
SPLIT_BIT, FOUL_BIT, GUTTER_BIT = 256, 512, 1024
#: A page larger than this is not a live board (a lane list of a big centre is ~50 kB).
MAX_BODY_BYTES = 2_000_000


class BoardRejected(FeedLineRejected):
    """A snapshot that cannot be used; ``reason`` names the lane, bowler, game and slot."""


@dataclass(frozen=True, slots=True)
class BoardBall:
    """One bowled ball as the page shows it."""

    frame: int
    ball: int
    pins: int
    flags: Flags


@dataclass(frozen=True, slots=True)
class BoardGame:
    """One bowler's game: the balls bowled so far and the page's running totals, if shown."""

    number: int
    balls: tuple[BoardBall, ...]
    totals: tuple[int | None, ...] | None = None

    def scored(self) -> Game:
        """The balls rolled through our own ten-pin scoring."""
        return Game.from_rolls({"pins": b.pins, "foul": b.flags.foul, "gutter": b.flags.gutter,
                                "split": True if b.flags.split else None} for b in self.balls)

    def rescore_problem(self) -> str | None:
        """None when our score of the balls agrees with every running total the page shows;
        else the first frame where it does not (a lost split bit, a mis-read slot)."""
        if self.totals is None:
            return None
        ours = [frame.score for frame in self.scored().frames]
        for index, shown in enumerate(self.totals):
            if shown is None:
                continue  # the page has not totalled this frame (yet)
            mine = ours[index] if index < len(ours) else None
            if mine != shown:
                said = "no total yet" if mine is None else str(mine)
                return (f"game {self.number} frame {index + 1}: the page's running total is "
                        f"{shown}, its balls score {said}")
        return None


@dataclass(frozen=True, slots=True)
class BoardBowler:
    """A bowler on a lane: ``slot`` is the position in the page's list (1 first)."""

    slot: int
    name: str
    games: tuple[BoardGame, ...]


@dataclass(frozen=True, slots=True)
class BoardLane:
    lane: int
    bowlers: tuple[BoardBowler, ...]


@dataclass(frozen=True, slots=True)
class LiveBoard:
    """One decoded snapshot: lanes by number, and the scorer's own update time if shown."""

    lanes: Mapping[int, BoardLane]
    updated: float | None = None


class _Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class _Bowler(_Shape):
    name: str = ""
    games: list[list[int]] = []
    totals: list[list[int | None]] | None = None


class _Lane(_Shape):
    lane: int = Field(ge=1, le=999)
    bowlers: list[_Bowler] = []


class _Board(_Shape):
    lanes: list[_Lane]
    updated: float | int | None = None


def _where(loc: Sequence[int | str]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def decode_board(body: bytes) -> LiveBoard:
    """The board in ``body``; raises :class:`BoardRejected` for anything it cannot use."""
    raw = bytes(body)
    if len(raw) > MAX_BODY_BYTES:
        raise BoardRejected(f"the page is {len(raw)} bytes, more than a live board", raw)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BoardRejected(f"not JSON: {exc}", raw) from None
    try:
        shape = _Board.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise BoardRejected(f"{_where(first['loc']) or '(top level)'}: {first['msg']}",
                            raw) from None
    lanes: dict[int, BoardLane] = {}
    for lane_index, lane in enumerate(shape.lanes):
        if lane.lane in lanes:
            raise BoardRejected(f"lanes[{lane_index}]: lane {lane.lane} is listed twice", raw)
        bowlers = []
        for slot, bowler in enumerate(lane.bowlers, start=1):
            where = f"lanes[{lane_index}].bowlers[{slot - 1}]"
            totals = bowler.totals or []
            games = tuple(
                _decode_game(number, slots, totals[number - 1] if number <= len(totals)
                             else None, f"{where}.games[{number - 1}]", raw)
                for number, slots in enumerate(bowler.games, start=1))
            bowlers.append(BoardBowler(slot, bowler.name, games))
        lanes[lane.lane] = BoardLane(lane.lane, tuple(bowlers))
    return LiveBoard(lanes, None if shape.updated is None else float(shape.updated))


def slot_index(frame: int, ball: int) -> int:
    """Where ball ``ball`` of ``frame`` sits among a game's 21 slots.

    >>> slot_index(1, 1), slot_index(9, 2), slot_index(10, 3)
    (0, 17, 20)
    """
    return 2 * (frame - 1) + (ball - 1)


def _decode_game(number: int, slots: list[int], totals: list[int | None] | None, where: str,
                 raw: bytes) -> BoardGame:
    if len(slots) != SLOTS_PER_GAME:
        raise BoardRejected(f"{where}: {SLOTS_PER_GAME} ball slots expected, the page has "
                            f"{len(slots)}", raw)
    if totals is not None and len(totals) != FRAMES:
        raise BoardRejected(f"{where}: {FRAMES} running totals expected, the page has "
                            f"{len(totals)}", raw)
    game = Game()
    balls: list[BoardBall] = []
    used: set[int] = set()
    while not game.is_complete:
        frame, ball = game.current_frame, game.current_ball
        assert frame is not None and ball is not None
        index = slot_index(frame, ball)
        value = slots[index]
        if value == EMPTY:
            break
        if value < 0:
            raise BoardRejected(f"{where}: slot {index + 1} holds {value}, not a ball", raw)
        flags = Flags(foul=bool(value & FOUL_BIT), gutter=bool(value & GUTTER_BIT),
                      split=bool(value & SPLIT_BIT))
        try:
            game.roll(value & 0xFF, foul=flags.foul, gutter=flags.gutter,
                      split=True if flags.split else None)
        except BowlingError as exc:
            raise BoardRejected(f"{where}: slot {index + 1} (frame {frame} ball {ball}): "
                                f"{exc}", raw) from None
        used.add(index)
        balls.append(BoardBall(frame, ball, value & 0xFF, flags))
    padding = {slot_index(b.frame, 2) for b in balls if b.frame < FRAMES and b.pins == 10
               and b.ball == 1 and not b.flags.foul}
    for index, value in enumerate(slots):
        if index not in used and index not in padding and value != EMPTY:
            raise BoardRejected(f"{where}: slot {index + 1} holds {value} but the balls "
                                "before it are not all bowled (slots fill in order)", raw)
    return BoardGame(number, tuple(balls), None if totals is None else tuple(totals))


def slot_value(pins: int, flags: Flags) -> int:
    """A ball as one slot.

    >>> slot_value(8, Flags(split=True)), slot_value(0, Flags(foul=True))
    (264, 512)
    """
    return pins | SPLIT_BIT * flags.split | FOUL_BIT * flags.foul | GUTTER_BIT * flags.gutter


def game_slots(game: Game, *, pad: int = 0) -> tuple[list[int], list[int | None]]:
    """The 21 slots and 10 running totals of ``game`` (a strike's unused slot holds ``pad``)."""
    slots = [EMPTY] * SLOTS_PER_GAME
    for ball in game.balls:
        slots[slot_index(ball.frame, ball.ball)] = slot_value(
            ball.pins, Flags(foul=ball.foul, gutter=ball.gutter, split=ball.split))
        if ball.frame < FRAMES and ball.is_strike:
            slots[slot_index(ball.frame, 2)] = pad
    totals: list[int | None] = [frame.score for frame in game.frames]
    return slots, totals + [None] * (FRAMES - len(totals))


def encode_board(lanes: Mapping[int, Sequence[tuple[str, Sequence[Game]]]], *,
                 updated: float | None = None, totals: bool = True) -> bytes:
    """A live board for ``lanes``: lane number -> bowlers in order, each (name, games)."""
    board: dict[str, object] = {"lanes": []}
    if updated is not None:
        board["updated"] = round(updated, 3)
    for lane, bowlers in sorted(lanes.items()):
        shown = []
        for name, games in bowlers:
            encoded = [game_slots(game) for game in games]
            entry: dict[str, object] = {"name": name, "games": [s for s, _ in encoded]}
            if totals:
                entry["totals"] = [t for _, t in encoded]
            shown.append(entry)
        board["lanes"].append({"lane": lane, "bowlers": shown})  # type: ignore[attr-defined]
    return json.dumps(board, separators=(",", ":")).encode()


class LiveBoardDialect:
    """The dialect object an HTTP poll feed holds: its name and how it reads a page.

    >>> LiveBoardDialect(source="page").decode(b'{"lanes": []}').lanes
    {}
    """

    name = NAME

    def __init__(self, source: str = "page"):
        self.source = source

    @staticmethod
    def decode(body: bytes) -> LiveBoard:
        return decode_board(body)


#: Dialects a poll feed can read, by the name ``alley.toml`` gives them.
PAGE_DIALECTS: dict[str, type[LiveBoardDialect]] = {NAME: LiveBoardDialect}
