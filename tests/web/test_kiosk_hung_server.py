"""A kiosk that knows when it is alone: the production server hangs (SIGSTOP), not crashes.

Issue 38's probe: with the whole server stopped the kiosk said "● Live" for 41 s on a stale
frame (Socket.IO's default ping, 25 s + 20 s, was the only thing that could tell), and a reload
during the hang took 12.5 s to draw from the service worker (its 4 s network wait paid once by
the page, once by its files, once by its read).  Here, against ``alley-poker serve`` on
gunicorn (arbiter and worker both stopped) and a real Chromium: the kiosk says "Reconnecting"
within 10 s of the hang, a reload during it draws the last state within 4 s and says
"Reconnecting…" (not "Connecting…"), and once the server runs again the kiosk is live and
follows the next ball.  A bowler's phone, whose page, read and indicator work the same way,
does the same.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from alley_poker.store.api_tokens import ApiTokenStore
from benchmarks._service_process import ServiceProcess, write_config
from tests.web.test_kiosk_offline import frames, open_kiosk, wait_kept
from tests.web.test_phone_browser import PHONE, code_url

pytestmark = pytest.mark.slow

#: "Within 10 s of the hang" (issue 38); the ping shows it in at most 8 s (docs/deployment.md).
NOTICED_WITHIN_S = 10.0
#: A reload during the hang draws the last state within the worker's promised 4 s.
RELOAD_DRAWN_WITHIN_S = 4.0


@pytest.fixture
def served(tmp_path: Path, database: Path, service):
    """``alley-poker serve`` over the ledger the ``service`` fixture started m1 in."""
    config = write_config(tmp_path / "alley.toml", lanes=4, database_url=f"sqlite:///{database}")
    with ServiceProcess(config, tmp_path) as process:
        process.wait_serving(timeout=60)
        yield process


class HungServer:
    """The served centre, a desk's API client to it and the means to hang it and resume it."""

    def __init__(self, served: ServiceProcess, token: str):
        self.served = served
        self.pids = served.service_pids()  # gunicorn's arbiter and its one worker
        assert len(self.pids) == 2, self.pids
        self.token = token
        self.api = self._desk_client()
        self.hung = False

    def _desk_client(self) -> httpx.Client:
        return httpx.Client(base_url=self.served.base_url, timeout=30,
                            headers={"Authorization": f"Bearer {self.token}"})

    def record(self, first: int, last: int) -> int:
        """Frames ``first``..``last`` bowled; the match's seq after them."""
        for bowler, pins in frames(first, last, strikes={2}):
            answer = self.api.post("/api/v1/matches/m1/commands/record-ball",
                                   json={"bowler": bowler, "pins": pins})
            assert answer.status_code == 200, answer.text
        return self.api.get("/api/v1/matches/m1").json()["seq"]

    def hang(self) -> float:
        """The whole server stopped (the arbiter first: it must not see its worker stop);
        the monotonic time it was."""
        for pid in self.pids:
            os.kill(pid, signal.SIGSTOP)
        self.hung = True
        return time.monotonic()

    def resume(self) -> None:
        """Running again: the worker first, so the arbiter finds its heartbeat fresh."""
        for pid in reversed(self.pids):
            os.kill(pid, signal.SIGCONT)
        self.hung = False
        # The server closes kept-alive connections that idled through the hang as it wakes;
        # a request sent on one at that moment is cut off unanswered (ci, at load 12): the
        # desk goes on with new connections, as a tablet's browser would.
        self.api.close()
        self.api = self._desk_client()

    def close(self) -> None:
        if self.hung:
            self.resume()
        self.api.close()


@pytest.fixture
def centre(served, service):
    hung = HungServer(served, ApiTokenStore(service.repository.store.engine).create("desk").secret)
    yield hung
    hung.close()


