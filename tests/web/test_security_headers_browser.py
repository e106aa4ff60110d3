"""The Content-Security-Policy in Chromium: enforced, and the pages need nothing it forbids.

That the kiosk (live push), the tablet (PIN sign-in), the phone and /verify keep working
under it is every browser test's check: the ``browser`` fixtures fail a test whose pages broke
the policy (tests/csp_watch.py), so test_kiosk_browser.py, test_tablet_browser.py,
test_phone_browser.py and test_fair_verify_page.py all run under it.  Here: it is really
there, and it stops what an injection would try.
"""

from __future__ import annotations

from alley_poker.ledger import commands as c
from tests.web.conftest import PIN, open_kiosk
from tests.web.test_story import story_app, story_server  # noqa: F401  (fixtures)

#: What injected markup would try: a script element, an inline handler, an inline style.
INJECT = """() => {
  const script = document.createElement("script");
  script.textContent = "window.injectedScriptRan = true;";
  document.body.appendChild(script);
  const trap = document.createElement("div");
  trap.id = "trap";
  trap.setAttribute("onclick", "window.injectedHandlerRan = true;");
  trap.setAttribute("style", "color: rgb(255, 0, 0)");
  trap.textContent = "trap";
  document.body.appendChild(trap);
}"""


def test_the_kiosk_refuses_an_injected_script_handler_and_style(browser, live_server, service,
                                                                 chromium):
    page = open_kiosk(browser, live_server.url)
    chromium.csp.take()  # the kiosk opened (and went live) without a violation
    page.evaluate(INJECT)
    page.click("#trap")
    ran = page.evaluate("() => [window.injectedScriptRan === true, "
                        "window.injectedHandlerRan === true, "
                        "getComputedStyle(document.getElementById('trap')).color]")
    assert ran[:2] == [False, False], "an injected script ran"
    assert ran[2] != "rgb(255, 0, 0)", "an injected style applied"
    page.wait_for_function("() => true")  # let the console events arrive
    refused = "\n".join(chromium.csp.take())
    for directive in ("script-src-elem", "script-src-attr", "style-src-attr"):
        assert directive in refused, refused
    # The kiosk still draws the next ball: the policy blocked the injection, not the page.
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    page.wait_for_function(
        "document.querySelectorAll('section.bowler[data-bowler=Ann] .card').length === 3")


def test_the_tablet_signs_in_under_the_policy_and_its_print_button_prints(
        browser, story_server):  # noqa: F811
    """m1 is settled: its story page has the print button."""
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script("window.print = function () { window.printedPages = true; };")
    answer = page.goto(f"{story_server.url}/commissioner")
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["x-frame-options"] == "DENY"
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector(".tablet-header")
    page.goto(f"{story_server.url}/commissioner/matches/m1/story")
    page.click("button[data-print]")  # was onclick="window.print()", which the policy stops
    page.wait_for_function("() => window.printedPages === true")
