"""The commissioner's tablet in real headless Chromium: what the desk sees and is asked.

Destructive powers look dangerous and their confirm names the consequence; sign-in cannot lock
the desk out; the audit log reads as sentences; refusals are in the desk's words; the pages
reflow at phone width.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from alley_poker.ledger import commands as c
from alley_poker.service.audit import audit_entries
from alley_poker.service.health import feed_report
from alley_poker.web.api_request import known_match_ids
from tests.conftest import centre_app
from tests.web.conftest import PIN, signed_in_desk, start_match
from tests.web.test_tablet_browser import tablet_words


def open_tablet(browser, live_server, *, width: int = 1280, height: int = 800,
                answer: bool = True):
    """A signed-in tablet page whose confirms are recorded in ``page.asked`` and answered."""
    page = signed_in_desk(browser, live_server.url, width=width, height=height)
    page.asked = []

    def on_dialog(dialog):
        page.asked.append(dialog.message)
        dialog.accept() if answer else dialog.dismiss()

    page.on("dialog", on_dialog)
    return page


@pytest.fixture
def wary_tablet(browser, live_server):
    """A tablet whose desk says no to every confirm (so nothing is changed by looking)."""
    page = open_tablet(browser, live_server, answer=False)
    yield page
    page.close()


def test_destructive_powers_are_set_apart_as_danger_and_name_their_consequence(
        wary_tablet, service):
    card = wary_tablet.locator("article.match-card[data-match=m1]")
    card.locator("button[data-power=void]").wait_for()
    danger = card.locator(".danger-zone button.danger").evaluate_all(
        "buttons => buttons.map(b => b.dataset.power)")
    assert set(danger) == {"void-guess", "undo-last", "undo-result", "remove-bowler",
                           "bowler-gone", "settle-as-hands-stand", "void"}
    # Confirm result is not among them, and does not look like them.
    confirm = card.locator("button[data-power=confirm-result]")
    assert "danger" not in confirm.get_attribute("class")
    assert card.locator(".danger-zone button[data-power=confirm-result]").count() == 0
    # Both colours read in one script: a locator's evaluate finds the button and reads it in
    # two round trips, and a button the dashboard redrew in between has no style ("").
    red, plain = wary_tablet.evaluate("""() => ['void', 'confirm-result'].map(power =>
        getComputedStyle(document.querySelector(
            `article.match-card[data-match=m1] button[data-power=${power}]`)).backgroundColor)""")
    assert red and plain and red != plain

    card.locator("input[name=reason]").fill("the league cancelled the night")
    card.locator("button[data-power=void]").click()
    card.locator("select[name=bowler]").select_option("Bob")
    card.locator("button[data-power=remove-bowler]").click()
    assert len(wary_tablet.asked) == 2
    void, remove = wary_tablet.asked
    assert "VOID match m1?" in void and "every cent paid is refunded" in void
    assert "Remove Bob?" in remove and "refunded" in remove and "back to the pile" in remove
    # The desk said no: nothing changed.
    assert service.state("m1").status == "playing"
    assert list(service.state("m1").bowlers) == ["Ann", "Bob"]


def wrong_pin(page, live_server) -> None:
    page.goto(f"{live_server.url}/commissioner")
    page.fill("#pin", "0000")
    page.click("button[type=submit]")


@pytest.mark.slow
def test_a_device_with_too_many_wrong_pins_waits_on_a_styled_page_and_others_still_sign_in(
        browser, live_server):
    guesser = browser.new_context().new_page()
    guesser.set_default_timeout(8_000)
    for _ in range(5):
        wrong_pin(guesser, live_server)
        assert "That PIN is not right." in guesser.inner_text(".problem")
    with guesser.expect_response("**/commissioner/sign-in") as answered:
        wrong_pin(guesser, live_server)
    assert answered.value.status == 429
    assert 1 <= int(answered.value.headers["retry-after"]) <= 60
    said = guesser.inner_text(".problem")
    assert "Too many wrong PINs on this device. Try again in" in said
    assert "Too Many Requests" not in guesser.content()
    # The app's own page: its stylesheet and the sign-in form, not a bare white page.
    assert guesser.evaluate("getComputedStyle(document.body).backgroundColor") != \
        "rgb(255, 255, 255)"
    assert guesser.locator("#pin").is_visible()

    # The commissioner's tablet, on the same Wi-Fi address, signs in at once.
    desk = browser.new_context().new_page()
    desk.set_default_timeout(8_000)
    desk.goto(f"{live_server.url}/commissioner")
    desk.fill("#pin", PIN)
    desk.click("button[type=submit]")
    desk.wait_for_selector("#live-state[data-state=live]")


@pytest.fixture
def app(service):
    """The tablet's app, for a centre whose clock is Chicago's (whatever the machine's)."""
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                      time_zone="America/Chicago")


