"""A scoreboard simulator: realistic games on a set of lanes, as the lane events a scorer sends.

It is how the demo runs, how the tests run, and how a centre tries the product before wiring
a cable.  As a library::

    sim = Simulator(lanes=[1, 2], seed=42, games=3)
    for timed in sim.events():          # TimedEvent(at=seconds from the start, event=...)
        ...
    sim.record                          # every lane event it produced, in order

and :func:`drivers.feed_writer.serve` (the ``alley-poker simulate`` command) writes them as
``apf1`` or ``scoresheet`` lines to a serial URL.  Every ball is rolled through
``alley_poker.bowling.Game``, so the games are valid by construction and scored as a lane
scorer scores them.

>>> sim = Simulator(lanes=[5], bowlers_per_lane=2, seed=1, games=1)
>>> events = [timed.event for timed in sim.events()]
>>> type(events[0]).__name__, events[0].lane, [slot.name for slot in events[0].bowlers]
('LaneOpened', 5, ['IVY', 'JO'])
>>> ended = [event for event in events if isinstance(event, GameEnded)]
>>> [(event.bowler, event.game) for event in ended]
[(1, 1), (2, 1)]
>>> all(100 <= event.scratch <= 300 for event in ended) or ended
True
>>> sim.record == events
True

``break_between_games`` bowls the games as a league night does: every lane finishes a game,
then all of them start the next together after a break of that many ball-times (bowlers check
the sheet, get a drink).  Without it each lane goes straight on at its own pace:

>>> def game_times(sim):
...     first, last = {}, {}
...     for timed in sim.events():
...         if isinstance(timed.event, BallRecorded):
...             key = timed.event.game
...             first.setdefault(key, timed.at)
...             last[key] = timed.at
...     return first, last
>>> first, last = game_times(Simulator(lanes=[1, 2], seed=3, games=2, break_between_games=10))
>>> first[2] - last[1] >= 10 * 25.0    # no ball of game 2 until the break after game 1
True
>>> first, last = game_times(Simulator(lanes=[1, 2], seed=3, games=2))
>>> first[2] < last[1]                 # on their own, one lane starts game 2 while one bowls
True
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field

from alley_poker.bowling import Ball, Game
from alley_poker.odds.ball_model import BowlerProfile, bowl_ball
from drivers.base import (
    BallRecorded,
    BowlerSlot,
    Flags,
    GameEnded,
    LaneEvent,
    LaneOpened,
    ScoresheetSnapshot,
    SheetBall,
    WrongLane,
)

__all__ = ["LaneSetup", "Simulator", "TimedEvent", "bowl_ball", "parse_lanes"]

#: Names for generated bowlers, one initial each so lanes read easily in logs.
BOWLER_NAMES = ("AVA", "BEN", "CAL", "DOT", "ED", "FAY", "GUS", "HAL", "IVY", "JO", "KIT",
                "LEN", "MAE", "NED", "OLA", "PIP", "QUIN", "ROY", "SAL", "TED")


@dataclass(frozen=True)
class TimedEvent:
    """A lane event and when it happens, in simulated seconds from the start."""

    at: float
    event: LaneEvent


@dataclass(frozen=True)
class LaneSetup:
    """One lane and the bowlers on it, in bowling order (slot 1 first)."""

    lane: int
    bowlers: tuple[BowlerProfile, ...]


@dataclass
class SimulatedGame:
    """One bowler's game as the simulator bowled it."""

    lane: int
    bowler: int
    name: str
    game_number: int
    game: Game = field(default_factory=Game)


