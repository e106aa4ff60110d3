"""The live win odds on the bowler's phone (docs/phone.md, docs/odds.md): the bowler's room
receives them, the phone's read carries them, and in real headless Chromium at 390 px the
page shows the bowler's own chance and expected share, the others' chances, the result once
it is known — and nothing of them when the centre does not show odds."""

from __future__ import annotations

import math
import re
import time

import pytest

from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from tests.conftest import centre_app
from tests.web.conftest import DESK, OPEN_NIGHT, PIN, serve
from tests.web.test_accessibility import serious_violations
from tests.web.test_kiosk_browser import ball
from tests.web.test_kiosk_screen import settle_a_split_pot
from tests.web.test_phone_browser import PHONE, code_url
from tests.web.test_phone_socket import PhoneClient, phone_session

ODDS_KINDS = ("state", "match_update", "match_odds")


@pytest.fixture
def odds_app(service):
    # The odds computed in the service's own worker thread: no pool process to start.
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     odds={"enabled": True, "iterations": 120, "processes": 0}, **OPEN_NIGHT)
    yield app
    centre_of(app).odds.stop()


@pytest.fixture
def odds_server(odds_app):
    running = serve(odds_app)
    yield running
    running.stop()


def open_phone(browser, url: str, app, bowler: str = "Ann"):
    """``bowler``'s phone at 390 px, opened by their code's URL; its page and a list that
    collects the page's script errors."""
    # No service worker (the offline copy, tested in test_kiosk_offline): page.route, which
    # a test here uses to shape a read, does not see requests a service worker answers.
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                  service_workers="block")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(code_url(app, bowler).replace("http://localhost", url))
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_function("document.querySelector('#my-score').textContent.includes('Lane')")
    return page, errors


def next_odds(phone: PhoneClient, seq: int, timeout: float = 20.0) -> dict:
    """The first ``match_odds`` the phone receives for event ``seq`` (or later)."""
    while True:
        kind, message = phone.next(timeout)
        if kind == "match_odds" and message["odds"]["seq"] >= seq:
            return message


def test_the_bowlers_room_receives_the_odds_after_a_ball_and_on_joining(
        odds_server, odds_app, service):
    ann = PhoneClient(odds_server.url, phone_session(service), kinds=ODDS_KINDS)
    bob = None
    try:
        assert ann.joins.get(timeout=5)["ok"] is True
        assert ann.next()[0] == "state"
        service.execute("m1", ball("Ann", 10))
        seq = service.state("m1").seq
        message = next_odds(ann, seq)
        assert message["match_id"] == "m1"
        assert message["odds"]["seq"] == seq
        assert set(message["odds"]["bowlers"]) == {"Ann", "Bob"}
        assert sum(b["win"] for b in message["odds"]["bowlers"].values()) == pytest.approx(
            1, abs=0.001)
        # The first estimate is refined until the odds settle: the phone gets the latest.
        assert centre_of(odds_app).odds.wait_idle(30)
        odds = centre_of(odds_app).odds.latest("m1")
        assert odds["seq"] == seq and odds["settled"]

        # A phone that joins later (a reload, a reconnection) gets them at once, after the
        # state, without waiting for the next ball.
        bob = PhoneClient(odds_server.url, phone_session(service, "Bob"), kinds=ODDS_KINDS)
        assert bob.next()[0] == "state"
        assert bob.next() == ("match_odds", {"match_id": "m1", "odds": odds})
    finally:
        for phone in (ann, bob):
            if phone is not None:
                phone.close()


def _me(app, service) -> dict:
    client = app.test_client()
    client.set_cookie("alley_phone", phone_session(service))
    answer = client.get("/api/v1/phone/me")
    assert answer.status_code == 200
    return answer.get_json()


def test_the_phones_read_carries_the_odds(odds_app, service):
    service.execute("m1", ball("Ann", 10))
    assert centre_of(odds_app).odds.wait_idle(20)
    state = _me(odds_app, service)["screen"]["state"]
    assert state["odds"] == centre_of(odds_app).odds.latest("m1")
    assert state["odds"]["seq"] == state["seq"]


def test_the_phones_read_carries_no_odds_when_the_centre_shows_none(app, service):
    service.execute("m1", ball("Ann", 10))
    assert "odds" not in _me(app, service)["screen"]["state"]


