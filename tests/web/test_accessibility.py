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
from tests.web.conftest import PIN, open_kiosk
from tests.web.test_kiosk_screen import settle_a_split_pot

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
    if page.url.startswith("http"):
        # From the page's own server: its policy runs no inline script (add_script_tag's
        # path= inlines the file), only the centre's own files.
        page.add_script_tag(url="/static/vendor/axe.min.js")
    else:
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
    page.wait_for_selector("article.match-card[data-match=m1]", state="attached")
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


@pytest.mark.slow
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


def test_the_phone_page_and_the_desks_codes_have_no_serious_accessibility_violation(
        browser, live_server, app, service, width=390):
    """The bowler's phone at 390 px with a decision open, the clear page of a spent code,
    the tablet's phone codes with a code shown, and a kiosk showing a bowler's code."""
    from tests.web.test_phone_browser import PHONE, code_url

    url = code_url(app).replace("http://localhost", live_server.url)
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    phone = context.new_page()
    phone.goto(url)
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    phone.wait_for_selector("#my-hand button.card-choice")
    assert serious_violations(phone) == []
    assert phone.evaluate("document.documentElement.scrollWidth") <= width + 1
    context.close()
    stranger = browser.new_context(viewport=PHONE, is_mobile=True)
    spent = stranger.new_page()
    spent.goto(url)  # another phone opens the same code: the "already opened" page
    assert "already opened" in spent.locator("h1").inner_text()
    assert serious_violations(spent) == []
    stranger.close()

    tablet = sign_in(browser, live_server.url)
    tablet.set_viewport_size({"width": width, "height": 900})
    tablet.goto(f"{live_server.url}/commissioner/phones")
    tablet.locator("tr[data-bowler=Bob] button", has_text="Show code").click()
    tablet.wait_for_selector("tr[data-bowler=Bob] figure.phone-code svg")
    assert serious_violations(tablet) == []
    assert tablet.evaluate("document.documentElement.scrollWidth") <= width + 1


def test_a_kiosk_shows_a_bowlers_code_on_request_accessibly(browser, live_server, app):
    from tests.web.conftest import pair_kiosk

    secret = pair_kiosk(app, "1-2")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.set_default_timeout(8_000)
    page.add_init_script(f"localStorage.setItem('alley-poker-kiosk-device:1-2', '{secret}')")
    page.goto(f"{live_server.url}/kiosk/1-2")
    page.wait_for_selector("body[data-paired=yes]")
    assert page.locator("#phone-code").is_hidden()  # not on screen until asked
    page.click("#phone-code-button")
    page.locator("#phone-code button", has_text="Ann").click()
    page.wait_for_selector("#phone-code figure.phone-code svg")
    assert page.locator("#phone-code-title").inner_text() == "Ann's phone code"
    assert serious_violations(page) == []
    page.click("#phone-code-close")
    assert page.locator("#phone-code").is_hidden()
