"""The odds' record in real Chromium (docs/odds.md, "The record, shown"): the tablet's Odds
page at 1280 px, reached from its navigation, draws the centre's reliability chart from its
settled matches (worked out in a process of its own) with the same numbers in a table; the
bowler's phone at 390 px links from its odds line to the public record and back; a centre
with too few matches says so instead of drawing a chart.  Under the pages' strict
Content-Security-Policy (the browser fixture fails a test on any violation)."""

from __future__ import annotations

import re

import pytest

from alley_poker.service.odds_record import MIN_MATCHES, OddsRecordSource
from alley_poker.web.centre_access import centre_of
from benchmarks._generated_centre import generated_matches
from tests.conftest import centre_app
from tests.odds.test_odds_history import _stored
from tests.web.conftest import OPEN_NIGHT, PIN, open_service, serve, start_match
from tests.web.test_accessibility import serious_violations, sign_in
from tests.web.test_kiosk_browser import ball
from tests.web.test_phone_browser import PHONE
from tests.web.test_phone_odds import open_phone

TABLET = {"width": 1280, "height": 800}
#: The record's own working-out: 40 matches of 16 nights, 20 runs a prediction, some 20-25 s
#: of CPU on a slow host.  Its process runs at the odds pool's nice (below the balls: a
#: centre's machine is mostly idle), which weighs 15 against a test worker's 1,024 in the
#: kernel's share of the CPU: while the suite's workers keep both cores busy it gets little
#: more than their idle moments, and the wall time grows with the load (67 s at load 9,
#: 117 s at load 16 on 2026-12-02, and over 120 s with a second run beside it).
WORKED_OUT_MS = 300_000


def _app(service, record_processes: int):
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     odds={"enabled": True, "iterations": 120, "processes": 0}, **OPEN_NIGHT)
    # Fewer runs a prediction than the centre's 400: the same work, sooner.
    centre_of(app).odds_record = OddsRecordSource(service.repository.store, iterations=20,
                                                     processes=record_processes)
    return app


@pytest.fixture(scope="module")
def centre_with_a_record(tmp_path_factory):
    """A centre whose store holds 40 settled matches of 16 nights beside m1 (being bowled);
    its record worked out in a process of its own, as a centre's is.  Made once for the
    module: the tablet's test (first) sees the record worked out; working it out again for
    the phone's took a minute or two of a loaded run for the same record.  Its service
    comes third: the phone's test bowls on it."""
    database = tmp_path_factory.mktemp("record") / "ledger.sqlite3"
    service = open_service(database)
    start_match(service)
    matches = generated_matches(seed=5, nights=16, bowlers=12)
    assert len(matches) >= MIN_MATCHES
    _stored(f"sqlite:///{database}", matches)
    app = _app(service, record_processes=1)
    running = serve(app)
    yield app, running, service
    running.stop()
    centre_of(app).odds.stop()


@pytest.fixture
def new_centre(service):
    """A centre with no settled match yet (m1 is being bowled)."""
    app = _app(service, record_processes=0)
    running = serve(app)
    yield app, running
    running.stop()
    centre_of(app).odds.stop()


def _fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


