"""The bowler's phone in real headless Chromium at 390 px: opened by its QR code's URL, it
shows the hand, answers the bowler's own decisions (lose a card, guess and where the ball
came back, draw, buy with the price confirmed), says when the bowler's balls are held for the
desk, and the kiosk and the tablet follow."""

from __future__ import annotations

import re

import pytest

from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from drivers.base import BallRecorded
from tests.web.conftest import open_kiosk, pair_kiosk, signed_in_client, signed_in_desk

PHONE = {"width": 390, "height": 844}


def code_url(app, bowler: str = "Ann") -> str:
    tablet, csrf = signed_in_client(app)
    made = tablet.post("/api/v1/matches/m1/phone-links", json={"bowler": bowler},
                       headers={"X-CSRFToken": csrf})
    assert made.status_code == 201
    return made.get_json()["url"]


@pytest.fixture
def phone(browser, live_server, app):
    """Ann's phone, opened by her code's URL as a camera app would open it."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(8_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = code_url(app).replace("http://localhost", live_server.url)
    page.goto(url)
    assert page.url == f"{live_server.url}/phone"  # the token left the address bar
    page.wait_for_selector("#connection[data-state=live]")
    yield page
    context.close()
    assert errors == [], "the phone's script failed"


@pytest.fixture
def kiosk(browser, live_server):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(8_000)
    page.goto(f"{live_server.url}/kiosk/1-2")
    page.wait_for_selector("#connection[data-state=live]")
    yield page
    page.close()


@pytest.fixture
def tablet(browser, live_server):
    page = signed_in_desk(browser, live_server.url)
    yield page
    page.close()


def hand_of(page) -> list[str]:
    return page.eval_on_selector_all("#my-hand .card", "cards => cards.map(c => c.dataset.card)")


def kiosk_hand(kiosk) -> list[str]:
    return kiosk.eval_on_selector_all("section.bowler[data-bowler=Ann] .hand .card",
                                      "cards => cards.map(c => c.dataset.card)")


def test_the_phone_loses_a_card_and_guesses_and_the_kiosk_follows(phone, kiosk, service):
    assert phone.locator("h1").inner_text() == "Ann"
    assert "no cards yet" in phone.locator("#my-hand").inner_text()
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    phone.wait_for_function("document.querySelectorAll('#my-hand .card').length === 3")
    describe = phone.locator("#my-describe").inner_text()
    assert describe and describe != "Waiting for the match…"
    assert "Strike!" in phone.locator("#moments").inner_text()
    assert "Lane 1" in phone.locator("#board").inner_text()  # the kiosk's board

    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    phone.locator("#decision").wait_for()
    assert "Gutter ball" in phone.locator("#decision-prompt").inner_text()
    first = phone.locator("#decision-deadline").inner_text()
    assert re.fullmatch(r"[0-9]:[0-5][0-9]", first)
    phone.wait_for_function(f"document.querySelector('#decision-deadline').textContent "
                            f"!== {first!r}")  # it counts down
    cards = hand_of(phone)
    lost = cards[1]
    phone.locator("#my-hand button.card-choice").nth(1).tap()
    phone.wait_for_function("document.querySelectorAll('#my-hand .card').length === 2")
    assert lost not in hand_of(phone)
    assert phone.locator("#decision").is_hidden()
    kiosk.wait_for_function("document.querySelectorAll("
                            "'section.bowler[data-bowler=Ann] .hand .card').length === 2")
    assert sorted(kiosk_hand(kiosk)) == sorted(hand_of(phone))
    assert "went back to the pile" in phone.locator("#moments").inner_text()

    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    phone.locator("#decision button.side-left").tap()
    phone.wait_for_function("document.querySelector('#decision-prompt').textContent"
                            ".includes('You guessed LEFT')")
    assert service.state("m1").pending_for("Ann")[0]["guess"]["side"] == "left"
    kiosk.wait_for_function("document.querySelector("
                            "'section.bowler[data-bowler=Ann] .decision').textContent"
                            ".includes('GUESSED LEFT')")


def test_the_phone_takes_the_draw_and_buys_after_naming_the_price(phone, tablet, service):
    for _frame in range(10):
        for bowler in ("Ann", "Bob"):
            for _ball in range(2):
                service.execute("m1", c.RecordBall(bowler, 1, 1, actor="feed:test"))
    phone.locator("#decision button", has_text="YES — DRAW").tap()
    phone.wait_for_function("document.querySelectorAll('#my-hand .card').length === 1")
    tablet.wait_for_selector(".decision-row[data-bowler=Bob][data-kind=end_draw]")
    assert tablet.locator(".decision-row[data-bowler=Ann]").count() == 0
    service.execute("m1", c.DecideEndDraw("Bob", True, actor="bowler:Bob"))

    price = "$" + f"{service.state('m1').ante_cents / 100:.2f}"
    buy = phone.locator("#decision button", has_text="BUY")
    buy.wait_for()
    assert price in buy.inner_text()
    paid = service.state("m1").paid["Ann"]
    buy.tap()
    dialog = phone.locator("#confirm-buy")
    dialog.wait_for()  # shown by the tap's handler; wait rather than read it at once
    assert price in dialog.inner_text()
    assert service.state("m1").paid["Ann"] == paid  # nothing bought before the confirm
    dialog.locator("#confirm-yes", has_text=f"Buy for {price}").tap()
    phone.wait_for_function("document.querySelectorAll('#my-hand .card').length === 2")
    assert service.state("m1").paid["Ann"] == paid + service.state("m1").ante_cents
    assert "You bought a card" in phone.locator("#moments").inner_text()
    tablet.wait_for_function("!document.querySelector('.decision-row[data-bowler=Ann]')")
    tablet.locator(".decision-row[data-bowler=Bob][data-kind=buy]").wait_for()  # one (strict)


def test_an_expired_or_revoked_phone_shows_a_clear_page(browser, live_server, app):
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    page = context.new_page()
    url = code_url(app, "Bob").replace("http://localhost", live_server.url)
    page.goto(url)
    # The page has read its lanes (/api/v1/phone/me): no read of its own is left to race
    # the navigation below (a read refused after the revocation reloads the page).
    page.wait_for_function("document.querySelector('#my-score').textContent.includes('Lane')")
    link_id = centre_of(app).phone_links.list("m1")[-1].id
    centre_of(app).phone_links.revoke(link_id)
    # The bowler opens the phone page again.  A fresh tab, as the old one reloads itself when
    # its next read is refused, and that reload would abort a navigation of the same tab.
    page.close()
    page = context.new_page()
    answer = page.goto(f"{live_server.url}/phone")
    assert answer.status == 410
    assert "turned off by the desk" in page.locator("h1").inner_text()
    assert "Ask the desk for a new code" in page.locator("main").inner_text()
    context.close()


def test_balls_held_for_the_desk_show_on_the_kiosk_and_the_phone(phone, kiosk, service):
    ann_note = "section.bowler[data-bowler=Ann] .held-note"
    phone.wait_for_function("document.querySelector('#my-score').textContent"
                            ".includes('Lane 1')")
    # The scorer's frame 2 for Ann arrives before her frame 1: both balls wait on the desk.
    for ball, pins in ((1, 9), (2, 0)):
        service.router.handle(BallRecorded(lane=1, bowler=1, game=1, frame=2, ball=ball,
                                           pins=pins, source="scorer"))
    kiosk.locator(ann_note, has_text="2 balls held for the desk").wait_for()
    phone.locator("#my-score", has_text="2 balls held for the desk").wait_for()
    assert "Total 0" in phone.locator("#my-score").inner_text()  # and why it is still 0
    assert kiosk.locator("section.bowler[data-bowler=Bob] .held-note").count() == 0
    assert "held" not in phone.locator("#board li:not(.is-me)").inner_text()

    # Her frame 1 comes: the held balls go in after it, and the notice goes.
    service.router.handle(BallRecorded(lane=1, bowler=1, game=1, frame=1, ball=1, pins=10,
                                       source="scorer"))
    kiosk.locator(ann_note).wait_for(state="detached")
    phone.wait_for_function("document.querySelector('#my-score').dataset.held === '0'")
    assert "held" not in phone.locator("#my-score").inner_text()
    assert [b["pins"] for b in service.state("m1").balls["Ann"][0]] == [10, 9, 0]
    kiosk.locator("section.bowler[data-bowler=Ann] .total", has_text="Total 28").wait_for()


def test_the_bowler_enters_where_the_ball_came_back_on_the_phone_and_the_kiosk(
        phone, browser, live_server, service):
    kiosk = open_kiosk(browser, live_server.url, device_token=pair_kiosk(live_server.app))
    kiosk.wait_for_selector("body[data-paired=yes]")
    ann_decision = "section.bowler[data-bowler=Ann] .decision"
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    phone.locator("#decision button.side-right").tap()
    phone.wait_for_function("document.querySelector('#decision-prompt').textContent"
                            ".includes('You guessed RIGHT')")
    hand = hand_of(phone)
    # The ball came back right: the guess was right, the decision closes, no card is lost.
    phone.locator("#decision button.came-right").tap()
    phone.locator("#decision").wait_for(state="hidden")
    assert service.state("m1").pending_for("Ann") == []
    assert sorted(hand_of(phone)) == sorted(hand) and len(hand) == 3
    assert "Your guess was right" in phone.locator("#moments").inner_text()
    kiosk.locator(ann_decision).wait_for(state="detached")

    # At the kiosk: a guess of LEFT, the ball came back right: Ann now picks her card.
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    kiosk.locator(f"{ann_decision} button.side-left").click()
    kiosk.locator(f"{ann_decision} button.came-right").click()
    kiosk.locator(f"{ann_decision}[data-choosing=yes]").wait_for()
    (decision,) = service.state("m1").pending_for("Ann")
    assert decision["guess"] == {**decision["guess"], "side": "left", "outcome": "right",
                                 "correct": False}
    phone.wait_for_function("document.querySelector('#decision-prompt').textContent"
                            ".includes('tap the card to lose')")
    assert "Your guess was wrong" in phone.locator("#moments").inner_text()
    kiosk.close()