def _shown(page) -> dict[str, str]:
    """The odds on the phone: its own line, and each other bowler's words on the board."""
    shown = page.eval_on_selector_all(
        ".board-bowler .board-odds",
        "lines => Object.fromEntries(lines.map(l => [l.closest('li')"
        ".querySelector('strong').textContent, l.textContent]))")
    if page.locator("#my-odds").is_visible():
        shown["me"] = page.inner_text("#my-odds")
    return shown


def _wait_shown(page, expected: dict[str, str], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while _shown(page) != expected:
        assert time.monotonic() < deadline, f"{_shown(page)} != {expected}"
        page.wait_for_timeout(50)


def _percent(win: float) -> int:
    return math.floor(win * 100 + 0.5)  # as JavaScript's Math.round (62.5 is 63)


def _money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


@pytest.mark.slow
def test_the_phone_shows_the_bowlers_odds_at_390px_and_they_change_after_a_ball(
        browser, odds_server, odds_app, service, tmp_path):
    page, errors = open_phone(browser, odds_server.url, odds_app)
    assert _shown(page) == {}  # none computed yet
    service.execute("m1", ball("Ann", 10))
    seq = service.state("m1").seq
    page.wait_for_selector(f"#my-odds[data-seq='{seq}']")
    page.wait_for_selector(f".board-odds[data-seq='{seq}']")
    # A first estimate comes at once and is refined until settled: the page ends on those.
    assert centre_of(odds_app).odds.wait_idle(30)
    odds = centre_of(odds_app).odds.latest("m1")["bowlers"]
    ann, bob = odds["Ann"], odds["Bob"]
    first = {
        "me": f"{_percent(ann['win'])}% to win · expect {_money(ann['expected_cents'])}",
        "Bob": f" · {_percent(bob['win'])}% to win"}
    _wait_shown(page, first)
    assert ann["win"] > bob["win"]  # Ann holds three cards, Bob none
    bar = page.eval_on_selector("#my-odds .odds-fill", "f => f.style.width")
    assert bar == f"{_percent(ann['win'])}%"
    assert serious_violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    page.screenshot(path=tmp_path / "phone-odds.png", full_page=True)

    service.execute("m1", ball("Bob", 0, gutter=True))
    service.execute("m1", ball("Bob", 0, gutter=True))
    later = service.state("m1").seq
    page.wait_for_selector(f"#my-odds[data-seq='{later}']")
    assert centre_of(odds_app).odds.wait_idle(30)
    settled = centre_of(odds_app).odds.latest("m1")["bowlers"]
    second = {"me": f"{_percent(settled['Ann']['win'])}% to win · expect "
                    f"{_money(settled['Ann']['expected_cents'])}",
              "Bob": f" · {_percent(settled['Bob']['win'])}% to win"}
    _wait_shown(page, second)
    assert second["me"] != first["me"] and second["Bob"] != first["Bob"]
    assert centre_of(odds_app).odds.latest("m1")["bowlers"]["Ann"]["win"] > ann["win"]

    page.reload()  # a reload (or a phone that slept) has them again at once
    page.wait_for_selector(f"#my-odds[data-seq='{later}']")
    assert _shown(page) == second
    assert errors == []


def test_a_read_that_lands_after_a_refinement_never_brings_back_an_older_estimate(
        browser, odds_server, odds_app, service):
    # The page reads its state over HTTP a moment after each change while the odds come by
    # the socket: a read that started before a refinement can land after it, carrying the
    # same event's first estimate.  CI once saw the page stay on that estimate.
    page, errors = open_phone(browser, odds_server.url, odds_app)
    service.execute("m1", ball("Ann", 10))
    assert centre_of(odds_app).odds.wait_idle(30)
    settled = centre_of(odds_app).odds.latest("m1")
    assert settled["settled"] and settled["iterations"] > 1

    def shown_for(odds: dict) -> dict[str, str]:
        ann, bob = odds["bowlers"]["Ann"], odds["bowlers"]["Bob"]
        return {"me": f"{_percent(ann['win'])}% to win · expect {_money(ann['expected_cents'])}",
                "Bob": f" · {_percent(bob['win'])}% to win"}

    _wait_shown(page, shown_for(settled))

    def swapped(runs: int) -> dict:
        """Odds of the same event from ``runs`` runs, shown unlike the settled ones."""
        ann, bob = settled["bowlers"]["Ann"], settled["bowlers"]["Bob"]
        return {**settled, "iterations": runs, "settled": False,
                "bowlers": {"Ann": {**ann, "win": bob["win"]}, "Bob": {**bob, "win": ann["win"]}}}

    carried: list[dict] = []

    def read_carrying_odds(route):
        reply = route.fetch()
        body = reply.json()
        body["screen"]["state"]["odds"] = carried[-1]
        route.fulfill(response=reply, json=body)

    page.route("**/api/v1/phone/me", read_carrying_odds)
    for odds, expected in ((swapped(settled["iterations"] // 2), shown_for(settled)),
                           (swapped(settled["iterations"] * 2), shown_for(swapped(0)))):
        carried.append(odds)
        with page.expect_response("**/api/v1/phone/me") as read:
            page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # a wake
        read.value.finished()
        page.wait_for_timeout(300)
        # The estimate from fewer runs is refused; one from more runs (a read that is in fact
        # newer than the last push) is taken, so the page does apply what reads carry.
        _wait_shown(page, expected)
    assert errors == []


def test_odds_further_along_supersede_by_event_then_runs_and_the_result_beats_estimates(
        browser, odds_server, odds_app):
    page, _errors = open_phone(browser, odds_server.url, odds_app)
    supersedes = page.evaluate("""() => {
        const odds = (seq, iterations, exact) => ({seq, iterations, exact, bowlers: {}});
        const s = window.AlleyOdds.supersedes;
        return [s(null, odds(3, 40, false)),
                s(odds(3, 40, false), odds(3, 120, false)),
                s(odds(3, 120, false), odds(3, 40, false)),
                s(odds(3, 4000, false), odds(4, 40, false)),
                s(odds(4, 40, false), odds(3, 4000, false)),
                s(odds(3, 4000, false), odds(3, 0, true)),
                s(odds(3, 0, true), odds(3, 4000, false)),
                s(odds(3, 40, false), odds(3, 40, false)),
                s(odds(3, 40, false), {seq: 5})];
    }""")
    assert supersedes == [True, True, False, True, False, True, False, False, False]


def _bowl_to_anns_win(service) -> None:
    """Ann strikes in the first frame (three cards), both bowl open frames after; Bob, with
    no cards, declines the draw, both decline the buy: Ann takes the $2.00 pot."""
    service.execute("m1", ball("Ann", 10))
    service.execute("m1", ball("Bob", 9))
    service.execute("m1", ball("Bob", 0))
    for _frame in range(2, 11):
        for bowler in ("Ann", "Bob"):
            service.execute("m1", ball(bowler, 9))
            service.execute("m1", ball(bowler, 0))
    service.execute("m1", c.DecideEndDraw("Bob", False, actor="bowler:Bob"))
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.DecideBuy(bowler, False, actor=f"bowler:{bowler}"))
    service.execute("m1", c.CommissionerConfirmResult(actor=DESK))
    assert service.state("m1").result["winners"] == ["Ann"]


@pytest.mark.slow
def test_once_the_result_is_in_the_phone_shows_won_or_lost(
        browser, odds_server, odds_app, service):
    ann, ann_errors = open_phone(browser, odds_server.url, odds_app, "Ann")
    bob, bob_errors = open_phone(browser, odds_server.url, odds_app, "Bob")
    _bowl_to_anns_win(service)
    seq = service.state("m1").seq
    for page in (ann, bob):
        page.wait_for_selector(f"#my-odds[data-seq='{seq}']")
    assert _shown(ann) == {"me": "Won · $2.00 to you", "Bob": " · lost"}
    assert _shown(bob) == {"me": "Lost", "Ann": " · won"}
    assert serious_violations(ann) == []
    assert ann_errors == [] and bob_errors == []


@pytest.mark.slow
def test_a_split_pot_shows_as_split_with_the_share(browser, odds_server, odds_app, service):
    page, errors = open_phone(browser, odds_server.url, odds_app)
    settle_a_split_pot(service)
    page.wait_for_selector(f"#my-odds[data-seq='{service.state('m1').seq}']")
    assert _shown(page) == {"me": "Split · $1.00 to you", "Bob": " · split"}
    assert errors == []


def test_with_the_odds_off_nothing_of_them_shows_on_the_phone(
        browser, live_server, app, service):
    assert centre_of(app).odds is None  # the test centre computes no odds unless told
    page, errors = open_phone(browser, live_server.url, app)
    service.execute("m1", ball("Ann", 10))
    page.wait_for_function("document.querySelectorAll('#my-hand .card').length === 3")
    page.wait_for_function("document.querySelector('#my-score').textContent.includes('Total')")
    assert page.locator("#my-odds").is_hidden()
    assert page.locator(".board-odds").count() == 0
    text = page.inner_text("body")
    assert not re.search(r"to win|expect \$|\d+%", text), text
    assert errors == []
