"""Each bowler's game as a feed has reported it, checked ball by ball with ``bowling.Game``.

Dialects and manual entry use :class:`GameBook` to refuse impossible balls (a second ball of
8 after a 7, a third ball in frame 4, a pin that stands up again) before emitting anything.
It follows a game from its first ball, or from a scoresheet snapshot; a ball that arrives
after a hole (the reader joined mid-game, or lines were lost) is accepted on its own field
checks, and checking resumes at the next snapshot or the next game.

>>> book = GameBook()
>>> first = BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=7,
...                      standing=frozenset({4, 7, 10}))
>>> book.record(first).flags.split      # computed by bowling.is_split: 4-7-10 is a split
True
>>> book.record(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=2, pins=5))
Traceback (most recent call last):
...
drivers.lanegame.ImpossibleBall: frame 1 has only 3 pins standing; 5 cannot fall
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from alley_poker.bowling import Ball, BowlingError, Game
from drivers.base import BallRecorded, Flags, ScoresheetSnapshot

GameKey = tuple[int, int, int]  # (lane, bowler, game)


class ImpossibleBall(ValueError):
    """A ball that cannot follow the balls already recorded; the message says why."""


class AlreadyRecorded(ValueError):
    """A ball that was already recorded with exactly these values (a harmless repeat)."""


def _roll(game: Game, event: BallRecorded) -> Ball:
    return game.roll(
        event.pins,
        standing=event.standing,
        foul=event.flags.foul,
        gutter=event.flags.gutter,
        split=True if event.flags.split else None,
    )


def _replay(balls: Sequence[BallRecorded]) -> tuple[Game, list[BallRecorded]]:
    """A game from balls; raises BowlingError.  Returns the balls with split flags computed."""
    game = Game()
    normalized = []
    for event in balls:
        ball = _roll(game, event)
        if (ball.frame, ball.ball) != (event.frame, event.ball):
            raise BowlingError(
                f"frame {event.frame} ball {event.ball} cannot be next; the next ball is "
                f"frame {ball.frame} ball {ball.ball}"
            )
        normalized.append(_with_bowling_flags(event, ball))
    return game, normalized


def _with_bowling_flags(event: BallRecorded, ball: Ball) -> BallRecorded:
    flags = Flags(foul=ball.foul, gutter=ball.gutter, split=ball.split)
    return event if flags == event.flags else dataclasses.replace(event, flags=flags)


class _TrackedGame:
    __slots__ = ("balls", "game")

    def __init__(self) -> None:
        self.game = Game()
        self.balls: list[BallRecorded] = []

    @property
    def next_position(self) -> tuple[int, int] | None:
        if self.game.is_complete:
            return None
        return (self.game.current_frame, self.game.current_ball)  # type: ignore[return-value]


class GameBook:
    """Games per (lane, bowler, game number); checks each ball against what came before."""

    #: Games remembered; far more than a league night bowls on the biggest centre.
    MAX_GAMES = 4096

    def __init__(self) -> None:
        self._games: dict[GameKey, _TrackedGame] = {}
        #: Games seen from a point after their first ball: not checked until resynchronised.
        self._untracked: set[GameKey] = set()

    def game(self, key: GameKey) -> Game | None:
        """The checked game for ``key`` (None when unknown or not followed)."""
        tracked = self._games.get(key)
        return tracked.game if tracked else None

    def record(self, event: BallRecorded) -> BallRecorded:
        """Check ``event`` and record it; returns it with the split flag bowling computed.

        Raises :class:`ImpossibleBall`, or :class:`AlreadyRecorded` for an identical repeat of
        a ball already recorded.  Nothing changes when it raises.
        """
        key = (event.lane, event.bowler, event.game)
        tracked = self._games.get(key)
        if tracked is None:
            if (event.frame, event.ball) != (1, 1):
                self._untracked.add(key)
                return event
            tracked = _TrackedGame()
        position = (event.frame, event.ball)
        expected = tracked.next_position
        if expected is not None and position > expected:
            # A hole: balls were missed.  Stop checking this game until a snapshot.
            self._games.pop(key, None)
            self._untracked.add(key)
            return event
        if expected is None or position < expected:
            earlier = next((ball for ball in tracked.balls
                            if (ball.frame, ball.ball) == position), None)
            if earlier is not None and _same_ball(earlier, event):
                raise AlreadyRecorded(f"frame {event.frame} ball {event.ball} already recorded")
            if expected is None and position == (1, 1):
                # A first ball after the game was over: the scorer numbers a new game as it
                # numbered the old one (restarted for the next league on these lanes).
                tracked = _TrackedGame()
                return self._roll_into(key, tracked, event)
            if earlier is not None:
                raise ImpossibleBall(
                    f"frame {event.frame} ball {event.ball} was already recorded as "
                    f"{earlier.pins} pins; a change must come as a correction")
            raise ImpossibleBall(f"the game is over; there is no frame {event.frame} "
                                 f"ball {event.ball}")
        return self._roll_into(key, tracked, event)

    def _roll_into(self, key: GameKey, tracked: _TrackedGame,
                   event: BallRecorded) -> BallRecorded:
        try:
            ball = _roll(tracked.game, event)
        except BowlingError as exc:
            raise ImpossibleBall(str(exc)) from None
        normalized = _with_bowling_flags(event, ball)
        tracked.balls.append(normalized)
        self._remember(key, tracked)
        return normalized

    def lane_opened(self, lane: int, game: int) -> None:
        """The scorer opened game ``game`` on ``lane``: games it numbered ``game`` or later
        there are over (it restarted its numbering for the next league on the lanes), so
        their balls no longer judge the new ones.

        >>> book = GameBook()
        >>> strike = BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=10)
        >>> _ = book.record(strike)
        >>> book.lane_opened(1, 1)
        >>> book.record(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=7)).pins
        7
        """
        for key in [key for key in self._games if key[0] == lane and key[2] >= game]:
            del self._games[key]
        self._untracked = {key for key in self._untracked
                           if not (key[0] == lane and key[2] >= game)}

    def correct(self, event: BallRecorded) -> BallRecorded:
        """Replace a recorded ball; raises :class:`ImpossibleBall` if the game then breaks."""
        key = (event.lane, event.bowler, event.game)
        tracked = self._games.get(key)
        if tracked is None:
            return event
        position = (event.frame, event.ball)
        index = next((i for i, ball in enumerate(tracked.balls)
                      if (ball.frame, ball.ball) == position), None)
        if index is None:
            raise ImpossibleBall(f"no frame {event.frame} ball {event.ball} to correct yet")
        balls = [*tracked.balls[:index], event, *tracked.balls[index + 1:]]
        try:
            game, normalized = _replay(balls)
        except BowlingError as exc:
            raise ImpossibleBall(f"the correction breaks the game: {exc}") from None
        tracked.game, tracked.balls = game, normalized
        return normalized[index]

    def retract(self, lane: int, bowler: int, game: int, frame: int, ball: int) -> None:
        """Withdraw the last recorded ball; only the last one can be withdrawn."""
        tracked = self._games.get((lane, bowler, game))
        if tracked is None:
            return
        if not tracked.balls:
            raise ImpossibleBall("no ball to withdraw")
        last = tracked.balls[-1]
        if (last.frame, last.ball) != (frame, ball):
            raise ImpossibleBall(f"only the last ball (frame {last.frame} ball {last.ball}) "
                                 "can be withdrawn")
        tracked.game, tracked.balls = _replay(tracked.balls[:-1])

    def resync(self, snapshot: ScoresheetSnapshot) -> None:
        """Follow the game from ``snapshot``; raises :class:`ImpossibleBall` if it is invalid."""
        try:
            game, balls = _replay(snapshot.ball_events())
        except BowlingError as exc:
            raise ImpossibleBall(f"the scoresheet is impossible: {exc}") from None
        tracked = _TrackedGame()
        tracked.game, tracked.balls = game, balls
        self._remember((snapshot.lane, snapshot.bowler, snapshot.game), tracked)

    def _remember(self, key: GameKey, tracked: _TrackedGame) -> None:
        self._games[key] = tracked
        self._untracked.discard(key)
        # A service runs for weeks: forget the oldest games, long finished by then.
        while len(self._games) > self.MAX_GAMES:
            self._games.pop(next(iter(self._games)))
        while len(self._untracked) > self.MAX_GAMES:
            self._untracked.pop()


def _same_ball(a: BallRecorded, b: BallRecorded) -> bool:
    same_standing = a.standing is None or b.standing is None or a.standing == b.standing
    return (a.pins, a.flags.foul, a.flags.gutter) == (b.pins, b.flags.foul, b.flags.gutter) \
        and same_standing