def test_the_audit_page_reads_newest_first_in_pages_on_the_centres_clock_in_plain_words(
        browser, live_server, service):
    start_match(service, "m2", {(3, 1): "Cy", (4, 1): "Di"})
    for ruling in range(60):
        service.execute("m1", c.HollandDaze("Bob", reason=f"ruling {ruling}",
                                            actor="commissioner:tablet"))
    page = open_tablet(browser, live_server)
    page.goto(f"{live_server.url}/commissioner/audit")
    rows = page.locator("#audit tbody tr.audit-entry")
    rows.first.wait_for()
    assert rows.count() == 50
    # Newest first: the last thing done is on top (m2 was made before the rulings).
    assert rows.nth(0).inner_text().split("\t")[-1] == "Holland-daze ruled for Bob (ruling 59)"
    assert "Who" in page.inner_text("#audit thead")
    assert "=" not in page.inner_text("#audit tbody")  # words, not key=value
    # The time is the centre's (Chicago's), not UTC's and not the browser's.
    assert page.inner_text("#audit-zone") == "America/Chicago"
    entry = audit_entries(service.repository.store, newest_first=True, limit=1)[0]
    chicago = datetime.fromisoformat(entry.time).astimezone(ZoneInfo("America/Chicago"))
    assert chicago.strftime("%H:%M:%S") in rows.nth(0).locator("td.when").inner_text()
    # A cursor, not "the oldest 200": the older entries follow, down to the first one.
    page.click("#audit-older")
    page.wait_for_function(
        "document.querySelectorAll('#audit tbody tr.audit-entry').length > 50")
    page.wait_for_selector("#audit-older", state="hidden")
    texts = rows.evaluate_all("rows => rows.map(r => r.cells[3].textContent)")
    assert texts[-1].startswith("Match created for Ann and Bob")
    assert len(texts) == len(set(rows.evaluate_all("rows => rows.map(r => r.dataset.id)")))
    assert "Match started: ante $1.00 each, agreed by all 2" in texts

    # Filter by match, then by bowler.
    page.select_option("#audit-filter select[name=match_id]", "m2")
    page.wait_for_function("[...document.querySelectorAll('#audit tbody tr.audit-entry')]"
                           ".every(r => r.cells[1].textContent === 'm2')")
    page.fill("#audit-filter input[name=bowler]", "Di")
    page.click("#audit-filter button[type=submit]")
    page.wait_for_function("[...document.querySelectorAll('#audit tbody tr.audit-entry')]"
                           ".some(r => r.cells[3].textContent === 'Di agreed to the $1.00 ante')"
                           " && ![...document.querySelectorAll('#audit tbody tr')]"
                           ".some(r => r.textContent.includes('Cy agreed'))")
    assert page.get_attribute("#audit-csv", "href").endswith("?match_id=m2&bowler=Di")


def test_a_refused_new_match_says_what_is_wrong_in_the_desks_words(browser, live_server,
                                                                    service):
    page = open_tablet(browser, live_server)
    page.goto(f"{live_server.url}/commissioner/new-match")
    page.fill("input[name=match_id]", "tue-1")
    page.fill("input[name=lanes]", "3-4")
    seats = page.locator("tr.seat")
    seats.nth(0).locator("[name=bowler]").fill("Cy")
    seats.nth(1).locator("[name=bowler]").fill("Di")
    seats.nth(1).locator("[name=slot]").fill("13")

    def refusal() -> str:
        page.click("button[type=submit].primary")
        page.wait_for_selector("#notice[data-kind=refused]")
        said = page.inner_text("#notice")
        page.evaluate("document.getElementById('notice').dataset.kind = ''")
        return said

    said = refusal()
    assert said == "✖ Refused: The slot in row 2 of the lane slots must be at most 12."
    assert seats.nth(1).locator("[name=slot]").get_attribute("aria-invalid") == "true"

    seats.nth(1).locator("[name=slot]").fill("1")
    seats.nth(1).locator("[name=bowler]").fill("Cy")
    said = refusal()
    assert said == ("✖ Refused: Cy is given two lane slots: each bowler bowls on one lane "
                    "slot")

    seats.nth(1).locator("[name=bowler]").fill("Di")
    page.fill("input[name=ante]", "20000")
    said = refusal()
    assert said == "✖ Refused: The ante must be at most $10000.00."
    for internal in ("slots", "ante_cents", "Input should", "^", "(", "pattern"):
        assert internal not in said
    assert "tue-1" not in known_match_ids(service)  # nothing was made by the refusals


