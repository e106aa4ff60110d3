"""The demo without a cable: the scorer's live-score page, polled over HTTP, deals the night."""

from __future__ import annotations

import pytest

from alley_poker.cli.demo_alley import MATCH_LANES, run_demo


def test_the_demo_night_on_a_live_page_deals_settles_and_pays_every_pot(tmp_path):
    lines: list[str] = []
    result = run_demo(speed=0, seed=5, database=tmp_path / "demo.sqlite3", echo=lines.append,
                      feed="http")
    assert result.balls > 100
    assert any("live-score page at http://127.0.0.1:" in line for line in lines)
    for match_id in MATCH_LANES:
        view = result.views[match_id]
        assert view["status"] == "settled", match_id
        won = sum(bowler["won_cents"] for bowler in view["bowlers"].values())
        assert won == sum(bowler["paid_cents"] for bowler in view["bowlers"].values()) > 0
    assert any("STRIKE" in line for line in lines)
    assert lines[-1] == "the night is over: every match is settled or void"


def test_the_demo_refuses_an_unknown_feed(tmp_path):
    with pytest.raises(ValueError, match="feed: 'serial' or 'http', not 'carrier-pigeon'"):
        run_demo(speed=0, database=tmp_path / "x.sqlite3", echo=lambda line: None,
                 feed="carrier-pigeon")
