"""The commissioner's tablet in real headless Chromium: what the desk sees and is asked.

Destructive powers look dangerous and their confirm names the consequence; sign-in cannot lock
the desk out; the audit log reads as sentences; refusals are in the desk's words; the pages
reflow at phone width.
"""

from __future__ import annotations

import pytest

from tests.web.conftest import PIN


def open_tablet(browser, live_server, *, width: int = 1280, height: int = 800,
                answer: bool = True):
    """A signed-in tablet page whose confirms are recorded in ``page.asked`` and answered."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(8_000)
    page.goto(f"{live_server.url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#live-state[data-state=live]")
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
    assert set(danger) == {"void-guess", "undo-last", "undo-result", "remove-bowler", "void"}
    # Confirm result is not among them, and does not look like them.
    confirm = card.locator("button[data-power=confirm-result]")
    assert "danger" not in confirm.get_attribute("class")
    assert card.locator(".danger-zone button[data-power=confirm-result]").count() == 0
    red = card.locator("button[data-power=void]").evaluate(
        "b => getComputedStyle(b).backgroundColor")
    assert red != confirm.evaluate("b => getComputedStyle(b).backgroundColor")

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
