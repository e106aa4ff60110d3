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
import time

import pytest
import requests
from click.testing import CliRunner

from alley_poker.cli import main
from tests.test_demo import PROJECT_ROOT, _alley_poker_command, _Output, stop_process
from tests.web.conftest import drawn, free_port
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


@pytest.mark.parametrize("width", [1280, 390])
def test_the_desk_tree_and_the_kiosk_after_the_night(demo_night, browser, width):
    """The screens of the demo's night once it is over: the desk's nine trees, each paid;
    the kiosk shows no still-alive list (every bracket is over) and no money."""
    _process, _output, base, sheet_url, _folder = demo_night
    session = signed_in(base)
    night = session.get(f"{sheet_url.replace('/commissioner/', '/api/v1/')}/side-games",
                        timeout=10).json()
    ava = next(line["bowler"] for line in night["money"]["bowlers"]
               if line["name"] == "Ava Hart")
    assert len(brackets_of(night, ava)) == 6 - sum(c for b, c in night_refunds(night)
                                                    if b == ava)

    desk = browser.new_page(viewport={"width": width, "height": 900})
    desk.goto(f"{base}/commissioner")
    desk.fill("#pin", PIN)
    desk.click("button[type=submit]")
    desk.wait_for_selector("#live-state")
    desk.goto(f"{sheet_url}/side-games")
    desk.locator(".side-tree[data-bracket='9'] .side-payouts", has_text="Paid:").wait_for()
    assert desk.locator(".side-tree").count() == 9
    assert desk.locator(".side-tree .side-payouts", has_text="Paid:").count() == 9
    assert desk.locator(".side-tree .side-match").count() == 9 * 7
    assert_plain_and_accessible(desk, width)
    desk.close()

    kiosk = browser.new_page(viewport={"width": width, "height": 900})
    kiosk.goto(f"{base}/kiosk/1-2")
    kiosk.wait_for_selector("#connection[data-state=live]")
    assert kiosk.locator("#still-alive").is_hidden()
    assert_plain_and_accessible(kiosk, width)
    kiosk.close()


def brackets_of(night: dict, bowler: int) -> list[dict]:
    return [b for b in night["games"][0]["brackets"]
            if any(bowler in m["sides"] for m in b["matches"] if m["round"] == 1)]


