"""``scoresheet``: scorers that print each bowler's frame string after every ball.

A line is ``<lane> <slot> <name> <game> : <sheet>``, the sheet in the notation of
:mod:`drivers.dialects.notation`::

    7 2 ANN 1 : X 7/ 9- S8/ G7

The dialect remembers the last sheet of every (lane, bowler, game) and diffs the next one
against it: new balls become :class:`BallRecorded` (all but the newest marked ``recovered``
when a line was missed), a changed earlier ball :class:`BallCorrected`, an erased last ball
:class:`BallRetracted`; a sheet that reaches the end of the tenth frame also gives
:class:`GameEnded` (scratch from the sheet; this dialect carries no handicap).  The first
sheet seen for a game beyond its first ball (the reader started mid-game) comes out as a
:class:`ScoresheetSnapshot`, so the service replays what it has not seen.

>>> dialect = ScoresheetDialect(source="lanes")
>>> [e.describe() for e in dialect.parse(b"7 2 ANN 1 : X")]
['lane 7 bowler 2 game 1 frame 1 ball 1: 10 pins']
>>> [e.describe() for e in dialect.parse(b"7 2 ANN 1 : X 7/ 9")]  # a line was missed
['lane 7 bowler 2 game 1 frame 2 ball 1: 7 pins', 'lane 7 bowler 2 game 1 frame 2 ball 2: 3 pins', \
'lane 7 bowler 2 game 1 frame 3 ball 1: 9 pins']
>>> [type(e).__name__ for e in dialect.parse(b"7 2 ANN 1 : X 8/ 9")]
['BallCorrected', 'BallCorrected']
"""

from __future__ import annotations

import dataclasses
import re

from alley_poker.bowling import BowlingError, Game
from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    DuplicateLine,
    FeedLineRejected,
    GameEnded,
    LaneEvent,
    ScoresheetSnapshot,
)
from drivers.dialects.notation import SheetError, parse_sheet
from drivers.dialects.registry import register_dialect

MAX_LINE_BYTES = 160
_LINE = re.compile(
    r"\s*(?P<lane>\d{1,3})\s+(?P<slot>\d{1,2})\s+(?P<name>[!-~]{1,24})\s+(?P<game>\d{1,2})"
    r"\s*:\s*(?P<sheet>[ X/\-GF0-9S()]*?)\s*"
)

GameKey = tuple[int, int, int]


def format_line(lane: int, bowler: int, name: str, game: int, sheet: str) -> bytes:
    """One scoresheet line, as the simulator writes it.

    >>> format_line(7, 2, "ANN", 1, "X 7/")
    b'7 2 ANN 1 : X 7/\\r\\n'
    """
    return f"{lane} {bowler} {name or '-'} {game} : {sheet}\r\n".encode("ascii")


def _sheet_balls(frames) -> list[BallRecorded]:
    return ScoresheetSnapshot(lane=0, bowler=0, game=0, frames=frames).ball_events()


@register_dialect
class ScoresheetDialect:
    """Diffs successive scoresheet lines of each bowler into ball events."""

    name = "scoresheet"
    MAX_SHEETS = 4096

    def __init__(self, source: str = "feed"):
        self.source = source
        self._sheets: dict[GameKey, list[BallRecorded]] = {}

    def parse(self, line: bytes) -> list[LaneEvent]:
        """The events a new sheet implies; raises :class:`FeedLineRejected`, state unchanged."""
        raw = bytes(line)
        if len(raw) > MAX_LINE_BYTES:
            raise FeedLineRejected(f"line too long: {len(raw)} bytes", raw)
        try:
            text = raw.rstrip(b"\r\n").decode("ascii")
        except UnicodeDecodeError:
            raise FeedLineRejected("non-ASCII bytes in the line", raw) from None
        match = _LINE.fullmatch(text)
        if match is None:
            raise FeedLineRejected("expected '<lane> <slot> <name> <game> : <sheet>'", raw)
        lane, bowler, game = (int(match[field]) for field in ("lane", "slot", "game"))
        if min(lane, bowler, game) < 1:
            raise FeedLineRejected("lane, slot and game start at 1", raw)
        try:
            frames = parse_sheet(match["sheet"])
            scored = Game.from_rolls(
                {"pins": b.pins, "foul": b.flags.foul, "gutter": b.flags.gutter,
                 "split": True if b.flags.split else None}
                for frame in frames for b in frame)
        except (SheetError, BowlingError) as exc:
            raise FeedLineRejected(f"impossible sheet: {exc}", raw) from None
        key = (lane, bowler, game)
        new = [dataclasses.replace(ball, lane=lane, bowler=bowler, game=game,
                                   source=self.source, recovered=False)
               for ball in _sheet_balls(frames)]
        old = self._sheets.get(key)
        if old is None and len(new) > 1:
            events: list[LaneEvent] = [ScoresheetSnapshot(
                lane=lane, bowler=bowler, game=game, frames=frames, source=self.source)]
        else:
            events = self._diff(old or [], new, raw)
        if scored.is_complete:
            events.append(GameEnded(lane=lane, bowler=bowler, game=game,
                                    scratch=scored.score(), source=self.source))
        self._sheets[key] = new
        # A service runs for weeks: forget the oldest sheets, long finished by then.
        while len(self._sheets) > self.MAX_SHEETS:
            self._sheets.pop(next(iter(self._sheets)))
        return events

    def _diff(self, old: list[BallRecorded], new: list[BallRecorded],
              raw: bytes) -> list[LaneEvent]:
        events: list[LaneEvent] = []
        for before, after in zip(old, new, strict=False):
            if (before.pins, before.flags) != (after.pins, after.flags):
                events.append(BallCorrected(**_fields(after)))
        for ball in reversed(old[len(new):]):
            events.append(BallRetracted(lane=ball.lane, bowler=ball.bowler, game=ball.game,
                                        frame=ball.frame, ball=ball.ball, source=self.source))
        added = new[len(old):]
        for index, ball in enumerate(added):
            missed = index < len(added) - 1
            events.append(dataclasses.replace(ball, recovered=missed))
        if not events:
            raise DuplicateLine("sheet unchanged (a re-send)", raw)
        return events


def _fields(ball: BallRecorded) -> dict:
    return {field.name: getattr(ball, field.name) for field in dataclasses.fields(ball)}
