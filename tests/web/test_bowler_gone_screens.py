"""A bowler the desk marked not here, on the bowlers' own screens in real headless Chromium:
the lane kiosk (1280 px) and the bowler's phone (390 px) say it in words — "Left — keeps the
hand to the showdown" or "Left — hand folded" for one who bowled and left, "Not here — ante
refunded" on the phone of a no-show — never "UP" and never a frame they would seem still to
bowl, and nothing is cut off."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from tests.web.conftest import open_kiosk
from tests.web.test_kiosk_layout import LAYOUT_PROBLEMS, SHOWN_WHOLE
from tests.web.test_phone_browser import kiosk, phone  # noqa: F401

DESK = "commissioner:t"
FEED = "feed:test"
ANN = "section.bowler[data-bowler=Ann]"

PHONE_FITS = """() => {
  const problems = [];
  if (document.documentElement.scrollWidth > innerWidth)
    problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth}px`);
  document.querySelectorAll("#my-score, #board li").forEach(part => {
    const r = part.getBoundingClientRect();
    if (r.left < -0.5 || r.right > innerWidth + 0.5)
      problems.push(`${part.id || part.className} sticks out`);
    if (part.scrollWidth > part.clientWidth + 1) problems.push(`"${part.textContent}" is cut off`);
  });
  return problems;
}"""


def frame_each(service, bowlers, frames: int) -> None:
    for _ in range(frames):
        for bowler in bowlers:
            for pins in (9, 0):
                service.execute("m1", c.RecordBall(bowler, 1, pins, actor=FEED))


def kiosk_layout_problems(page) -> list[str]:
    # A bowler who left has no "next strike" line: it is not among the parts always shown.
    return page.evaluate(LAYOUT_PROBLEMS, [["h2.name", ".describe"],
                                            [*SHOWN_WHOLE, ".gone-note"]])


def test_a_bowler_who_left_keeping_the_hand_is_said_so_on_the_kiosk_and_the_phone(
        phone, kiosk, service):  # noqa: F811
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=FEED))   # cards in her hand
    frame_each(service, ("Bob",), 1)
    frame_each(service, ("Ann", "Bob"), 1)
    kiosk.locator(f"{ANN} .frame", has_text="Frame 3").wait_for()
    phone.locator("#my-score", has_text="Frame 3").wait_for()
    hand = service.state("m1").hands["Ann"]
    assert hand

    service.execute("m1", c.CommissionerBowlerGone("Ann", "went home", actor=DESK))
    left = "Left — keeps the hand to the showdown"
    kiosk.locator(f"{ANN} .gone-note", has_text=left).wait_for()
    phone.locator("#my-score", has_text=left).wait_for()

    # The kiosk: no frame she would seem still to bowl, never up, her cards still shown.
    assert kiosk.inner_text(f"{ANN} .frame") == ""
    assert kiosk.locator(f"{ANN} .up").count() == 0
    assert kiosk.locator(f"{ANN}.is-up").count() == 0
    assert kiosk.locator(f"{ANN} .streak").count() == 0
    assert kiosk.locator(f"{ANN} .card").count() == len(hand)
    assert "Bob" in kiosk.inner_text("section.bowler.is-up h2.name")   # Bob bowls on
    assert kiosk_layout_problems(kiosk) == []

    # The phone: her line and her line on the board say it; no frame, never "YOU'RE UP".
    mine = phone.inner_text("#my-score")
    assert "Frame" not in mine and "UP" not in mine
    assert phone.locator("#my-hand .card").count() == len(hand)
    me_on_board = phone.inner_text("#board li.is-me")
    assert left in me_on_board and "UP" not in me_on_board
    assert phone.evaluate(PHONE_FITS) == []

    # Bob bowls on: the lanes move to frame 4 without her, and she is still not up anywhere.
    frame_each(service, ("Bob",), 1)
    kiosk.wait_for_function("document.querySelector('#match-line').textContent"
                            ".endsWith('frame 4')")
    assert kiosk.locator(f"{ANN} .up").count() == 0
    assert "UP" not in phone.inner_text("#my-score")


def test_a_no_show_reads_not_here_ante_refunded_on_the_phone_and_leaves_the_kiosk(
        phone, kiosk, service):  # noqa: F811
    # A third bowler joins before the first ball, so Ann's absence leaves a match of two.
    service.execute("m1", c.CommissionerAddBowler("Cy", actor=DESK))
    frame_each(service, ("Bob", "Cy"), 2)                             # Ann never came
    kiosk.locator(f"{ANN}").wait_for()
    phone.locator("#board li", has_text="Cy").wait_for()
    paid = service.state("m1").paid["Ann"]
    assert paid > 0

    service.execute("m1", c.CommissionerBowlerGone("Ann", "never came", actor=DESK))
    assert "Ann" not in service.state("m1").bowlers
    phone.locator("#my-score", has_text="Not here — ante refunded").wait_for()
    assert phone.inner_text("#my-hand") == "no cards"
    assert phone.locator("#decision").is_hidden()
    assert "UP" not in phone.inner_text("#my-score")
    assert phone.locator("#board li.is-me").count() == 0               # not in the match
    assert phone.locator("#board li").count() == 2
    assert phone.evaluate(PHONE_FITS) == []

    kiosk.locator(ANN).wait_for(state="detached")                     # no panel to be up in
    assert kiosk.locator("section.bowler").count() == 2
    assert kiosk_layout_problems(kiosk) == []


def test_a_bowler_who_left_under_a_folding_rule_book_reads_hand_folded_on_the_kiosk(
        browser, live_server, service):
    service.execute("m1", c.CommissionerVoidMatch("the league moved", actor=DESK))
    service.create_match("m2", {(1, 1): "Ann", (1, 2): "Cy", (2, 1): "Bob"}, games=1,
                         rules={"leaving_bowler": "folds"}, actor=DESK)
    for bowler in ("Ann", "Cy", "Bob"):
        service.execute("m2", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m2", c.StartMatch(actor=DESK))
    for bowler in ("Ann", "Cy", "Bob"):
        service.execute("m2", c.RecordBall(bowler, 1, 10, actor=FEED))
    screen = open_kiosk(browser, live_server.url, 1280, 720)
    screen.wait_for_function("document.querySelectorAll("
                            "'section.bowler[data-bowler=Ann] .card').length === 3")

    service.execute("m2", c.CommissionerBowlerGone("Ann", "went home", actor=DESK))
    screen.locator(f"{ANN} .gone-note", has_text="Left — hand folded").wait_for()
    assert screen.locator(f"{ANN} .card").count() == 0
    assert screen.inner_text(f"{ANN} .hand") == "no cards"
    assert screen.inner_text(f"{ANN} .frame") == ""
    assert screen.locator(f"{ANN} .up").count() == 0
    assert kiosk_layout_problems(screen) == []
    screen.close()
