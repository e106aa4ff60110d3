"""The kiosk survives the Wi-Fi (real Chromium, real server processes, SQLite ledger).

The server is stopped for about 30 s mid-match and started again on the same port, and,
separately, the kiosk's network is cut (Playwright's offline mode): throughout, the kiosk
shows the last state with a quiet "Reconnecting…" (also after a reload during the drop, from
its service worker's copy), and afterwards it tells every moment it missed, and the result,
exactly once and in order."""

from __future__ import annotations

import signal
import time

import httpx
import pytest

from alley_poker.ledger import commands as c
from alley_poker.store.api_tokens import ApiTokenStore
from tests.web.conftest import DESK, free_port, open_service, serve_in_process
from tests.web.test_phone_browser import PHONE, code_url

KIOSK = "/kiosk/1-2"
OUTAGE_S = 30


def frames(first: int, last: int, strikes: set[int]):
    """(bowler, pins) in bowling order: Ann strikes in ``strikes``, else 9-0; Bob 9-0."""
    for frame in range(first, last + 1):
        yield from ([("Ann", 10)] if frame in strikes else [("Ann", 9), ("Ann", 0)])
        yield from [("Bob", 9), ("Bob", 0)]


def finish(service) -> None:
    """Every end-of-match choice declined, then the desk confirms the result."""
    while decisions := service.state("m1").decisions:
        decision = next(iter(decisions.values()))
        kind = {"end_draw": c.DecideEndDraw, "buy": c.DecideBuy}[decision["kind"]]
        service.execute("m1", kind(decision["bowler"], False,
                                   actor=f"bowler:{decision['bowler']}"))
    service.execute("m1", c.CommissionerConfirmResult(actor=DESK))
    assert service.state("m1").status == "settled"


def open_kiosk(context, url: str):
    """The kiosk of lanes 1-2, live, its service worker in control."""
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(url + KIOSK)
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector("section.bowler[data-bowler=Ann]")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    return page


def cut_network(context, cut: bool) -> None:
    """The kiosk's network cut (and back): Playwright's offline mode, which closes the
    page's websocket and fails its requests.  Chromium's offline emulation does not reach a
    service worker's own fetches, so those are refused by a route while the network is cut."""
    context.set_offline(cut)
    if cut:
        context.route("**/*", lambda route: route.abort("internetdisconnected"))
    else:
        context.unroute("**/*")


def wait_kept(page, url: str, seq: int) -> None:
    """Until the service worker keeps a copy of the read ``url`` at ``seq``.  (The cache is
    read asynchronously; each poll starts a read and looks at what the last one found.)"""
    page.wait_for_function("""([url, seq]) => {
        caches.match(url).then(kept => kept ? kept.json() : null).then(read => {
            const state = read && (read.screen ? read.screen.state :
                                   read.matches && read.matches.length && read.matches[0].state);
            window.__keptSeq = state ? state.seq : null;
        });
        return window.__keptSeq === seq;
    }""", arg=[url, seq])


def told(page) -> list[int]:
    return page.evaluate("window.AlleyKiosk.moments.log('m1')")


def wait_told_up_to(page, seq: int) -> None:
    page.wait_for_function(
        "seq => window.AlleyKiosk.moments.told('m1') === seq", arg=seq)


def assert_shows_the_last_state(page, line: str) -> None:
    """The panels of the match as last seen (its header ``line``), and the quiet mark: no
    blank, no error page."""
    page.wait_for_selector("#connection[data-state=down]")
    assert "Reconnecting" in page.inner_text("#connection")
    page.wait_for_function("line => document.querySelector('#match-line').innerText === line",
                           arg=line)
    assert page.locator("section.bowler").count() == 2


def public_seqs(url: str) -> list[int]:
    events = httpx.get(f"{url}/api/v1/matches/m1/events", params={"limit": 1000}).json()
    return [event["seq"] for event in events["events"]]


