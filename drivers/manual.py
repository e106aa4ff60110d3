"""Manual entry: the same lane events, from the commissioner tablet or the lane kiosk.

Used for a lane with no feed, or while its feed is down.  The screen shows a pin diagram;
the person taps the pins still **standing** after the ball (or the foul / gutter button), and
:meth:`ManualEntry.ball` works out the pins, the frame and ball, and whether it left a split
(``bowling.is_split``).  Every ball goes through ``bowling.Game`` first, so impossible input
is refused with a message for the screen and nothing is emitted.

Undo withdraws the last ball with a :class:`~drivers.base.BallRetracted` event (a retraction,
not a correction: after an undo the ball simply never happened, and the next tap is entered
as that ball again).

>>> events = []
>>> entry = ManualEntry(events.append)
>>> entry.open_lane(3, ["ANN", "BOB"]).bowlers[1].name
'BOB'
>>> entry.ball(3, 1, standing=[7, 10]).describe()
'lane 3 bowler 1 game 1 frame 1 ball 1: 8 pins, standing 7-10, split'
>>> entry.ball(3, 1, standing=[7, 8])
Traceback (most recent call last):
...
drivers.manual.ManualEntryError: frame 1 ball 2: pin 8 was already down and cannot stand again \
(standing before this ball: 7-10)
>>> entry.ball(3, 1, standing=[]).pins        # picked up the split
2
>>> undone = entry.undo(3, 1)
>>> type(undone).__name__, undone.frame, undone.ball
('BallRetracted', 1, 2)
>>> [type(event).__name__ for event in events]
['LaneOpened', 'BallRecorded', 'BallRecorded', 'BallRetracted']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from itertools import count
from typing import TypeVar

from alley_poker.bowling import PINS, BowlingError, Game
from drivers.base import (
    BallRecorded,
    BallRetracted,
    BowlerSlot,
    Flags,
    GameEnded,
    LaneEvent,
    LaneOpened,
    WrongLane,
)

_Event = TypeVar("_Event", bound=LaneEvent)


class ManualEntryError(ValueError):
    """Input the screen must refuse; the message is for the person holding the tablet."""


class _BowlerGame:
    def __init__(self, game_number: int):
        self.number = game_number
        self.game = Game()
        self.balls: list[BallRecorded] = []


class ManualEntry:
    """Turns taps into lane events for one or more lanes; ``on_event`` gets each event."""

    def __init__(self, on_event: Callable[[LaneEvent], None], *, source: str = "manual",
                 handicaps: dict[tuple[int, int], int] | None = None):
        self.on_event = on_event
        self.source = source
        self.handicaps = dict(handicaps or {})
        self._lanes: dict[int, tuple[BowlerSlot, ...]] = {}
        self._games: dict[tuple[int, int], _BowlerGame] = {}
        self._seq = count(1)

    def open_lane(self, lane: int, bowlers: Sequence[str], *, game: int = 1) -> LaneOpened:
        """Start ``game`` on ``lane`` with ``bowlers`` (names, in bowling order)."""
        if lane < 1:
            raise ManualEntryError(f"lane {lane}: lanes are numbered from 1")
        if not bowlers:
            raise ManualEntryError(f"lane {lane}: at least one bowler")
        slots = tuple(BowlerSlot(slot, name) for slot, name in enumerate(bowlers, start=1))
        self._lanes[lane] = slots
        for slot in slots:
            self._games[(lane, slot.slot)] = _BowlerGame(game)
        return self._emit(LaneOpened(lane=lane, bowlers=slots, game=game))

    def ball(self, lane: int, bowler: int, *, standing: Iterable[int] | None = None,
             foul: bool = False, gutter: bool = False) -> BallRecorded:
        """Record one ball from the pins left ``standing`` (or the foul / gutter button).

        A foul or gutter ball needs no pins tapped: the pins stay as they were.  When the
        ball ends the bowler's game, a :class:`GameEnded` follows it.
        """
        played = self._game_for(lane, bowler)
        before = played.game.standing_pins
        assert before is not None  # manual entry always knows the pins
        try:
            if foul or gutter:
                ball = played.game.roll(0, foul=foul, gutter=gutter and not foul,
                                        standing=before)
            else:
                if standing is None:
                    raise ManualEntryError("tap the pins left standing (none for a strike "
                                           "or spare), or press foul or gutter")
                left = frozenset(standing)
                if not left <= PINS:
                    raise ManualEntryError(f"pins are numbered 1 to 10, not "
                                           f"{sorted(left - PINS)}")
                ball = played.game.roll(len(before) - len(left), standing=left)
        except BowlingError as exc:
            raise ManualEntryError(str(exc)) from None
        event = BallRecorded(
            lane=lane, bowler=bowler, game=played.number, frame=ball.frame, ball=ball.ball,
            pins=ball.pins, standing=ball.standing,
            flags=Flags(foul=ball.foul, gutter=ball.gutter, split=ball.split))
        event = self._emit(event)
        played.balls.append(event)
        if played.game.is_complete:
            self._emit(GameEnded(lane=lane, bowler=bowler, game=played.number,
                                 scratch=played.game.score(),
                                 handicap=self.handicaps.get((lane, bowler), 0)))
        return event

    def undo(self, lane: int, bowler: int) -> BallRetracted:
        """Withdraw this bowler's last ball (emits :class:`BallRetracted`)."""
        played = self._game_for(lane, bowler, allow_complete=True)
        if not played.balls:
            raise ManualEntryError(f"lane {lane} bowler {bowler}: no ball to undo")
        last = played.balls.pop()
        played.game = Game()
        for ball in played.balls:
            played.game.roll(ball.pins, standing=ball.standing, foul=ball.flags.foul,
                             gutter=ball.flags.gutter)
        return self._emit(BallRetracted(lane=lane, bowler=bowler, game=played.number,
                                        frame=last.frame, ball=last.ball))

    def wrong_lane(self, lane: int, bowler: int) -> WrongLane:
        """The commissioner flags a bowler for bowling on the wrong lane."""
        self._game_for(lane, bowler, allow_complete=True)
        return self._emit(WrongLane(lane=lane, bowler=bowler))

    def _game_for(self, lane: int, bowler: int, *, allow_complete: bool = False) -> _BowlerGame:
        played = self._games.get((lane, bowler))
        if played is None:
            if lane not in self._lanes:
                raise ManualEntryError(f"lane {lane} is not open for manual entry")
            raise ManualEntryError(f"lane {lane} has no bowler {bowler} "
                                   f"(bowlers 1-{len(self._lanes[lane])})")
        if played.game.is_complete and not allow_complete:
            raise ManualEntryError(f"lane {lane} bowler {bowler}: game {played.number} is "
                                   "finished; open the lane for the next game")
        return played

    def _emit(self, event: _Event) -> _Event:
        stamped = dataclasses.replace(event, source=self.source, seq=next(self._seq))
        self.on_event(stamped)
        return stamped
