"""The README's main job: the demo alley runs a whole simulated night end to end."""

from __future__ import annotations

from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.demo import MATCH_LANES, run_demo
from alley_poker.store import EventStore


def test_the_demo_night_deals_settles_and_pays_every_pot(tmp_path):
    lines: list[str] = []
    result = run_demo(speed=0, seed=5, database=tmp_path / "demo.sqlite3", echo=lines.append)
    assert result.balls > 100
    for match_id in MATCH_LANES:
        view = result.views[match_id]
        assert view["status"] == "settled", match_id
        paid = sum(bowler["paid_cents"] for bowler in view["bowlers"].values())
        won = sum(bowler["won_cents"] for bowler in view["bowlers"].values())
        assert won == paid > 0, "the whole pot is paid out, not a cent more"
        assert view["pot_cents"] == 0
    assert any("STRIKE" in line for line in lines)
    assert any("SHOWDOWN" in line for line in lines)
    with EventStore.open(f"sqlite:///{tmp_path / 'demo.sqlite3'}") as store:
        assert sorted(store.match_ids()) == sorted(MATCH_LANES)


def test_the_demo_command_prints_the_evaluator_and_the_night(tmp_path):
    outcome = CliRunner().invoke(main, ["demo", "--speed", "0", "--seed", "9", "--port", "0",
                                        "--exit-when-done",
                                        "--database", str(tmp_path / "night.sqlite3")])
    assert outcome.exit_code == 0, outcome.output
    assert "the evaluator on a sample hand" in outcome.output
    assert "result confirmed by the commissioner" in outcome.output
    assert "/kiosk/1-2" in outcome.output and "PIN" in outcome.output
