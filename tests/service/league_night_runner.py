"""A simulated league night for crash tests: the matches, the scorer, and the final audit.

Shared by the crash-loop test on ``alley-poker serve`` and the worker failover test, which
differ only in what they kill.  The night is two matches (lanes 1-2 and 3-4) of three games;
the simulator plays the scorer, writing ``apf1`` lines (with a scoresheet snapshot after every
frame, as a scorer configured for catch-up does) to a :class:`~drivers.feed_writer.FeedWriter`
listening like a serial device server.  The audit compares the ledger with the simulator's own
record of what it bowled: the same balls, the cards an independent reading of the rules says
each mark earns, and the card invariants.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from alley_poker.ledger import MatchState, check_invariants
from alley_poker.ledger.commands import ConsentToAnte, StartMatch
from alley_poker.service import AlleyService
from drivers.base import BallRecorded
from drivers.feed_writer import FeedWriter, serve
from drivers.simulator import Simulator
from tests.ports import free_port  # noqa: F401  (re-exported for the crash tests)
from tests.service.test_feed_to_ledger import expected_marks

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MATCH_LANES = {"lanes-1-2": (1, 2), "lanes-3-4": (3, 4)}
DESK = "commissioner:crash-test"


@dataclass
class LeagueNight:
    """The simulated scorer and who bowls in which match on which lane slot."""

    simulator: Simulator
    slots: dict[tuple[int, int], str]  # (lane, slot) -> bowler name
    matches: dict[str, tuple[int, ...]]  # match id -> lanes

    def bowler_of(self, ball: BallRecorded) -> str:
        return self.slots[(ball.lane, ball.bowler)]

    def match_of(self, ball: BallRecorded) -> str:
        return next(match_id for match_id, lanes in self.matches.items() if ball.lane in lanes)


def league_night(seed: int, *, games: int = 3, bowlers_per_lane: int = 2,
                 ball_seconds: float = 25.0, wrong_lane_rate: float = 0.0) -> LeagueNight:
    simulator = Simulator([1, 2, 3, 4], seed=seed, games=games,
                          bowlers_per_lane=bowlers_per_lane, snapshots=True,
                          ball_seconds=ball_seconds, wrong_lane_rate=wrong_lane_rate)
    slots = {(setup.lane, slot): profile.name
             for setup in simulator.lanes for slot, profile in enumerate(setup.bowlers, 1)}
    return LeagueNight(simulator, slots, dict(MATCH_LANES))


def set_up_matches(service: AlleyService, night: LeagueNight) -> None:
    """What the desk does before the first ball: create, ante up and start both matches."""
    games = night.simulator.games_per_lane
    for match_id, lanes in night.matches.items():
        mine = {key: name for key, name in night.slots.items() if key[0] in lanes}
        service.create_match(match_id, mine, games=games, actor=DESK)
        for name in mine.values():
            service.execute(match_id, ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, StartMatch(actor=DESK))


class Scorer:
    """The simulator bowling into ``writer`` at ``speed`` in a background thread.

    Like a real scorer it does not care whether anyone is reading: lines queue in the
    writer while the reader is down and the last ones are re-sent when it reconnects.
    """

    def __init__(self, night: LeagueNight, writer: FeedWriter, *, speed: float,
                 session: str = "crash-night"):
        self.night, self.writer, self.speed, self.session = night, writer, speed, session
        self.stop = threading.Event()
        self.lines = 0
        self.started_at = 0.0
        self._thread = threading.Thread(target=self._run, name="scorer", daemon=True)

    def start(self) -> Scorer:
        self.started_at = time.monotonic()
        self._thread.start()
        return self

    def _run(self) -> None:
        self.lines = serve(self.night.simulator, self.writer, dialect="apf1", speed=self.speed,
                           session=self.session, stop=self.stop)

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return self.done()

    def halt(self) -> None:
        self.stop.set()
        self._thread.join(5)


def night_seconds(night: LeagueNight, speed: float) -> float:
    """Roughly how long the night takes at ``speed`` (simulated time / speed)."""
    sim = night.simulator
    balls_per_lane_game = 20 * len(sim.lanes[0].bowlers)  # ~17-18 balls a game, rounded up
    per_lane = sim.games_per_lane * (balls_per_lane_game + 4) * sim.ball_seconds
    return per_lane / speed


def all_balls_recorded(states: dict[str, MatchState], night: LeagueNight) -> bool:
    """True once every ball the simulator bowled is in the ledger (counted per match)."""
    bowled = night.simulator.balls
    for match_id, state in states.items():
        expected = sum(1 for ball in bowled if night.match_of(ball) == match_id)
        recorded = sum(len(game) for games in state.balls.values() for game in games)
        if recorded < expected:
            return False
    return True


def audit(states: dict[str, MatchState], night: LeagueNight) -> int:
    """Assert the ledger holds exactly the simulator's balls, each dealt as the rules say.

    Returns the number of balls checked.
    """
    bowled = night.simulator.balls
    checked = 0
    for match_id, state in states.items():
        check_invariants(state)  # card conservation: every card in exactly one place
        in_match = [ball for ball in bowled if night.match_of(ball) == match_id]
        expected = expected_marks(in_match, night.bowler_of)
        for bowler in state.bowlers:
            mine = [ball for ball in in_match if night.bowler_of(ball) == bowler]
            for game_number, game in enumerate(state.balls[bowler], start=1):
                ledger_balls = [(b["frame"], b["ball"], b["pins"]) for b in game]
                simulated = [(b.frame, b.ball, b.pins) for b in mine if b.game == game_number]
                assert ledger_balls == simulated, (
                    f"{match_id} {bowler} game {game_number}: the ledger holds "
                    f"{ledger_balls}, the scorer bowled {simulated}")
            ledger_all = [b for game in state.balls[bowler] for b in game]
            dealt = [(b["cards_due"], b["bonus"]) for b in ledger_all]
            assert dealt == expected[bowler], (
                f"{match_id} {bowler}: cards per mark differ: the ledger dealt {dealt}, "
                f"the rules say {expected[bowler]}")
            checked += len(ledger_all)
        assert state.status != "playing", f"{match_id}: every game ended, yet still playing"
    assert checked == len(bowled)
    return checked


def describe_timings(label: str, seconds: Sequence[float]) -> str:
    """``label: n=20 min 1.02 s, median 1.10 s, max 1.40 s`` and every figure."""
    if not seconds:
        return f"{label}: none"
    each = ", ".join(f"{value:.2f}" for value in seconds)
    return (f"{label}: n={len(seconds)} min {min(seconds):.2f} s, "
            f"median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s "
            f"[{each}]")


def wait_until(condition: Callable[[], bool], timeout: float, poll: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True
