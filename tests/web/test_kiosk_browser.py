"""The kiosk in real headless Chromium (Debian's ``chromium`` driven by Playwright)."""

from __future__ import annotations

import signal
import time

from alley_poker.ledger import commands as c
from alley_poker.ledger.views import public_match_view
from tests.web.conftest import PIN, free_port, serve_in_process

SCREENSHOT = "/tmp/kiosk.png"


def open_kiosk(browser, url: str, width: int = 1920, height: int = 1080):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(10_000)
    page.goto(f"{url}/kiosk/1-2")
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector("section.bowler[data-bowler=Ann]")
    return page


def test_kiosk_shows_a_strikes_cards_within_a_second(browser, live_server, service):
    page = open_kiosk(browser, live_server.url)
    assert page.locator("section.bowler[data-bowler=Ann] .card").count() == 0
    started = time.monotonic()
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    page.wait_for_function(
        "document.querySelectorAll('section.bowler[data-bowler=Ann] .card').length === 3",
        timeout=1000)
    elapsed = time.monotonic() - started
    assert elapsed < 1.0
    shown = page.eval_on_selector_all("section.bowler[data-bowler=Ann] .card",
                                      "cards => cards.map(c => c.dataset.card)")
    state = service.state("m1")
    assert shown == [state.display_card(card) for card in state.hands["Ann"]]
    assert "STRIKE" in page.inner_text("#banner")
    labels = page.eval_on_selector_all("section.bowler[data-bowler=Ann] .card",
                                       "cards => cards.map(c => c.getAttribute('aria-label'))")
    assert all(" of " in label or "joker" in label for label in labels)
    view = public_match_view(service.state("m1"))
    assert page.inner_text("section.bowler[data-bowler=Ann] .describe") == \
        view["bowlers"]["Ann"]["describe"]
    assert page.inner_text("#pot") == "Pot $2.00"
    page.wait_for_timeout(600)  # let the deal and banner animations finish for the picture
    page.screenshot(path=SCREENSHOT)


def test_a_gutter_prompt_appears_and_a_tap_on_a_card_loses_it(browser, live_server, service):
    page = open_kiosk(browser, live_server.url)
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    ann = "section.bowler[data-bowler=Ann]"
    page.wait_for_selector(f"{ann} .decision[data-kind=lose_card]")
    assert "tap a card" in page.inner_text(f"{ann} .decision")
    assert "GUTTER" in page.inner_text("#banner")
    page.wait_for_timeout(600)
    page.screenshot(path="/tmp/kiosk-gutter.png")
    hand_before = service.state("m1").hands["Ann"]
    chosen = page.locator(f"{ann} .card").nth(1)
    face = chosen.get_attribute("data-card")
    chosen.click()
    page.wait_for_function(
        f"document.querySelectorAll('{ann} .card').length === {len(hand_before) - 1}")
    assert page.locator(f"{ann} .decision").count() == 0
    shown = page.eval_on_selector_all(f"{ann} .card", "cards => cards.map(c => c.dataset.card)")
    assert face not in shown
    assert service.state("m1").pending_for("Ann") == []


def test_the_kiosk_reconnects_by_itself_after_a_server_restart(browser, database, service):
    port = free_port()
    server = serve_in_process(database, port)
    try:
        page = open_kiosk(browser, f"http://127.0.0.1:{port}")
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=5)
        page.wait_for_selector("#connection[data-state=down]")
        assert "Reconnecting" in page.inner_text("#connection")
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        server = serve_in_process(database, port)
        page.wait_for_selector("#connection[data-state=live]", timeout=15_000)
        page.wait_for_function(
            "document.querySelectorAll('section.bowler[data-bowler=Ann] .card').length === 3")
    finally:
        server.kill()
        server.wait(timeout=5)