def night_refunds(night: dict) -> list[tuple[int, int]]:
    """(bowler, entries) the draw refunded: the money's refunds in entries of $5."""
    return [(line["bowler"], line["refunded_cents"] // 500)
            for line in night["money"]["bowlers"] if line["refunded_cents"]]


def assert_plain_and_accessible(page, width: int) -> None:
    assert page_leaks(page.inner_text("body")) == []
    assert serious_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.fixture(scope="module")
def live_night(tmp_path_factory):
    """The demo's league night at its own pace (40 times real time: game 1 takes the best
    part of a minute), stopped with Ctrl-C once looked at."""
    folder = tmp_path_factory.mktemp("league-demo-live")
    port = free_port()
    process = subprocess.Popen(
        [*_alley_poker_command(), "demo", "--league", "--port", str(port), "--seed", "41",
         "--database", str(folder / "night.sqlite3")],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    try:
        night_url = output.wait_for(r"the night sheet: (http://\S+)", 60).group(1)
        yield output, f"http://127.0.0.1:{port}", night_url
    finally:
        assert stop_process(process, signal.SIGINT, 60) == 0


def test_a_bowlers_phone_says_whom_they_face_during_game_one(live_night, browser):
    output, base, night_url = live_night
    session = signed_in(base)
    night = session.get(f"{night_url.replace('/commissioner/', '/api/v1/')}/side-games",
                        timeout=10).json()
    ava = next(line["bowler"] for line in night["money"]["bowlers"]
               if line["name"] == "Ava Hart")
    facing = {}
    for bracket in brackets_of(night, ava):
        first = next(m for m in bracket["matches"] if m["round"] == 1 and ava in m["sides"])
        facing[bracket["bracket"]] = next(n for n in first["names"] if n != "Ava Hart")
    match_id = output.wait_for(r"\[(\S+-1-2)\] Ava Hart", 1).group(1)
    for width in (390, 1280):
        # A code opens one phone: the desk gives her a new one for the other screen.
        link = session.post(f"{base}/api/v1/matches/{match_id}/phone-links",
                            json={"bowler": "Ava Hart"}, timeout=10)
        assert link.status_code == 201, link.text
        phone = browser.new_page(viewport={"width": width, "height": 844})
        phone.goto(re.sub(r"^https?://[^/]+", base, link.json()["url"]))
        lines = phone.locator("#side-brackets li[data-game=hdcp]")
        lines.first.wait_for()
        assert lines.count() == len(facing)
        for item in lines.all():
            number = int(item.get_attribute("data-bracket"))
            said = item.inner_text()
            # Game 1 is on: every bracket's round one (or, if hers is in, what comes next).
            assert (f"you face {facing[number]} in game 1 (round 1)" in said
                    or re.search(r"game 2|out in round 1", said)), said
        assert "you face" in phone.inner_text("#side-brackets")
        assert_plain_and_accessible(phone, width)
        phone.close()


def test_the_kiosk_shows_who_is_still_alive_between_game_one_and_game_two(live_night,
                                                                          browser):
    """The demo's lanes bowl each game together, with a break between games: on the kiosk of
    lanes 1-2, at 1280 and 390 px, the still-alive list stays hidden under the hands while
    game 1 is bowled, shows in the break who on those lanes is still alive in which brackets
    (the names the public read gives, no money), and hides again once game 2's first ball is
    in."""
    output, base, _night_url = live_night
    seated = output.wait_for(r"\[\S+-1-2\] (.+) ante up", 1).group(1).split(", ")
    assert len(seated) == 7, seated
    # One kiosk, looked at in both widths in turn (it re-fits on a resize): a second page
    # would be drawn again on every push of the night for nothing.
    kiosk = browser.new_page(viewport={"width": 1280, "height": 900})
    kiosk.goto(f"{base}/kiosk/1-2")
    kiosk.wait_for_selector("#connection[data-state=live]")

    def at_width(width: int) -> None:
        kiosk.set_viewport_size({"width": width, "height": 900})
        drawn(kiosk)

    # Game 1 under way (every bowler on the lanes past frame 1): the list is out of the way.
    for width in (1280, 390):
        at_width(width)
        seen = wait_for_kiosk(kiosk, lambda at: re.search(r"game 1 of 3 · frame ([2-9]|10)\b",
                                                          at["line"]), 120)
        assert seen["hidden"], seen

    # The break after game 1: every bowler on the lanes at game 2, frame 1, no ball in.
    for width in (390, 1280):
        at_width(width)
        seen = wait_for_kiosk(kiosk, lambda at: not at["hidden"], 180)
        assert "game 2 of 3 · frame 1" in seen["line"], seen
        listed = wait_for_alive_names(base, kiosk)
        assert len(listed) >= 1 and set(listed) <= set(seated), listed
        shown = kiosk.inner_text("#still-alive")
        assert "Still alive in the brackets" in shown and "hdcp bracket" in shown, shown
        assert "$" not in shown and page_leaks(kiosk.inner_text("body")) == []
        assert kiosk.evaluate("document.documentElement.scrollWidth") <= width + 1

    # Game 2's first ball: the list gives way to the game.
    for width in (1280, 390):
        at_width(width)
        seen = wait_for_kiosk(kiosk, lambda at: at["hidden"], 120)
        assert "game 2 of 3" in seen["line"] and seen["marks"], seen
    kiosk.close()


def kiosk_now(kiosk) -> dict:
    """What the kiosk shows at one moment: the list hidden or not, its names, the match line
    and whether any bowler's scoresheet has a mark."""
    return kiosk.evaluate("""() => ({
        hidden: document.getElementById("still-alive").hidden,
        names: Array.from(document.querySelectorAll("#still-alive-list li"),
                          item => item.dataset.name),
        line: document.getElementById("match-line").textContent,
        marks: Array.from(document.querySelectorAll("section.bowler .scoresheet"))
                    .some(sheet => sheet.textContent.trim() && sheet.textContent.trim() !== "—"),
    })""")


def wait_for_kiosk(kiosk, wanted, seconds: float) -> dict:
    """Poll the kiosk until ``wanted(what it shows)``; fail with the last look at the deadline."""
    deadline = time.monotonic() + seconds
    while True:
        seen = kiosk_now(kiosk)
        if wanted(seen):
            return seen
        assert time.monotonic() < deadline, f"the kiosk never got there: {seen}"
        kiosk.wait_for_timeout(100)


def wait_for_alive_names(base: str, kiosk) -> list[str]:
    """The names the kiosk lists once they match the public read of lanes 1-2 (a game ending
    on lanes 3-4 can knock one out: the kiosk reads again on that push), while still shown."""
    deadline = time.monotonic() + 30
    while True:
        read = requests.get(f"{base}/api/v1/lanes/1-2/side-games", timeout=10).json()
        assert "$" not in json.dumps(read) and "cents" not in json.dumps(read)
        seen = kiosk_now(kiosk)
        assert not seen["hidden"], f"the list went before it matched the read: {seen}, {read}"
        if sorted(seen["names"]) == sorted(row["name"] for row in read["alive"]):
            return seen["names"]
        assert time.monotonic() < deadline, (seen, read)
        kiosk.wait_for_timeout(200)
