"""What the kiosk keeps on screen, in real headless Chromium: the result after settlement
(also after a reload), who is up and where, and each bowler's running score."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from tests.web.conftest import DESK
from tests.web.conftest import start_stacked_match as start_unlogged
from tests.web.test_kiosk_browser import (
    ann_and_bob_on_the_kiosk,
    ball,
    bowl_to_a_bought_automatic_win,
    open_frames,
)


def start_stacked_match(service, match_id: str, slots: dict) -> None:
    """A started test-mode match whose lanes are kept in the assignment log, as the desk's
    match creation keeps them (the log is what tells a screen where a match was bowled)."""
    start_unlogged(service, match_id, slots)
    service.assignments.record(match_id, slots, actor=DESK, reason="match created")


RESULT = "#result"


def settle_a_split_pot(service) -> None:
    """Ann and Bob bowl open frames, decline the draws and buys and tie (no cards at all):
    the $2.00 pot splits $1.00 each; the desk confirms."""
    open_frames(service, "m1", ["Ann", "Bob"], range(1, 11))
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.DecideEndDraw(bowler, False, actor=f"bowler:{bowler}"))
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.DecideBuy(bowler, False, actor=f"bowler:{bowler}"))
    service.execute("m1", c.CommissionerConfirmResult(actor=DESK))
    assert service.state("m1").status == "settled"


def test_the_result_stays_after_settlement_and_after_a_reload(stacked_kiosk):
    service, page = ann_and_bob_on_the_kiosk(stacked_kiosk, start=start_stacked_match)
    bowl_to_a_bought_automatic_win(service)
    service.execute("m1", c.CommissionerConfirmResult(actor=DESK))
    assert service.lanes.assignment("m1") is None  # the lanes are free again
    page.wait_for_selector(f"{RESULT}:not([hidden]) li[data-bowler=Ann]")
    page.locator("#banner").wait_for(state="hidden", timeout=20_000)  # every banner gone
    result = page.inner_text(RESULT)
    hand = service.state("m1").hands["Ann"]
    assert "Ann wins $3.00" in result, result  # two antes and the card she bought
    assert "Pot $3.00" in result
    assert "good joker" in result  # her winning card, in words
    assert len(hand) == 2
    assert "WON $3.00" in page.inner_text("section.bowler[data-bowler=Ann] .bowler-head")
    assert "Waiting" not in page.inner_text("#match-line")

    page.reload()  # a reload (or a kiosk started late) shows the same result
    page.wait_for_selector(f"{RESULT}:not([hidden]) li[data-bowler=Ann]")
    assert page.inner_text(RESULT) == result
    assert page.locator("section.bowler[data-bowler=Ann] .card").count() == len(hand)
    assert "settled" in page.inner_text("#match-line")


def test_a_split_pot_shows_each_share_and_the_result_gives_way_to_the_next_match(stacked_kiosk):
    service, open_page = stacked_kiosk
    start_stacked_match(service, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
    settle_a_split_pot(service)
    page = open_page()  # a kiosk that starts after the match settled
    page.wait_for_selector(f"{RESULT}:not([hidden])")
    result = page.inner_text(RESULT)
    assert "Ann wins $1.00" in result and "Bob wins $1.00" in result
    assert "Pot $2.00 split: Ann $1.00 · Bob $1.00" in result

    # The next match on the lanes: created, the result stays; started, it gives way.
    service.create_match("m2", {(1, 1): "Cy", (2, 1): "Dee"}, games=1, actor=DESK)
    service.execute("m2", c.ConsentToAnte("Cy", actor="bowler:Cy"))
    page.reload()
    page.wait_for_selector(f"{RESULT}:not([hidden])")
    assert "Ann wins" in page.inner_text(RESULT)
    service.execute("m2", c.ConsentToAnte("Dee", actor="bowler:Dee"))
    service.execute("m2", c.StartMatch(actor=DESK))
    page.wait_for_selector("section.bowler[data-bowler=Cy]")
    assert page.locator(f"{RESULT}").is_hidden()
    assert page.locator("section.bowler[data-bowler=Ann]").count() == 0


def test_the_kiosk_marks_who_is_up_with_each_lane_and_running_score(stacked_kiosk):
    service, open_page = stacked_kiosk
    start_stacked_match(service, "m1", {(1, 1): "Ann", (1, 2): "Cy", (2, 1): "Bob"})
    page = open_page()
    ann, bob, cy = (f"section.bowler[data-bowler={name}]" for name in ("Ann", "Bob", "Cy"))
    page.wait_for_selector(f"{bob} .lane")
    assert "Lane 1" in page.inner_text(f"{ann} .bowler-head")
    assert "Lane 1" in page.inner_text(f"{cy} .bowler-head")
    assert "Lane 2" in page.inner_text(f"{bob} .bowler-head")
    # Lane 1: Ann first; lane 2: Bob.
    page.wait_for_selector(f"{ann}.is-up")
    assert "UP" in page.inner_text(f"{ann} .bowler-head")
    assert page.locator(f"{cy}.is-up").count() == 0
    assert page.locator(f"{bob}.is-up").count() == 1

    service.execute("m1", ball("Ann", 7))  # mid-frame: still Ann
    service.execute("m1", ball("Ann", 2))  # 9 in frame 1: now Cy is up on lane 1
    page.wait_for_selector(f"{cy}.is-up")
    assert page.locator(f"{ann}.is-up").count() == 0
    assert page.locator(f"{ann} .up").count() == 0
    page.wait_for_function(
        f"document.querySelector('{ann} .score').textContent.includes('Total 9')")
    score = page.inner_text(f"{ann} .score")
    assert "Frame 2" in score and "Total 9" in score
    service.execute("m1", ball("Cy", 10))
    page.wait_for_function(f"document.querySelector('{cy} .score').textContent.includes('Frame 2')")
    page.wait_for_selector(f"{ann}.is-up")  # a strike ends Cy's frame
    assert page.locator(f"{cy}.is-up").count() == 0
