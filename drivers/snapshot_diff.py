"""From successive live-board snapshots to ball events: what changed since the last poll.

A page shows the whole night so far; the router wants each ball once, in bowling order.
:class:`SnapshotDiffer` keeps what it last passed on for every (lane, slot, game) and turns
the next snapshot into:

- :class:`~drivers.base.BallRecorded` for each ball after those already passed on, lane by
  lane in bowling order (game, frame, slot, ball), so a re-poll of the same page gives
  nothing and nothing is dealt twice;
- :class:`~drivers.base.BallCorrected` for a ball already passed on whose value changed
  (a split bit filled in late, corrected pins): the router sends it to the correction
  review, never a silent re-deal;
- a :class:`Problem` for what it will not guess at: a lane or bowler that vanished from the
  page (its balls are kept; it is diffed as before when it comes back), a game with fewer
  balls than before (restarted or erased: the vanished balls come out as
  :class:`~drivers.base.BallRetracted`, which the router puts to the commissioner, and any
  re-bowled ball that disagrees with the ledger is held there), a lane whose lineup changed
  so that its balls no longer line up (held);
- a **held lane** when the page's running totals disagree with our score of its balls
  (:meth:`~drivers.dialects.live_board.BoardGame.rescore_problem`): none of that lane's new
  balls go out until a snapshot re-scores right.

>>> from alley_poker.bowling import Game
>>> from drivers.dialects.live_board import decode_board, encode_board
>>> differ = SnapshotDiffer(source="page")
>>> first = differ.diff(decode_board(encode_board({1: [("ANN", [Game.from_rolls([7])])]})))
>>> [event.describe() for event in first.events]
['lane 1 bowler 1 game 1 frame 1 ball 1: 7 pins']
>>> differ.diff(decode_board(encode_board({1: [("ANN", [Game.from_rolls([7])])]}))).events
[]
>>> later = differ.diff(decode_board(encode_board({1: [("ANN", [Game.from_rolls([8, 2])])]})))
>>> [type(event).__name__ for event in later.events]
['BallCorrected', 'BallRecorded']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.base import BallCorrected, BallRecorded, BallRetracted, LaneEvent
from drivers.dialects.live_board import BoardBall, BoardLane, LiveBoard

GameKey = tuple[int, int, int]  # (lane, slot, game)


@dataclass(frozen=True)
class Problem:
    """Something on the page the feed reports instead of guessing at."""

    lane: int
    kind: str  # lane_vanished, bowler_vanished, game_vanished, game_restarted, lineup_changed
    message: str


@dataclass
class Diff:
    """What one snapshot brought: events in order, problems, and lanes held (lane -> why)."""

    events: list[LaneEvent] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    held: dict[int, str] = field(default_factory=dict)

    @property
    def balls(self) -> list[BallRecorded]:
        """The new balls (not corrections) in this diff."""
        return [event for event in self.events if type(event) is BallRecorded]


class SnapshotDiffer:
    """Keeps the balls passed on so far and diffs each new snapshot against them."""

    def __init__(self, source: str = "page"):
        self.source = source
        self._passed: dict[GameKey, tuple[BoardBall, ...]] = {}
        self._lineups: dict[int, tuple[str, ...]] = {}
        #: Lanes missing from the last snapshot (reported once per disappearance).
        self.vanished: set[int] = set()
        #: Slots and games missing from their lane's last snapshot, by (lane, slot, game);
        #: game 0 stands for the whole slot.  Reported once per disappearance too.
        self.missing: set[GameKey] = set()

    def diff(self, board: LiveBoard) -> Diff:
        """The events and problems ``board`` brings, given everything passed on before."""
        result = Diff()
        for lane in sorted(self._lineups):
            if lane not in board.lanes and lane not in self.vanished:
                self.vanished.add(lane)
                result.problems.append(Problem(lane, "lane_vanished", (
                    f"lane {lane} vanished from the page; its balls so far are kept and "
                    "nothing is guessed until it is back")))
        for number in sorted(board.lanes):
            self.vanished.discard(number)
            self._diff_lane(board.lanes[number], result)
        return result

    def _diff_lane(self, lane: BoardLane, result: Diff) -> None:
        held = [problem for bowler in lane.bowlers for game in bowler.games
                if (problem := game.rescore_problem()) is not None]
        if held:
            result.held[lane.lane] = (f"lane {lane.lane}: {held[0]}; its new balls are held "
                                      "until the page re-scores right")
            return
        names = tuple(bowler.name for bowler in lane.bowlers)
        before = self._lineups.get(lane.lane)
        events: list[tuple[tuple[int, ...], LaneEvent]] = []
        problems: list[Problem] = []
        passed: dict[GameKey, tuple[BoardBall, ...]] = {}
        shown = {(bowler.slot, game.number) for bowler in lane.bowlers
                 for game in bowler.games}
        shown_slots = {slot for slot, _ in shown}
        missing: set[GameKey] = set()
        for (lane_no, slot, number), balls in self._passed.items():
            if lane_no != lane.lane or not balls or (slot, number) in shown:
                continue
            gone = (lane_no, slot, 0) if slot not in shown_slots else (lane_no, slot, number)
            if gone not in self.missing and gone not in missing:
                problems.append(Problem(lane.lane, "bowler_vanished", (
                    f"lane {lane.lane} slot {slot} vanished from the page; its balls are "
                    "kept and nothing is guessed until it is back")) if gone[2] == 0 else
                    Problem(lane.lane, "game_vanished", (
                        f"lane {lane.lane} slot {slot}: game {number} vanished from the page "
                        f"({len(balls)} ball(s) kept)")))
            missing.add(gone)
        for bowler in lane.bowlers:
            for game in bowler.games:
                key = (lane.lane, bowler.slot, game.number)
                old = self._passed.get(key, ())
                passed[key] = game.balls
                events.extend(self._diff_game(key, bowler.name, old, game.balls, problems))
        conflicting = any(isinstance(event, BallCorrected | BallRetracted)
                          for _, event in events)
        if before is not None and before != names and conflicting:
            result.held[lane.lane] = (
                f"lane {lane.lane}: the lineup changed ({', '.join(before) or 'nobody'} -> "
                f"{', '.join(names) or 'nobody'}) and its balls no longer line up; its new "
                "balls are held")
            result.problems.append(Problem(lane.lane, "lineup_changed",
                                           result.held[lane.lane]))
            return
        self._passed.update(passed)
        self._lineups[lane.lane] = names
        self.missing = {key for key in self.missing if key[0] != lane.lane} | missing
        result.problems.extend(problems)
        result.events.extend(event for _, event in sorted(events, key=lambda pair: pair[0]))

    def _diff_game(self, key: GameKey, name: str, old: tuple[BoardBall, ...],
                   new: tuple[BoardBall, ...],
                   problems: list[Problem]) -> list[tuple[tuple[int, ...], LaneEvent]]:
        lane, slot, game = key
        out: list[tuple[tuple[int, ...], LaneEvent]] = []
        shrunk = len(new) < len(old)
        if shrunk:
            problems.append(Problem(lane, "game_restarted", (
                f"lane {lane} slot {slot} ({name}) game {game}: the page now shows "
                f"{len(new)} ball(s) where it showed {len(old)} (a restarted game or erased "
                "balls); the vanished balls go to the commissioner, nothing is re-dealt")))
            for ball in reversed(old[len(new):]):
                # Retractions first (newest first), then corrections, then new balls.
                out.append(((0, 0, game, -ball.frame, -ball.ball), BallRetracted(
                    lane=lane, bowler=slot, game=game, frame=ball.frame, ball=ball.ball,
                    source=self.source)))
        for before, after in zip(old, new, strict=False):
            if (before.pins, before.flags) == (after.pins, after.flags):
                continue
            # After a shrink the same place may hold a re-bowled ball, not a correction: it
            # goes to the router as a ball, which holds it when the ledger disagrees.
            kind = BallRecorded if shrunk else BallCorrected
            out.append(((0, 1, game, after.frame, slot, after.ball), kind(
                lane=lane, bowler=slot, game=game, frame=after.frame, ball=after.ball,
                pins=after.pins, flags=after.flags, source=self.source)))
        for ball in new[len(old):]:
            out.append(((1, game, ball.frame, slot, ball.ball), BallRecorded(
                lane=lane, bowler=slot, game=game, frame=ball.frame, ball=ball.ball,
                pins=ball.pins, flags=ball.flags, source=self.source)))
        return out
