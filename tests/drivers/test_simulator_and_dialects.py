"""The simulator bowls believable games; the worked dialect from the docs really works;
the registry names what it knows."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from alley_poker.bowling import is_split
from alley_poker.cli import main
from alley_poker.odds.ball_model import BowlerProfile
from drivers.base import BallRecorded, GameEnded, LaneOpened
from drivers.dialects import UnknownDialect, make_dialect
from drivers.serial_feed import SerialFeed
from drivers.simulator import LaneSetup, Simulator

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("average", [120, 160, 200])
def test_games_average_close_to_the_bowlers_average(average):
    profile = BowlerProfile.for_average("X", average)
    sim = Simulator([LaneSetup(lane, (profile,)) for lane in range(1, 5)], seed=average,
                    games=40)
    scores = [timed.event.scratch for timed in sim.events()
              if isinstance(timed.event, GameEnded)]
    assert len(scores) == 160
    assert abs(statistics.mean(scores) - average) < 12
    assert 12 < statistics.pstdev(scores) < 40  # games vary as real ones do


def test_leaves_are_real_and_split_flags_follow_the_usbc_definition():
    sim = Simulator(lanes=[1, 2, 3], seed=5, games=10)
    balls = [timed.event for timed in sim.events() if type(timed.event) is BallRecorded]
    first_balls = [ball for ball in balls if ball.ball == 1 and ball.frame < 10]
    splits = [ball for ball in first_balls if ball.flags.split]
    assert all(is_split(ball.standing) for ball in splits)
    assert 0.04 < len(splits) / len(first_balls) < 0.16
    assert frozenset({7, 10}) in {ball.standing for ball in splits}
    assert any(ball.flags.gutter for ball in balls)
    assert 0.15 < sum(ball.pins == 10 for ball in first_balls) / len(first_balls) < 0.45


def test_the_same_seed_bowls_the_same_games():
    def bowled(seed):
        return [timed.event for timed in Simulator([1, 2], seed=seed, games=1).events()]

    assert bowled(8) == bowled(8)
    assert bowled(8) != bowled(9)


def test_by_default_each_lane_goes_straight_on_as_it_always_has():
    """The seeded games every test and the plain demo rely on (pinned from before the
    league-night break existed): lane 2 is into game 2 before lane 1 has finished game 1."""
    events = [timed.event for timed in
              Simulator([1, 2], seed=12, games=2, bowlers_per_lane=2).events()]
    assert [(e.lane, e.bowler, e.game, e.scratch) for e in events
            if isinstance(e, GameEnded)] == [
        (2, 1, 1, 228), (2, 2, 1, 236), (1, 1, 1, 161), (1, 2, 1, 156),
        (2, 1, 2, 205), (2, 2, 2, 171), (1, 1, 2, 166), (1, 2, 2, 141)]


def test_a_league_night_bowls_each_game_together_after_a_break():
    sim = Simulator([1, 2, 3, 4], seed=41, games=3, break_between_games=10, ball_seconds=20)
    timed = list(sim.events())
    balls = [(t.at, t.event) for t in timed if isinstance(t.event, BallRecorded)]
    for game in (1, 2):
        finished = max(at for at, ball in balls if ball.game == game)
        next_first = min(at for at, ball in balls if ball.game == game + 1)
        assert next_first >= finished + 10 * 20  # nobody bowls game n+1 during the break
        opened = [t.at for t in timed
                  if isinstance(t.event, LaneOpened) and t.event.game == game + 1]
        assert len(opened) == 4 and len(set(opened)) == 1  # every lane starts it together
    assert [t.at for t in timed] == sorted(t.at for t in timed)
    assert sum(isinstance(t.event, GameEnded) for t in timed) == 4 * 4 * 3
    with pytest.raises(ValueError, match="break_between_games: ball-times, 0 or more"):
        Simulator([1], break_between_games=-1)


def test_the_worked_dialect_in_the_docs_is_the_real_file_and_reads_a_feed():
    doc = (ROOT / "docs" / "writing-a-dialect.md").read_text()
    source = (ROOT / "drivers" / "dialects" / "pinsetter_csv.py").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    assert code.strip() in source  # the doc shows the module as it is
    assert len(code.strip().splitlines()) < 50
    events: list = []
    feed = SerialFeed("loop://", "pinsetter-csv", events.append, source="back-room")
    with feed:
        assert feed.wait_connected(2)
        feed.write_for_test(b"7,2,1,1,1,9\r\n7,2,1,1,2,5\r\n7,2,1,1,2,1\r\n")
        assert feed.wait_for(lambda h: h.lines_ok + h.lines_rejected == 3, 5)
    assert [(event.frame, event.ball, event.pins) for event in events] == [(1, 1, 9), (1, 2, 1)]
    assert "cannot fall" in feed.health().last_rejected.reason


def test_unknown_dialects_and_import_paths():
    with pytest.raises(UnknownDialect, match="known: apf1, pinsetter-csv, scoresheet"):
        make_dialect("qubica")
    assert make_dialect("drivers.dialects.apf1:Apf1Dialect").name == "apf1"
    with pytest.raises(UnknownDialect, match="cannot load"):
        make_dialect("drivers.nowhere:Thing")


def test_simulate_command_refuses_bad_lanes_clearly():
    result = CliRunner().invoke(main, ["simulate", "--lanes", "4-1", "--url", "loop://"])
    assert result.exit_code != 0
    assert "a range runs low to high" in result.output