def test_commissioner_signs_in_rules_a_holland_daze_and_the_kiosk_shows_it(
        browser, live_server, service):
    kiosk = open_kiosk(browser, live_server.url)
    tablet = browser.new_page(viewport={"width": 1280, "height": 800})
    tablet.set_default_timeout(10_000)
    tablet.goto(f"{live_server.url}/commissioner")
    tablet.fill("#pin", "9999")
    tablet.click("button[type=submit]")
    assert "not right" in tablet.inner_text(".problem")
    tablet.fill("#pin", PIN)
    tablet.click("button[type=submit]")
    card = tablet.locator("article.match-card[data-match=m1]")
    card.locator("select[name=bowler]").select_option("Bob")
    tablet.on("dialog", lambda dialog: dialog.accept())
    seq_before = service.state("m1").seq
    card.locator("button[data-power=holland-daze]").click()
    assert "Give a reason" in tablet.inner_text("#notice")  # nothing is ruled without one
    assert service.state("m1").seq == seq_before
    card.locator("input[name=reason]").fill("bowled frame 1 on lane 1")
    card.locator("button[data-power=holland-daze]").click()
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes('Holland-daze for Bob')")
    kiosk.wait_for_function(
        "document.getElementById('banner').textContent.includes('HOLLAND-DAZE')")
    assert "Bob" in kiosk.inner_text("#banner")
    ruled = [record for record in service.repository.store.load("m1")
             if record["type"] == "holland_daze"]
    assert [(r["data"]["bowler"], r["data"]["actor"], r["data"]["reason"]) for r in ruled] == [
        ("Bob", "commissioner:tablet", "bowled frame 1 on lane 1")]


def test_a_bowler_guesses_the_ball_return_and_steals_with_a_tap(browser, live_server, service):
    page = open_kiosk(browser, live_server.url)
    ann, bob = "section.bowler[data-bowler=Ann]", "section.bowler[data-bowler=Bob]"
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    page.wait_for_selector(f"{ann} .decision[data-kind=lose_card] button.side-left")
    assert page.locator(f"{bob} .decision").count() == 0  # only the bowler whose decision it is
    page.click(f"{ann} button.side-left")
    page.wait_for_function(
        f"document.querySelector('{ann} .decision').textContent.includes('GUESSED LEFT')")
    assert page.locator(f"{ann} .decision button").count() == 0
    assert service.state("m1").pending_for("Ann")[0]["guess"]["side"] == "left"
    service.execute("m1", c.RecordGuessOutcome("Ann", "right", actor="commissioner:desk"))
    service.execute("m1", c.DecideLoseCard(
        "Ann", service.state("m1").display_card(service.state("m1").hands["Ann"][0]),
        actor="bowler:Ann"))

    # Bob picks up a split: he steals by tapping a card in Ann's hand.
    service.execute("m1", c.RecordBall("Bob", 1, 8, standing=[7, 10], actor="feed:test"))
    service.execute("m1", c.RecordBall("Bob", 1, 2, standing=[], actor="feed:test"))
    page.wait_for_selector(f"{bob} .decision[data-kind=steal]")
    assert "STEAL" in page.inner_text(f"{bob} .decision")
    target = page.locator(f"{ann} .card.stealable").first
    face = target.get_attribute("data-card")
    assert page.locator(f"{bob} .card.stealable").count() == 0  # not from himself
    target.click()
    page.wait_for_selector(f"{bob} .decision", state="detached")
    state = service.state("m1")
    assert face in [state.display_card(card) for card in state.hands["Bob"]]
    assert page.locator(f"{bob} .card[data-card='{face}']").count() == 1
    assert page.locator(f"{ann} .card[data-card='{face}']").count() == 0


def test_end_of_match_draw_and_buy_are_taps_on_the_kiosk(browser, live_server, service):
    for _frame in range(10):
        for bowler in ("Ann", "Bob"):
            service.execute("m1", c.RecordBall(bowler, 1, 1, actor="feed:test"))
            service.execute("m1", c.RecordBall(bowler, 1, 1, actor="feed:test"))
    page = open_kiosk(browser, live_server.url)
    ann, bob = "section.bowler[data-bowler=Ann]", "section.bowler[data-bowler=Bob]"
    page.wait_for_selector(f"{ann} .decision[data-kind=end_draw]")
    assert "end-of-match draw" in page.inner_text(f"{ann} .decision")
    assert page.locator(f"{ann} .decision .deadline").inner_text().count(":") == 1
    page.click(f"{ann} .decision button.yes")
    page.click(f"{bob} .decision button.no")
    page.wait_for_selector(f"{bob} .decision[data-kind=buy]")
    assert service.state("m1").ante_cents == 100  # a card costs the ante
    assert page.inner_text(f"{bob} .decision button.yes") == "BUY — $1.00"
    page.screenshot(path="/tmp/kiosk-buy.png")
    page.click(f"{bob} .decision button.yes")
    page.wait_for_function(f"document.querySelectorAll('{bob} .card').length === 1")
    assert len(service.state("m1").hands["Bob"]) == 1
    assert service.state("m1").paid["Bob"] == 200  # the ante and the card
    assert len(service.state("m1").hands["Ann"]) == 1  # her end-of-match draw