def parse_lanes(text: str) -> list[int]:
    """Lane numbers from ``1-4``, ``1,3,5`` or ``1-2,7``.

    >>> parse_lanes("1-4"), parse_lanes("3,7-8")
    ([1, 2, 3, 4], [3, 7, 8])
    >>> parse_lanes("4-1")
    Traceback (most recent call last):
    ...
    ValueError: lanes '4-1': a range runs low to high, like 1-4
    """
    lanes: list[int] = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"lanes {text!r}: write lane numbers and ranges, like 1-4 or 1,3")
        first, last = int(low), int(high) if dash else int(low)
        if first > last:
            raise ValueError(f"lanes {text!r}: a range runs low to high, like 1-4")
        if first < 1:
            raise ValueError(f"lanes {text!r}: lanes are numbered from 1")
        lanes.extend(lane for lane in range(first, last + 1) if lane not in lanes)
    return lanes


class Simulator:
    """Bowls ``games`` games on each lane, bowlers taking turns frame by frame.

    ``lanes`` are lane numbers (bowlers are generated: ``bowlers_per_lane`` of them with
    averages spread over ``averages``) or :class:`LaneSetup` objects.  ``ball_seconds`` is the
    typical time between balls on one lane; lanes start a little apart and run side by side.
    ``snapshots`` adds a :class:`ScoresheetSnapshot` after every frame of every bowler (what a
    scorer configured to re-send its sheet does); ``wrong_lane_rate`` is the chance per game
    that the desk flags a bowler for bowling on the wrong lane.  ``break_between_games`` (in
    ball-times; None, the default, lets each lane go straight on) makes every lane wait for
    all of them to finish a game, then start the next together after that break.
    """

    def __init__(
        self,
        lanes: Sequence[int] | Sequence[LaneSetup],
        *,
        seed: int | None = None,
        games: int = 3,
        bowlers_per_lane: int = 4,
        averages: tuple[int, int] = (120, 210),
        ball_seconds: float = 25.0,
        snapshots: bool = False,
        wrong_lane_rate: float = 0.0,
        break_between_games: float | None = None,
    ):
        if games < 1:
            raise ValueError("games: at least 1")
        if break_between_games is not None and not break_between_games >= 0:
            raise ValueError("break_between_games: ball-times, 0 or more (or None)")
        if not 1 <= bowlers_per_lane <= 8:
            raise ValueError("bowlers_per_lane: 1 to 8")
        self.rng = random.Random(seed)
        self.games_per_lane = games
        self.ball_seconds = ball_seconds
        self.snapshots = snapshots
        self.wrong_lane_rate = wrong_lane_rate
        self.break_between_games = break_between_games
        self.lanes = [lane if isinstance(lane, LaneSetup)
                      else self._generated_lane(lane, bowlers_per_lane, averages)
                      for lane in lanes]
        if len({setup.lane for setup in self.lanes}) != len(self.lanes):
            raise ValueError("a lane is listed twice")
        #: Every lane event produced so far, in the order :meth:`events` yielded them.
        self.record: list[LaneEvent] = []
        #: Every game bowled so far (complete once its GameEnded is out).
        self.games_bowled: list[SimulatedGame] = []

    def _generated_lane(self, lane: int, count: int, averages: tuple[int, int]) -> LaneSetup:
        low, high = averages
        bowlers = []
        for index in range(count):
            name = BOWLER_NAMES[((lane - 1) * count + index) % len(BOWLER_NAMES)]
            average = self.rng.randint(low, high) if count > 1 else (low + high) // 2
            bowlers.append(BowlerProfile.for_average(name, average))
        return LaneSetup(lane, tuple(bowlers))

    @property
    def balls(self) -> list[BallRecorded]:
        """Every ball bowled so far."""
        return [event for event in self.record if type(event) is BallRecorded]

    def events(self) -> Iterator[TimedEvent]:
        """Every lane's events merged in time order (lanes bowl side by side)."""
        queue: list[tuple[float, int, int, _LaneTimeline, TimedEvent | _GameDone]] = []
        for order, setup in enumerate(self.lanes):
            timeline = self._lane_timeline(setup, start=self.rng.uniform(0, self.ball_seconds))
            first = next(timeline, None)
            if first is not None:
                heapq.heappush(queue, (first.at, order, 0, timeline, first))
        counter = 1
        #: Lanes done with a game, waiting for the others (``break_between_games`` only).
        waiting: list[tuple[int, _LaneTimeline, _GameDone]] = []
        while queue or waiting:
            if not queue:   # every lane has finished the game: the next starts together
                restart = (max(done.at for _, _, done in waiting)
                           + self.break_between_games * self.ball_seconds)
                for order, timeline, _ in waiting:
                    following = timeline.send(restart)
                    heapq.heappush(queue, (following.at, order, counter, timeline, following))
                    counter += 1
                waiting.clear()
                continue
            _, order, _, timeline, timed = heapq.heappop(queue)
            if isinstance(timed, _GameDone):
                waiting.append((order, timeline, timed))
                continue
            self.record.append(timed.event)
            yield timed
            following = next(timeline, None)
            if following is not None:
                heapq.heappush(queue, (following.at, order, counter, timeline, following))
                counter += 1

    def _lane_timeline(self, setup: LaneSetup, start: float) -> _LaneTimeline:
        clock = start
        slots = tuple(BowlerSlot(slot, profile.name)
                      for slot, profile in enumerate(setup.bowlers, start=1))
        for game_number in range(1, self.games_per_lane + 1):
            yield TimedEvent(clock, LaneOpened(lane=setup.lane, bowlers=slots, game=game_number))
            games = [SimulatedGame(setup.lane, slot.slot, slot.name, game_number)
                     for slot in slots]
            self.games_bowled.extend(games)
            wrong_lane_at = {
                index: self.rng.randint(1, 10) for index in range(len(games))
                if self.rng.random() < self.wrong_lane_rate
            }
            for frame in range(1, 11):
                for index, (profile, played) in enumerate(zip(setup.bowlers, games,
                                                              strict=True)):
                    while played.game.current_frame == frame:
                        clock += self.rng.uniform(0.6, 1.4) * self.ball_seconds
                        ball = bowl_ball(profile, played.game, self.rng)
                        yield TimedEvent(clock, _ball_event(played, ball))
                    if wrong_lane_at.get(index) == frame:
                        yield TimedEvent(clock, WrongLane(lane=setup.lane, bowler=played.bowler))
                    if self.snapshots:
                        yield TimedEvent(clock, _snapshot(played))
                    if played.game.is_complete:
                        yield TimedEvent(clock, GameEnded(
                            lane=setup.lane, bowler=played.bowler, game=game_number,
                            scratch=played.game.score(), handicap=profile.handicap))
            if self.break_between_games is not None and game_number < self.games_per_lane:
                clock = yield _GameDone(clock)  # events() answers when every lane starts
            else:
                clock += self.ball_seconds * 4  # the scorer resets between games


@dataclass(frozen=True)
class _GameDone:
    """A lane has finished a game and waits for the others (never yielded by events())."""

    at: float


#: A lane's events in time order; with ``break_between_games`` it pauses at each game's end
#: (a :class:`_GameDone`) and is sent the clock the next game starts at.
_LaneTimeline = Generator["TimedEvent | _GameDone", float, None]


def _ball_event(played: SimulatedGame, ball: Ball) -> BallRecorded:
    return BallRecorded(
        lane=played.lane, bowler=played.bowler, game=played.game_number, frame=ball.frame,
        ball=ball.ball, pins=ball.pins, standing=ball.standing,
        flags=Flags(foul=ball.foul, gutter=ball.gutter, split=ball.split))


def _snapshot(played: SimulatedGame) -> ScoresheetSnapshot:
    frames = tuple(tuple(SheetBall(ball.pins, Flags(ball.foul, ball.gutter, ball.split))
                         for ball in frame.balls) for frame in played.game.frames)
    return ScoresheetSnapshot(lane=played.lane, bowler=played.bowler,
                              game=played.game_number, frames=frames)