def kiosk_following_the_match(browser, centre: HungServer):
    """A live kiosk of lanes 1-2 three frames into m1, its screen read kept by the service
    worker; the page and its header line."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = open_kiosk(context, centre.served.base_url)
    seq = centre.record(1, 3)
    page.wait_for_function("seq => window.AlleyKiosk.shown().seq === seq", arg=seq)
    wait_kept(page, "/api/v1/lanes/1-2/screen", seq)
    line = page.inner_text("#match-line")
    assert "game 1 of 1 · frame" in line
    assert page.get_attribute("#connection", "data-state") == "live"
    return page, line


def reload_drawn_s(page, line: str) -> float:
    """Reload the kiosk; the seconds until it draws the match as last seen (header ``line``,
    both bowlers' panels)."""
    started = time.monotonic()
    page.reload(wait_until="commit", timeout=60_000)
    page.wait_for_function(
        """line => document.querySelector('#match-line').innerText === line &&
                  document.querySelectorAll('section.bowler').length === 2""",
        arg=line, timeout=60_000)
    return time.monotonic() - started


def noticed_s(page, stopped: float) -> float:
    """Seconds from the hang (``stopped``) until the page says it is reconnecting."""
    page.wait_for_selector("#connection[data-state=down]", timeout=90_000)
    assert "Reconnecting" in page.inner_text("#connection")
    return time.monotonic() - stopped


def tell_and_check(report, screen: str, drawn_s: float, noticed: float | None = None) -> None:
    """Print the figures, then hold them to the bounds (so a failure has printed them)."""
    noticed_words = ("" if noticed is None else
                     f"'Reconnecting' shown {noticed:.1f} s after SIGSTOP (bound "
                     f"{NOTICED_WITHIN_S:.0f} s); ")
    words = (f"hung server, {screen}: {noticed_words}a reload drew the last state in "
             f"{drawn_s:.2f} s (bound {RELOAD_DRAWN_WITHIN_S:.0f} s)")
    report(words)
    print("\n" + words)
    assert noticed is None or noticed < NOTICED_WITHIN_S
    assert drawn_s < RELOAD_DRAWN_WITHIN_S


def assert_reconnecting(page) -> None:
    """It has a state to show and is re-connecting: "Reconnecting…", not "Connecting…"."""
    page.wait_for_selector("#connection[data-state=down]", timeout=5_000)
    assert page.inner_text("#connection") == "▲ Reconnecting…"


def assert_live_again_and_following(page, centre: HungServer, line: str) -> None:
    """After the hang: "● Live", and the next ball reaches the kiosk."""
    page.wait_for_selector("#connection[data-state=live]", timeout=60_000)
    assert page.inner_text("#connection") == "● Live"
    newest = centre.record(4, 4)
    page.wait_for_function("seq => window.AlleyKiosk.shown().seq === seq", arg=newest)
    assert page.inner_text("#match-line") != line


def test_a_hung_server_is_shown_within_10_s_and_a_reload_then_draws_the_last_state_at_once(
        browser, centre, report):
    page, line = kiosk_following_the_match(browser, centre)

    noticed = noticed_s(page, centre.hang())
    tell_and_check(report, "kiosk", reload_drawn_s(page, line), noticed)
    assert_reconnecting(page)

    centre.resume()
    assert_live_again_and_following(page, centre, line)


def test_a_reload_as_the_server_hangs_draws_the_last_state_within_4_s(browser, centre, report):
    """Reloaded at once, before its socket could notice: the service worker's own network
    attempt times out, and the page's files and read come from the kept copy without one."""
    page, line = kiosk_following_the_match(browser, centre)

    centre.hang()
    tell_and_check(report, "kiosk reloaded just after SIGSTOP", reload_drawn_s(page, line))
    assert_reconnecting(page)

    centre.resume()
    assert_live_again_and_following(page, centre, line)


def test_the_phone_shows_a_hung_server_and_a_reload_during_it_says_reconnecting(
        browser, centre, app, report):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(code_url(app, "Ann").replace("http://localhost", centre.served.base_url))
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    seq = centre.record(1, 2)
    page.wait_for_function("seq => window.AlleyPhone.moments.told('m1') === seq", arg=seq)
    wait_kept(page, "/api/v1/phone/me", seq)
    score = page.inner_text("#my-score")

    noticed = noticed_s(page, centre.hang())
    started = time.monotonic()
    page.reload(wait_until="commit", timeout=60_000)
    page.wait_for_function("text => document.querySelector('#my-score').innerText === text",
                           arg=score, timeout=60_000)
    page.wait_for_selector("#my-hand .card", timeout=60_000)
    tell_and_check(report, "phone", time.monotonic() - started, noticed)
    assert_reconnecting(page)

    centre.resume()
    page.wait_for_selector("#connection[data-state=live]", timeout=60_000)
    newest = centre.record(3, 3)
    page.wait_for_function("seq => window.AlleyPhone.moments.told('m1') === seq", arg=newest)