@pytest.mark.slow
def test_the_kiosk_keeps_its_screen_through_a_server_restart_and_catches_up(
        browser, database, service):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    token = ApiTokenStore(service.repository.store.engine).create("desk").secret
    server = serve_in_process(database, port)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = open_kiosk(context, url)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as api:
            for bowler, pins in frames(1, 4, strikes={1, 3}):
                answer = api.post("/api/v1/matches/m1/commands/record-ball",
                                  json={"bowler": bowler, "pins": pins})
                assert answer.status_code == 200, answer.text
        before = public_seqs(url)
        wait_told_up_to(page, before[-1])
        wait_kept(page, "/api/v1/lanes/1-2/screen", before[-1])
        page.wait_for_function("document.querySelector('#recent').innerText.includes('STRIKE')"
                               " || document.querySelector('#banner').innerText.includes('STRIKE')")
        told_before = told(page)
        line = page.inner_text("#match-line")
        assert "game 1 of 1 · frame" in line  # the match as last seen: its game and frame

        server.send_signal(signal.SIGKILL)
        server.wait(timeout=5)
        stopped = time.monotonic()
        assert_shows_the_last_state(page, line)
        # The match goes on while the server is down (the scorer's PC writes the ledger).
        writer = open_service(database)
        for bowler, pins in frames(5, 10, strikes={6}):
            writer.execute("m1", c.RecordBall(bowler, 1, pins, actor="feed:test"))
        finish(writer)
        writer.repository.store.close()
        page.reload()  # from the service worker's copy: the last screen, not an error page
        assert_shows_the_last_state(page, line)
        assert page.locator("#result").is_hidden()
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))  # the outage itself
        assert_shows_the_last_state(page, line)

        server = serve_in_process(database, port)
        page.wait_for_selector("#connection[data-state=live]", timeout=20_000)
        everything = public_seqs(url)
        wait_told_up_to(page, everything[-1])
        page.wait_for_selector("#result:not([hidden]) li[data-bowler=Ann]")
        told_after = told(page)
        # Every event once, in order: what was told before the outage, then the rest.
        assert told_before + told_after == everything[everything.index(told_before[0]):]
        assert told_after[0] == before[-1] + 1
        assert "RESULT" in page.inner_text("#result")
    finally:
        context.close()
        server.kill()
        server.wait(timeout=5)


@pytest.mark.slow
def test_the_kiosk_keeps_its_screen_while_its_network_is_cut_and_catches_up(
        browser, live_server, service):
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = open_kiosk(context, live_server.url)
        for bowler, pins in frames(1, 3, strikes={2}):
            service.execute("m1", c.RecordBall(bowler, 1, pins, actor="feed:test"))
        seq = service.state("m1").seq
        wait_told_up_to(page, seq)
        wait_kept(page, "/api/v1/lanes/1-2/screen", seq)
        told_before = told(page)
        line = page.inner_text("#match-line")
        assert "game 1 of 1 · frame" in line  # the match as last seen: its game and frame

        cut_network(context, True)
        assert_shows_the_last_state(page, line)
        for bowler, pins in frames(4, 10, strikes={5, 7}):
            service.execute("m1", c.RecordBall(bowler, 1, pins, actor="feed:test"))
        finish(service)
        page.reload()  # offline: the service worker's copy
        assert_shows_the_last_state(page, line)
        assert page.locator("#result").is_hidden()

        cut_network(context, False)
        page.wait_for_selector("#connection[data-state=live]", timeout=20_000)
        final = service.state("m1").seq
        wait_told_up_to(page, final)
        page.wait_for_selector("#result:not([hidden]) li[data-bowler=Ann]")
        told_after = told(page)
        assert told_before + told_after == list(range(told_before[0], final + 1))
        assert told_after[0] == seq + 1
    finally:
        context.close()


@pytest.mark.slow
def test_the_phone_keeps_its_hand_while_its_network_is_cut_and_lists_each_moment_once(
        browser, live_server, app, service):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(code_url(app, "Ann").replace("http://localhost", live_server.url))
        page.wait_for_selector("#connection[data-state=live]")
        page.wait_for_function("navigator.serviceWorker.controller !== null")
        for bowler, pins in frames(1, 1, strikes={1}):
            service.execute("m1", c.RecordBall(bowler, 1, pins, actor="feed:test"))
        seq = service.state("m1").seq
        page.wait_for_function("seq => window.AlleyPhone.moments.told('m1') === seq", arg=seq)
        wait_kept(page, "/api/v1/phone/me", seq)
        page.wait_for_selector("#my-hand .card")
        score = page.inner_text("#my-score")

        cut_network(context, True)
        page.wait_for_selector("#connection[data-state=down]")
        for bowler, pins in frames(2, 3, strikes={2, 3}):
            service.execute("m1", c.RecordBall(bowler, 1, pins, actor="feed:test"))
        page.reload()  # offline: the service worker's copy of the page and its last read
        page.wait_for_selector("#connection[data-state=down]")
        page.wait_for_function("text => document.querySelector('#my-score').innerText === text",
                               arg=score)
        page.wait_for_selector("#my-hand .card")  # the cards the strike dealt, still shown
        assert "Reconnecting" in page.inner_text("#connection")

        cut_network(context, False)
        page.wait_for_selector("#connection[data-state=live]", timeout=20_000)
        final = service.state("m1").seq
        page.wait_for_function("seq => window.AlleyPhone.moments.told('m1') === seq", arg=final)
        assert page.evaluate("window.AlleyPhone.moments.log('m1')") == list(
            range(seq + 1, final + 1))
        moments = page.locator("#moments li").all_inner_texts()
        assert moments.count("Strike!") == 2, moments  # the two missed, each once
    finally:
        context.close()