def _shows_the_record(page, record: dict) -> None:
    """The chart and the table on ``page`` are ``record``'s."""
    readable = [b for b in record["bins"] if b["readable"]]
    assert readable, record
    assert page.locator(".record-chart svg circle").count() == len(readable)
    assert page.locator(".record-chart svg .diagonal").count() == 1
    rows = page.locator("#record-table tbody tr")
    assert rows.count() == len(record["bins"])
    for row, shown in zip(rows.all(), record["bins"], strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells[0].split()[0] == str(shown["count"])
        assert cells[2] == f"{round(100 * shown['observed'], 1)}%"
    brier = page.inner_text("#record-brier")
    assert brier == (f"Our odds: {record['brier']:.3f}; guessing 1 in n: "
                     f"{record['naive_brier']:.3f}; lower is better (the Brier score).")
    assert page.inner_text("#record-rests") == (
        f"From {record['matches']} settled matches and {record['predictions']} predictions.")
    # Each point sits at its bin's mean chance given (across) and share won (up).
    box = page.locator(".record-chart svg .plot").bounding_box()
    point = page.locator(".record-chart svg circle").first.bounding_box()
    first = readable[0]
    centre_x = (point["x"] + point["width"] / 2 - box["x"]) / box["width"]
    centre_y = 1 - (point["y"] + point["height"] / 2 - box["y"]) / box["height"]
    assert centre_x == pytest.approx(first["predicted"], abs=0.01)
    assert centre_y == pytest.approx(first["observed"], abs=0.01)


def test_the_tablets_odds_page_draws_the_centres_record_at_1280px(
        browser, centre_with_a_record, tmp_path):
    app, running, _service = centre_with_a_record
    page = sign_in(browser, running.url)
    page.click("nav[aria-label='Commissioner pages'] >> text=Odds")
    assert page.url == f"{running.url}/commissioner/odds"
    assert page.get_attribute("nav a[aria-current=page]", "href") == "/commissioner/odds"
    # The first record is worked out in the background: the page says so, then shows it.
    page.wait_for_selector(".odds-record[data-record-state=ready]", timeout=WORKED_OUT_MS)
    record = centre_of(app).odds_record.current()
    assert record["enough"] and record["matches"] == 40, record
    assert page.get_attribute(".odds-record", "data-enough") == "yes"
    _shows_the_record(page, record)
    _fits(page, TABLET["width"])
    assert serious_violations(page) == []
    page.screenshot(path=tmp_path / "tablet-odds.png", full_page=True)


def test_the_phones_odds_link_to_the_public_record_at_390px_and_back(
        browser, centre_with_a_record, tmp_path):
    app, running, service = centre_with_a_record
    centre_of(app).odds_record.current()
    assert centre_of(app).odds_record.wait(WORKED_OUT_MS / 1000)
    page, errors = open_phone(browser, running.url, app)
    link = page.locator("#odds-record-link")
    assert not link.is_visible()  # no odds yet: no line to ask about
    service.execute("m1", ball("Ann", 10))
    page.wait_for_selector("#my-odds:not([hidden])")
    assert link.is_visible() and link.inner_text() == "How good are these odds?"
    _fits(page, PHONE["width"])
    page.screenshot(path=tmp_path / "phone-odds-link.png")

    link.locator("a").click()
    page.wait_for_selector(".odds-record[data-enough=yes]")
    assert page.url == f"{running.url}/odds"
    _shows_the_record(page, centre_of(app).odds_record.current())
    # Read-only: nothing of the desk, and the whole record on a phone's screen.
    assert page.locator("form, nav, button, input").count() == 0
    assert not re.search("commissioner|sign out", page.content(), re.IGNORECASE)
    _fits(page, PHONE["width"])
    assert serious_violations(page) == []
    page.screenshot(path=tmp_path / "phone-odds-record.png", full_page=True)

    page.click("text=Back to my hand")
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector("#my-odds:not([hidden])")
    assert errors == []


@pytest.mark.parametrize("where", ["tablet", "phone"])
def test_a_centre_with_too_few_matches_says_so_instead_of_a_chart(browser, new_centre, where):
    _app, running = new_centre
    if where == "tablet":
        page, width = sign_in(browser, running.url), TABLET["width"]
        page.goto(f"{running.url}/commissioner/odds")
    else:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page, width = context.new_page(), PHONE["width"]
        page.goto(f"{running.url}/odds")
    page.wait_for_selector(".odds-record[data-record-state=ready]", timeout=30_000)
    status = page.inner_text(".record-status")
    assert status.startswith("Not enough matches yet to judge the odds: the record rests on "
                             "0 settled matches (0 predictions)")
    assert page.locator(".record-chart, #record-table, #record-brier").count() == 0
    _fits(page, width)
    assert serious_violations(page) == []
