"""The demo without a cable: the scorer's live-score page, polled over HTTP, deals the night."""

from __future__ import annotations

import os
import subprocess

import pytest

from alley_poker.cli.demo_alley import MATCH_LANES, run_demo
from tests.test_demo import PROJECT_ROOT, _alley_poker_command, _Output
from tests.web.conftest import free_port


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


@pytest.mark.slow
def test_the_kiosk_is_live_through_a_night_dealt_from_the_page(tmp_path, browser):
    """``alley-poker demo --feed http`` as a visitor runs it, the kiosk in real Chromium."""
    port = free_port()
    process = subprocess.Popen(
        [*_alley_poker_command(), "demo", "--feed", "http", "--port", str(port),
         "--speed", "40", "--seed", "11", "--exit-when-done",
         "--database", str(tmp_path / "demo.sqlite3")],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    try:
        base = output.wait_for(r"kiosks: (http://127\.0\.0\.1:\d+)/kiosk/1-2", 30).group(1)
        output.wait_for(r"live-score page at http://127\.0\.0\.1:\d+/live", 10)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(f"{base}/kiosk/1-2")
        page.wait_for_selector("#connection[data-state=live]")
        # A card dealt from a ball the feed read off the page appears while the night runs.
        page.wait_for_selector("section.bowler .card")
        page.screenshot(path=tmp_path / "kiosk-http-demo.png")
        assert process.poll() is None, "the night was over before the kiosk saw a card"
        output.wait_for(r"the night is over: every match is settled or void", 180)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