TABLET_PAGES = ["/commissioner", "/commissioner/new-match",
                "/commissioner/manual-entry?match_id=m1", "/commissioner/settlement",
                "/commissioner/audit", "/commissioner/tokens", "/commissioner/odds"]
#: Every visible element's box, and whether its text is clipped, at the page's width.
OFF_SCREEN = """() => {
  const width = window.innerWidth;
  return [...document.querySelectorAll('body *')].filter(e => {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height) return false;
    return box.right > width + 1 || box.left < -1;
  }).map(e => e.tagName + '.' + e.className + ': ' + (e.textContent || '').slice(0, 40));
}"""


def test_the_tablet_pages_reflow_at_phone_width_and_cut_off_no_name_or_card(
        browser, live_server, service):
    start_match(service, "long-night", {(3, 1): "Maximilian-Alexander", (4, 1): "Bartholomew"})
    for bowler in ("Maximilian-Alexander", "Bartholomew"):
        for _ in range(4):  # strikes: four cards each
            service.execute("long-night", c.RecordBall(bowler, 1, 10, actor="feed:test"))
    service.bus.publish("alley", {"kind": "feed_health", "feeds": [feed_health_report()]})
    page = open_tablet(browser, live_server, width=390, height=844)
    row = page.locator("article.match-card[data-match=long-night] "
                       "tr.bowler-row[data-bowler=Maximilian-Alexander]")
    row.wait_for()
    page.wait_for_selector("tr.feed")
    for path in TABLET_PAGES:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        assert page.evaluate(OFF_SCREEN) == [], path

    page.goto(f"{live_server.url}/commissioner")
    row.wait_for()
    hand = row.locator("td.hand")
    state = service.state("long-night")
    cards = [state.display_card(card) for card in state.hands["Maximilian-Alexander"]]
    assert len(cards) >= 4 and hand.inner_text().split() == tablet_words(cards)
    # Read in one go: the dashboard may redraw the row between two separate reads.
    cells = row.evaluate("""r => [...r.querySelectorAll('td.name, td.hand')].map(c => {
        const box = c.getBoundingClientRect();
        return [box.left, box.right, c.scrollWidth <= c.clientWidth + 1]; })""")
    assert len(cells) == 2
    for left, right, not_clipped in cells:
        assert left >= 0 and right <= 390 and not_clipped
    # The table became one card per bowler (the row a flex box), each value beside its
    # column's title.  Waited for on the row as it stands, not read through a locator: the
    # dashboard redraws a row as its odds come in, and a row read while being replaced has
    # no style at all ('' for display: ci33 saw it once the odds came several times a
    # second).
    page.wait_for_function(
        """() => { const r = document.querySelector("article.match-card[data-match=long-night] "
              + "tr.bowler-row[data-bowler=Maximilian-Alexander]");
              const c = r && r.querySelector("td.hand");
              return c !== null && getComputedStyle(r).display === "flex"
                  && getComputedStyle(c, '::before').content === '"Hand: "'; }""",
        timeout=5_000)


def feed_health_report() -> dict:
    return feed_report({"source": "north", "url": "/dev/ttyUSB0", "lanes": [1, 2],
                        "dialect": "apf1", "state": "down", "connected": False,
                        "last_line_at": 1_795_000_000.0, "seconds_silent": 0.4,
                        "heartbeat_s": 10.0, "lines_ok": 120, "lines_rejected": 0,
                        "reconnects": 3, "last_rejected": None,
                        "last_error": "cannot open /dev/ttyUSB0: [Errno 13] Permission denied: "
                                      "'/dev/ttyUSB0' (check the dialout group)"})
