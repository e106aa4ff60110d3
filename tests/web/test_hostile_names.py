"""Names: new ones are normalised (NFC) and refused with control, direction-changing or
zero-width characters or markup; names stored before that rule still show as plain text on
the kiosk, the tablet and the audit page (real headless Chromium)."""

from __future__ import annotations

import pytest

from alley_poker.ledger import commands as c
from tests.web.conftest import (
    DESK,
    open_kiosk,
    post_new_match,
    signed_in_client,
    signed_in_desk,
)

RECORD_BALL = "/api/v1/matches/m1/commands/record-ball"


@pytest.mark.parametrize("name, shown", [
    ("Ann\x00", "U+0000"),
    ("Ann\x1b[2J", "U+001B"),
    ("Cy\u202eyC", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    ("Cy\u2067x", "U+2067"),
    ("A\u200bnn", "U+200B ZERO WIDTH SPACE"),
    ("\ufeffAnn", "U+FEFF"),
    ("<img src=x onerror=alert(1)>", "markup"),
    ("   ", "blank"),
    ("x" * 61, "60"),
], ids=["nul", "esc", "rlo", "isolate", "zwsp", "bom", "markup", "blank", "too-long"])
def test_a_hostile_new_bowler_name_is_refused_saying_why(app, service, name, shown):
    client, csrf = signed_in_client(app)
    answer = post_new_match(client, csrf, [(3, name)])
    assert answer.status_code == 422, answer.get_json()
    error = answer.get_json()["error"]
    assert error["field"] == "slots.0.bowler" and shown in error["message"], error
    assert service.state("m2").status == "new" and service.lanes.bowler_at(3, 1) is None


def test_names_are_stored_nfc_normalised_and_trimmed(app, service):
    client, csrf = signed_in_client(app)
    decomposed = "Rene\u0301"  # e + combining acute, as some keyboards send it
    answer = post_new_match(client, csrf, [(3, f"  {decomposed} "), (4, "Dee")])
    assert answer.status_code == 201, answer.get_json()
    assert list(service.state("m2").bowlers) == ["Ren\u00e9", "Dee"]
    # The same name typed precomposed is the same bowler.
    answer = client.post("/api/v1/matches/m2/commands/consent", json={"bowler": "Ren\u00e9"},
                         headers={"X-CSRFToken": csrf})
    assert answer.status_code == 200, answer.get_json()


def test_a_hostile_token_name_is_refused(app):
    client, csrf = signed_in_client(app)
    answer = client.post("/api/v1/tokens", json={"name": "till\u202e"},
                         headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422 and answer.get_json()["error"]["field"] == "name"


HOSTILE = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=2</script>"]



def test_names_stored_before_the_rule_show_as_text_on_kiosk_tablet_and_audit(
        browser, live_server, service):
    # Written straight to the event store, as a name entered before this change would be.
    service.create_match("m2", {(3, 1): HOSTILE[0], (4, 1): HOSTILE[1]}, games=1, actor=DESK)
    for bowler in HOSTILE:
        service.execute("m2", c.ConsentToAnte(bowler, actor=DESK))
    service.execute("m2", c.StartMatch(actor=DESK))

    kiosk = open_kiosk(browser, live_server.url, lanes="3-4", showing="section.bowler")
    kiosk.wait_for_function("document.querySelectorAll('section.bowler').length === 2")
    text = kiosk.inner_text("body")
    assert all(name in text for name in HOSTILE), text
    assert kiosk.locator("img[src=x]").count() == 0
    assert kiosk.evaluate("window.__pwned") is None

    tablet = signed_in_desk(browser, live_server.url, timeout_ms=10_000)
    tablet.wait_for_selector("article.match-card[data-match='m2']")
    card = tablet.inner_text("article.match-card[data-match='m2']")
    assert all(name in card for name in HOSTILE), card
    assert tablet.locator("img[src=x]").count() == 0
    assert tablet.evaluate("window.__pwned") is None

    tablet.goto(f"{live_server.url}/commissioner/audit")
    tablet.wait_for_selector("#audit tbody td:has-text('m2')")
    audit = tablet.inner_text("#audit tbody")
    assert HOSTILE[0] in audit, audit
    assert tablet.locator("img[src=x]").count() == 0
    assert tablet.evaluate("window.__pwned") is None
