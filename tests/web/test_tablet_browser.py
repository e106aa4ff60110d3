"""The commissioner's tablet in real headless Chromium, against the real JSON API.

The tablet signs in with the PIN, creates a match, records each bowler's ante agreement and
starts it; enters balls by tapping the pin diagram (the split shown is the server's);
resolves a bowler's pending decision; downloads the night's settlement as CSV.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from alley_poker.ledger import commands as c
from tests.web.conftest import PIN

SCREENSHOT = "/tmp/tablet.png"


@pytest.fixture
def tablet(browser, live_server):
    """A signed-in tablet page (1280x800, the tablet's size)."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(8_000)
    page.goto(f"{live_server.url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#live-state[data-state=live]")
    page.on("dialog", lambda dialog: dialog.accept())  # every ruling's confirm: yes
    return page


def match_card(page, match_id: str):
    return page.locator(f"article.match-card[data-match='{match_id}']")


def test_the_tablet_creates_a_match_records_consents_and_starts_it(tablet, live_server,
                                                                    service):
    tablet.click("nav >> text=New match")
    tablet.fill("input[name=match_id]", "tue-1")
    tablet.fill("input[name=lanes]", "3-4")
    tablet.fill("input[name=games]", "2")
    tablet.fill("input[name=ante]", "1.50")
    seats = tablet.locator("tr.seat")
    seats.nth(0).locator("[name=bowler]").fill("Cy")
    seats.nth(1).locator("[name=bowler]").fill("Di")
    tablet.click("#add-seat")
    seats.nth(2).locator("[name=bowler]").fill("Ed")
    assert [seats.nth(i).locator("[name=lane]").input_value() for i in range(3)] == \
        ["3", "4", "3"]
    tablet.click("button[type=submit].primary")
    card = match_card(tablet, "tue-1")
    card.locator("button.consent").first.wait_for()
    state = service.state("tue-1")
    assert state.status == "open" and list(state.bowlers) == ["Cy", "Di", "Ed"]
    assert state.ante_cents == 150 and state.games == 2
    assert service.lanes.assignment("tue-1").slots == {(3, 1): "Cy", (4, 1): "Di",
                                                       (3, 2): "Ed"}

    for name in ("Cy", "Di", "Ed"):
        card.locator(f"button.consent[data-bowler={name}]").click()
        card.locator(f"button.consent[data-bowler={name}]", has_text="✔").wait_for()
    assert service.state("tue-1").consents == {"Cy", "Di", "Ed"}
    card.locator("button.start").click()
    card.locator("h3", has_text="playing").wait_for()
    assert service.state("tue-1").status == "playing"
    assert "$4.50" in card.locator("h3").inner_text()
    # Who is up on each lane: the first bowler in slot order.
    assert card.locator("tr.bowler-row.is-up").evaluate_all(
        "rows => rows.map(r => r.dataset.bowler)") == ["Cy", "Di"]


def test_manual_entry_by_pin_diagram_shows_the_split_and_records_the_ball(
        tablet, live_server, service):
    tablet.goto(f"{live_server.url}/commissioner/manual-entry?match_id=m1")
    tablet.wait_for_function("document.getElementById('entry-bowler').value === 'Ann'")
    assert "frame 1, ball 1" in tablet.inner_text("#entry-where")
    tablet.click(".pin[data-pin='7']")
    tablet.click(".pin[data-pin='10']")
    tablet.wait_for_selector("#split[data-split=true]")
    assert "SPLIT" in tablet.inner_text("#split")
    assert tablet.inner_text("#leave") == "Standing: 7-10 · 8 down"
    tablet.click(".pin[data-pin='10']")  # 7 alone is no split
    tablet.wait_for_selector("#split[data-split=false]")
    tablet.click(".pin[data-pin='10']")
    tablet.wait_for_selector("#split[data-split=true]")
    tablet.click("#enter-ball")
    tablet.wait_for_function(
        "document.getElementById('entry-where').textContent.includes('ball 2')")
    (ball,) = service.state("m1").balls["Ann"][0]
    assert (ball["pins"], sorted(ball["standing"]), ball["split"]) == (8, [7, 10], True)
    # The second ball faces only the 7 and the 10; the others cannot be tapped.
    assert tablet.locator(".pin:enabled").evaluate_all(
        "pins => pins.map(p => p.dataset.pin)") == ["7", "10"]
    tablet.click("#enter-ball")  # both down: the split converted
    tablet.wait_for_function(
        "document.querySelector('#entries li').textContent.includes('2 down')")
    assert [b["pins"] for b in service.state("m1").balls["Ann"][0]] == [8, 2]

    tablet.click("#undo-entry")
    tablet.wait_for_selector("#entries li.undone")
    assert [b["pins"] for b in service.state("m1").balls["Ann"][0]] == [8]
    tablet.wait_for_function(
        "document.getElementById('entry-where').textContent.includes('ball 2')")
    tablet.click("#enter-gutter")
    tablet.wait_for_function(
        "document.querySelector('#entries li').textContent.includes('gutter')")
    assert service.state("m1").balls["Ann"][0][-1]["gutter"] is True


def test_the_tablet_resolves_a_pending_decision_for_a_bowler(tablet, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    row = match_card(tablet, "m1").locator(".decision-row[data-bowler=Ann]")
    row.wait_for()
    assert "lose a card" in row.inner_text()
    face = service.state("m1").display_card(service.state("m1").hands["Ann"][0])
    row.locator("button", has_text=f"Lose {face}").click()
    row.wait_for(state="detached")
    assert service.state("m1").pending_for("Ann") == []
    assert face not in [service.state("m1").display_card(card)
                        for card in service.state("m1").hands["Ann"]]


def test_settlement_downloads_as_csv(tablet, live_server, service):
    tablet.goto(f"{live_server.url}/commissioner/settlement")
    tablet.wait_for_selector("#settlement tbody tr td:has-text('Ann')")
    with tablet.expect_download() as downloading:
        tablet.click("#settlement-csv")
    rows = list(csv.DictReader(io.StringIO(Path(downloading.value.path()).read_text("utf-8"))))
    assert {row.get("bowler") for row in rows} >= {"Ann", "Bob"}
