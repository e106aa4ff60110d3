"""axe-core, run inside real headless Chromium, finds no serious or critical accessibility
violation on the kiosk (during play, with a decision open, and after settlement, on a TV and
on a phone), the tablet's dashboard and its settlement view.

axe-core comes from npm (kiosk/package.json) and is vendored by ``./dev setup`` into
kiosk/static/vendor, as socket.io-client is; the test injects it into each page.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from alley_poker.ledger import commands as c
from tests.conftest import skip_or_fail
from tests.web.conftest import PIN
from tests.web.test_kiosk_screen import open_kiosk, settle_a_split_pot

AXE = Path(__file__).resolve().parents[2] / "kiosk" / "static" / "vendor" / "axe.min.js"
SERIOUS = ("serious", "critical")

RUN_AXE = """async () => {
  const report = await axe.run(document, {resultTypes: ["violations"]});
  return report.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}));
}"""


def serious_violations(page) -> list[dict]:
    if not AXE.exists():
        skip_or_fail(f"{AXE} is missing: ./dev setup vendors axe-core from npm")
    page.add_script_tag(path=str(AXE))
    # A banner popping in is half transparent for 0.4 s: judge the colours it settles on.
    page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
    return [v for v in page.evaluate(RUN_AXE) if v["impact"] in SERIOUS]


def test_the_kiosk_has_no_serious_accessibility_violation(browser, live_server, service):
    page = open_kiosk(browser, live_server.url)
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    page.wait_for_selector("section.bowler[data-bowler=Ann] .decision")
    page.wait_for_selector("#banner:not([hidden])")
    assert serious_violations(page) == []
    page.set_viewport_size({"width": 390, "height": 844})
    assert serious_violations(page) == []


def test_the_kiosk_after_settlement_has_no_serious_accessibility_violation(
        browser, live_server, service):
    settle_a_split_pot(service)
    page = open_kiosk(browser, live_server.url)
    page.wait_for_selector("#result:not([hidden])")
    assert serious_violations(page) == []


def sign_in(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(10_000)
    page.goto(f"{url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("article.match-card[data-match=m1]")
    return page


def test_the_tablet_dashboard_has_no_serious_accessibility_violation(browser, live_server):
    page = sign_in(browser, live_server.url)
    assert serious_violations(page) == []


def test_the_settlement_view_has_no_serious_accessibility_violation(
        browser, live_server, service):
    settle_a_split_pot(service)
    page = sign_in(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/settlement")
    page.wait_for_load_state("networkidle")
    assert page.locator("main, body").first.inner_text()
    assert serious_violations(page) == []


@pytest.fixture(autouse=True)
def _screens_need_axe():
    if not AXE.exists():
        skip_or_fail(f"{AXE} is missing: ./dev setup vendors axe-core from npm")


def test_the_league_pages_have_no_serious_accessibility_violation(
        browser, live_server, app, service, width=390):
    """At a phone's width, the narrowest the tablet pages are used at."""
    from tests.web.test_league_pages import play_a_night

    play_a_night(app, service)
    page = sign_in(browser, live_server.url)
    page.set_viewport_size({"width": width, "height": 900})
    for path in ("leagues", "leagues/tue", "leagues/tue/night", "leagues/tue/standings",
                 "leagues/tue/nights/2026-11-24"):
        page.goto(f"{live_server.url}/commissioner/{path}")
        page.wait_for_load_state("networkidle")
        assert serious_violations(page) == [], path
        # Nothing is cut off at a phone's width: the page never scrolls sideways.
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, path
