"""The kiosk keeps up with the balls: the demo alley at its default speed (``alley-poker demo``,
about three balls a second on a lane pair), a real Socket.IO push to real Chromium.  After
each ball the kiosk's "UP" bowler and every running total must agree with the API's lane
screen within a second — never a frame or a game behind (the kiosk once showed "Game done,
Total 146+" where the sheet said 182, and the "UP" bowler of the tablet in 1 of 5 samples)."""

from __future__ import annotations

import os
import queue
import subprocess
import time

import pytest
import requests

from tests.socket_client import InOrderClient
from tests.test_demo import PROJECT_ROOT, _alley_poker_command, _deals_a_card, _Output
from tests.web.conftest import free_port

#: How soon after a ball the kiosk must show what the API says.
WITHIN_S = 1.0
MATCH = "lanes-1-2"

#: What the kiosk shows of each bowler: who is marked UP, and each panel's total.
KIOSK_READ = """() => {
  const shown = window.AlleyKiosk.shown();
  const read = { status: shown ? shown.status : null, up: [], totals: {} };
  document.querySelectorAll("section.bowler").forEach(function (panel) {
    if (panel.classList.contains("is-up")) read.up.push(panel.dataset.bowler);
    read.totals[panel.dataset.bowler] = panel.querySelector(".total").textContent;
  });
  read.up.sort();
  read.seq = shown ? shown.seq : null;
  return read;
}"""


def total_words(seat: dict) -> str:
    """A total as every screen words it (shared_card_faces.js ``totalWords``)."""
    if not isinstance(seat.get("score"), int):
        return ""
    least = seat["score_at_least"] if isinstance(seat.get("score_at_least"), int) \
        else seat["score"]
    return f"Total {least}" + ("+" if least > seat["score"] else "")


def api_read(base: str) -> dict:
    """The API's lane screen for the demo's lanes 1-2, as the kiosk should show it."""
    screen = requests.get(f"{base}/api/v1/lanes/1-2/screen", timeout=5).json()
    found = [m for m in screen["matches"] + [screen["last_result"]] if m and
             m["match_id"] == MATCH]
    if not found:
        return {"status": None, "seq": None, "up": [], "totals": {}}
    match = found[0]
    playing = match["state"]["status"] == "playing"
    return {"status": match["state"]["status"], "seq": match["state"]["seq"],
            "up": sorted(name for name, seat in match["bowlers"].items()
                         if seat["up"] and playing),
            "totals": {name: total_words(seat) for name, seat in match["bowlers"].items()}}


def same_screen(kiosk: dict, api: dict) -> bool:
    """The kiosk shows what the API said: status, who is up, every total (the seq each is
    of rides along for the failure's message)."""
    return all(kiosk[key] == api[key] for key in ("status", "up", "totals"))


@pytest.fixture
def demo(tmp_path):
    """``alley-poker demo`` at its default speed, serving on a free port: its base URL."""
    port = free_port()
    with (tmp_path / "stderr.log").open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [*_alley_poker_command(), "demo", "--port", str(port), "--seed", "11",
             "--database", str(tmp_path / "demo.sqlite3")],
            cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    output = _Output(process.stdout)
    try:
        yield output.wait_for(r"kiosks: (http://127\.0\.0\.1:\d+)/kiosk/1-2", 30).group(1)
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def test_the_kiosk_shows_who_is_up_and_every_total_within_a_second_of_each_ball(
        browser, demo):
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.set_default_timeout(20_000)
    page.goto(f"{demo}/kiosk/1-2")
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector("section.bowler")
    balls: queue.Queue[int] = queue.Queue()
    pushes = InOrderClient(reconnection=False)
    pushes.on("match_update", lambda message: message.get("match_id") == MATCH
              and _deals_a_card(message) and balls.put(1))
    pushes.connect(demo, transports=["websocket"], wait_timeout=10)
    pushes.call("join", {"lanes": "1-2"}, timeout=10)
    pushed = sampled = compared = 0
    lags: list[float] = []
    said: dict[int | None, dict] = {}  # what the API said of each state it was read at
    try:
        while True:
            try:
                balls.get(timeout=30)
            except queue.Empty:
                pytest.fail(f"no ball pushed for 30 s after {pushed}")
            pushed += 1
            while not balls.empty():  # balls that came while the last sample was taken
                balls.get_nowait()
                pushed += 1
            # Within the second the kiosk must be at the state the API was at when the ball
            # came, or a later one; and whenever it is at a state the API was read at, it
            # must show what the API said of that very state (never the state of one push
            # with who is up and the totals of an older one).  The kiosk is read first, then
            # the API: with no ball between, both are at one state (most reads).  On a loaded
            # machine a read itself can take a while: the kiosk is behind only if a read
            # begun after the second still finds it behind.
            start, first = time.monotonic(), api_read(demo)
            said[first["seq"]] = first
            while True:
                asked = time.monotonic() - start
                shown = page.evaluate(KIOSK_READ)
                now = api_read(demo)
                said[now["seq"]] = now
                if shown["seq"] in said:
                    if not same_screen(shown, said[shown["seq"]]):
                        pytest.fail(f"after ball {pushed} the kiosk shows {shown}; the API "
                                    f"said {said[shown['seq']]} of that state")
                    compared += 1
                if shown["seq"] is not None and shown["seq"] >= first["seq"]:
                    break
                if asked > WITHIN_S:
                    pytest.fail(f"after ball {pushed} the kiosk was still at {shown} "
                                f"{asked:.2f} s later; the API said {first} when the ball came")
            lags.append(time.monotonic() - start)
            sampled += 1
            if now["status"] != "playing":
                break
    finally:
        pushes.disconnect()
        page.close()
    assert now["status"] in ("ending", "settled")
    # A game's worth of balls, sampled (a few together when they came faster than a sample),
    # the last one included.  The demo bowls some three balls a second whatever the host;
    # a sample (a read of the page and two of the API) takes longer on a loaded one, so
    # more balls share one: a fresh-clone run at load 16 sampled 32 of 75 (each of the 32
    # within the second).  Thirty checks at least, a third of the balls at least.
    assert pushed >= 60 and sampled >= max(30, pushed // 3), (pushed, sampled)
    assert compared >= sampled // 2, f"the kiosk and the API met at one state only {compared} times"
    print(f"{sampled} samples of {pushed} balls, {compared} at the API's state; the kiosk "
          f"was found up to date "
          f"{max(lags):.2f} s after a ball at most (the reads' own time included)")
