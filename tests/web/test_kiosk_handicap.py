"""A league match with handicaps on the kiosk, in real headless Chromium: each bowler's
handicap and handicapped total beside the natural score; a scratch match shows neither."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from tests.web.conftest import DESK
from tests.web.test_kiosk_browser import ball

LEAGUE = {"league_id": "tue", "night_id": "tue-2026-11-24", "night_date": "2026-11-24",
          "people": {"Ann": 17, "Bob": 18}}


def _start(service, handicaps):
    slots = {(1, 1): "Ann", (2, 1): "Bob"}
    service.lanes.assign("m1", slots)
    service.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], games=1, actor=DESK,
                                        league=LEAGUE, handicaps=handicaps))
    for bowler in ("Ann", "Bob"):
        service.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m1", c.StartMatch(actor=DESK))
    service.assignments.record("m1", slots, actor=DESK, reason="match created")


def test_the_kiosk_shows_the_handicap_beside_the_natural_score(stacked_kiosk):
    service, open_page = stacked_kiosk
    _start(service, {"Ann": 31, "Bob": 0})
    page = open_page()
    ann, bob = (f"section.bowler[data-bowler={name}]" for name in ("Ann", "Bob"))
    service.execute("m1", ball("Ann", 7))
    service.execute("m1", ball("Ann", 2))
    page.wait_for_function(
        f"document.querySelector('{ann} .score').textContent.includes('Total 9')")
    assert page.inner_text(f"{ann} .score .handicap") == "· hdcp 31 → 40"
    assert page.inner_text(f"{bob} .score .handicap") == "· hdcp 0 → 0"
    page.close()


def test_a_match_without_handicaps_shows_the_natural_score_alone(stacked_kiosk):
    service, open_page = stacked_kiosk
    _start(service, None)
    page = open_page()
    ann = "section.bowler[data-bowler=Ann]"
    service.execute("m1", ball("Ann", 7))
    service.execute("m1", ball("Ann", 2))
    page.wait_for_function(
        f"document.querySelector('{ann} .score').textContent.includes('Total 9')")
    assert page.locator(f"{ann} .score .handicap").count() == 0
    page.close()
