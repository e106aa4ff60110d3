"""The demo's league night with side games, run as a newcomer runs it (``alley-poker demo
--league``, a real subprocess, the scorer over its serial feed): through the API and the
printed night sheet, nine brackets were drawn (the entries of the unfilled tenth refunded),
high game and the strike pot paid, every cent reconciles, the export verifies with
``alley-poker verify`` and in the browser's /verify, and it stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess

import pytest
import requests
from click.testing import CliRunner

from alley_poker.cli import main
from tests.test_demo import PROJECT_ROOT, _alley_poker_command, _Output, stop_process
from tests.web.conftest import free_port
from tests.web.test_accessibility import serious_violations
from tests.web.test_refusal_words import page_leaks

pytestmark = pytest.mark.slow

LEAGUE = "demo-tuesday"
PIN = "2468"


def signed_in(base: str) -> requests.Session:
    """The commissioner's tablet session (the demo's PIN), with its CSRF token."""
    session = requests.Session()

    def token() -> str:
        page = session.get(f"{base}/commissioner", timeout=10).text
        return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)

    answer = session.post(f"{base}/commissioner/sign-in",
                          data={"pin": PIN, "csrf_token": token()}, allow_redirects=False,
                          timeout=10)
    assert answer.status_code == 302, answer.text
    session.headers["X-CSRF-Token"] = token()
    return session


@pytest.fixture(scope="module")
def demo_night(tmp_path_factory):
    """``alley-poker demo --league`` serving its pages after the night (until Ctrl-C)."""
    folder = tmp_path_factory.mktemp("league-demo")
    port = free_port()
    stderr_path = folder / "stderr.log"
    with stderr_path.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [*_alley_poker_command(), "demo", "--league", "--port", str(port), "--speed", "0",
             "--seed", "41", "--database", str(folder / "night.sqlite3")],
            cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    try:
        output.wait_for(r"the pages stay up until you press Ctrl-C", 300)
        sheet_url = output.wait_for(r"the night sheet: (http://\S+)", 5).group(1)
        yield process, output, f"http://127.0.0.1:{port}", sheet_url, folder
    finally:
        status = stop_process(process, signal.SIGINT, 30)
        errors = stderr_path.read_text(encoding="utf-8")
        assert status == 0, f"exit status {status}; stderr:\n{errors}"
        assert "Traceback" not in errors, errors


def test_the_demo_narrates_the_side_games(demo_night):
    _process, output, _base, _sheet, _folder = demo_night
    lines = "\n".join(output.lines)
    assert "76 bracket entries: 9 brackets fill, 4 entries over" in lines
    assert "the draw is sealed before the first ball" in lines
    # The draw is sealed before the scorer's first ball is in.
    assert lines.index("the draw is sealed") < lines.index("STRIKE")
    side = [line for line in output.lines if "[side games]" in line]
    assert len(re.findall(r"\[side games\] BRACKET \d decided: ", lines)) == 9, side
    assert "[side games] HIGH GAME pot won by" in lines
    assert "[side games] STRIKE POT:" in lines
    assert "alley-poker verify: OK: side games of night" in lines
    assert "every cent reconciles" in lines
    assert "the night is over: every match is settled or void" in lines


def test_the_desk_sees_nine_brackets_paid_and_the_money_reconciles(demo_night):
    _process, _output, base, _sheet, _folder = demo_night
    session = signed_in(base)
    night_date = re.search(r"nights/(\d{4}-\d{2}-\d{2})", _sheet).group(1)
    night = session.get(f"{base}/api/v1/leagues/{LEAGUE}/nights/{night_date}/side-games",
                        timeout=10).json()
    games = {game["game"]: game for game in night["games"]}
    brackets = games["hdcp"]["brackets"]
    assert len(brackets) == 9 and all(b["size"] == 8 for b in brackets)
    assert all(b["finished"] and b["paid"] for b in brackets)
    # 76 entries bought, 72 seats: the 4 of the unfilled tenth bracket are refunded.
    assert sum(e["entries"] for e in games["hdcp"]["entries"]) == 76
    money = night["money"]
    assert money["refunds_cents"] == 4 * 500
    for pot in ("high-game", "strikes"):
        assert games[pot]["pot"]["paid"] and games[pot]["pot"]["finished"]
        assert sum(c for _b, c in games[pot]["pot"]["payouts"]) > 0
    assert money["balanced"] and money["in_play_cents"] == 0
    assert money["entries_cents"] == 76 * 500 + 14 * 200 + 10 * 100
    assert money["entries_cents"] == (money["payouts_cents"] + money["refunds_cents"]
                                      + money["organiser_cents"])
    assert money["organiser_cents"] == 9 * 500
    assert sum(line["paid_cents"] for line in money["bowlers"]) == money["entries_cents"]
    assert night["draw"]["seed"] and not night["pending_changes"]
    sheet = session.get(f"{base}/api/v1/leagues/{LEAGUE}/nights/{night_date}/sheet",
                        timeout=10).json()
    assert sheet["side_balanced"] is True and sheet["balanced"] is True


def test_the_printed_night_sheet_shows_the_side_money(demo_night):
    _process, _output, base, sheet_url, _folder = demo_night
    page = signed_in(base).get(sheet_url, timeout=10)
    assert page.status_code == 200
    html = page.text
    side = html[html.index('id="side-games"'):]
    assert "Side games: brackets and pots" in side
    assert "9 brackets drawn" in side and "4 entries not placed" in side
    assert side.count('data-paid="yes"') == 9 + 2 and 'data-paid="no"' not in side
    assert "Organiser&#39;s share" in side or "Organiser's share" in side
    assert "$45.00" in side                                 # nine brackets' $5
    assert "The side money balances: entries = payouts + refunds + organiser" in side
    assert side.count("<tr><td>") >= 14                      # a line per bowler
    assert "/verify?night=" in side


def test_the_export_verifies_with_alley_poker_verify_and_in_the_browser(demo_night, browser):
    _process, output, base, _sheet, folder = demo_night
    night_id = re.search(r"side games of night (\S+):", "\n".join(output.lines)).group(1)
    export = requests.get(f"{base}/api/v1/side-nights/{night_id}/export", timeout=10).json()
    path = folder / "export.json"
    path.write_text(json.dumps(export))
    outcome = CliRunner().invoke(main, ["verify", str(path)])
    assert outcome.exit_code == 0, outcome.output
    assert "OK" in outcome.output
    page = browser.new_page()
    page.goto(f"{base}/verify?night={night_id}")
    verdict = page.locator("#verdict[data-verdict=ok], #verdict[data-verdict=failed]")
    verdict.wait_for(timeout=30_000)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_sheet_and_the_check_read_well_in_chromium(demo_night, browser, width):
    _process, _output, base, sheet_url, _folder = demo_night
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(f"{base}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#live-state")
    page.goto(sheet_url)
    side = page.locator("#side-games")
    side.wait_for()
    assert "The side money balances" in side.inner_text()
    assert page_leaks(side.inner_text()) == []
    assert serious_violations(page) == []
    side.locator("a[href^='/verify?night=']").click()
    verdict = page.locator("#verdict[data-verdict=ok], #verdict[data-verdict=failed]")
    verdict.wait_for(timeout=30_000)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    assert page_leaks(page.locator("main").inner_text()) == []
    assert serious_violations(page) == []
    page.close()
