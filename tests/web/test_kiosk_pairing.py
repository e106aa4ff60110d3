"""Only a kiosk the commissioner paired may send a bowler's decision: a real python-socketio
client over the network asks for pairing, the tablet enters its code, the kiosk decides;
revoked, unpaired, or paired for other lanes, it is refused; decisions are rate-limited."""

from __future__ import annotations

import pytest

from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from tests.conftest import centre_app
from tests.web.conftest import (
    PIN,
    open_kiosk,
    pair_kiosk,
    serve,
    signed_in_client,
    signed_in_desk,
)
from tests.web.test_sockets import KioskClient


def gutter_after_a_strike(service) -> str:
    """Ann strikes then rolls a gutter ball: a lose-card decision opens; a card she holds."""
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    state = service.state("m1")
    assert [d["kind"] for d in state.pending_for("Ann")] == ["lose_card"]
    return state.display_card(state.hands["Ann"][0])


def lose(kiosk: KioskClient, card: str) -> dict:
    return kiosk.client.call("decide", {"match_id": "m1", "kind": "lose-card", "bowler": "Ann",
                                        "card": card}, timeout=5)


def test_a_kiosk_that_only_joined_the_lanes_cannot_decide(live_server, service):
    card = gutter_after_a_strike(service)
    stranger = KioskClient(live_server.url)
    try:
        assert stranger.join_answers[0]["paired"] is False
        answer = lose(stranger, card)
        assert answer["error"]["code"] == "kiosk_not_paired", answer
        assert "pairs it on the tablet" in answer["error"]["message"]
        buy = stranger.client.call("decide", {"match_id": "m1", "kind": "buy", "bowler": "Ann",
                                              "accept": True}, timeout=5)
        assert buy["error"]["code"] == "kiosk_not_paired"
    finally:
        stranger.close()
    assert [d["kind"] for d in service.state("m1").pending_for("Ann")] == ["lose_card"]


def test_pairing_by_code_on_the_tablet_then_revoking(app, live_server, service):
    card = gutter_after_a_strike(service)
    kiosk = KioskClient(live_server.url)
    tablet, csrf = signed_in_client(app)
    try:
        asked = kiosk.client.call("pair_request", {"lanes": "1-2"}, timeout=5)
        assert asked["ok"] and len(asked["code"]) == 6 and asked["lanes"] == "1-2"
        # Before the tablet enters the code, the secret opens nothing.
        joined = kiosk.client.call("join", {"lanes": "1-2", "device_token":
                                            asked["device_token"]}, timeout=5)
        assert joined["paired"] is False
        assert lose(kiosk, card)["error"]["code"] == "kiosk_not_paired"

        wrong = tablet.post("/api/v1/kiosks/pair", json={"code": "ZZZZZZ"},
                            headers={"X-CSRFToken": csrf})
        assert wrong.status_code == 404 and wrong.get_json()["error"]["field"] == "code"
        paired = tablet.post("/api/v1/kiosks/pair", json={"code": asked["code"].lower()},
                             headers={"X-CSRFToken": csrf})
        assert paired.status_code == 200, paired.get_json()
        device = paired.get_json()
        assert (device["lanes"], device["paired"]) == ("1-2", True)
        listed = tablet.get("/api/v1/kiosks").get_json()["kiosks"]
        assert [k["id"] for k in listed] == [device["id"]]
        assert "device_token" not in str(listed) and asked["device_token"] not in str(listed)

        joined = kiosk.client.call("join", {"lanes": "1-2", "device_token":
                                            asked["device_token"]}, timeout=5)
        assert joined["paired"] is True
        other_card = service.state("m1").display_card(service.state("m1").hands["Ann"][1])
        revoked = tablet.delete(f"/api/v1/kiosks/{device['id']}", headers={"X-CSRFToken": csrf})
        assert revoked.status_code == 204
        # Revoked at once: the very next tap is refused, without joining again.
        assert lose(kiosk, other_card)["error"]["code"] == "kiosk_not_paired"
        assert [d["kind"] for d in service.state("m1").pending_for("Ann")] == ["lose_card"]
        assert tablet.delete(f"/api/v1/kiosks/{device['id']}",
                             headers={"X-CSRFToken": csrf}).status_code == 404
    finally:
        kiosk.close()


def test_a_paired_kiosk_decides_only_on_its_own_lanes(app, live_server, service):
    card = gutter_after_a_strike(service)
    elsewhere = KioskClient(live_server.url, device_token=pair_kiosk(app, "3-4"))
    try:
        assert elsewhere.join_answers[0]["paired"] is False  # its secret is for lanes 3-4
        assert lose(elsewhere, card)["error"]["code"] == "kiosk_not_paired"
    finally:
        elsewhere.close()
    kiosk = KioskClient(live_server.url, device_token=pair_kiosk(app, "1-2"))
    try:
        assert kiosk.join_answers[0]["paired"] is True
        assert lose(kiosk, card) == {"ok": True}
    finally:
        kiosk.close()


@pytest.fixture
def strict_server(service):
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     kiosks={"decisions_per_minute": 3})
    running = serve(app)
    yield app, running
    running.stop()


def test_decisions_are_rate_limited_per_kiosk(strict_server, service):
    app, running = strict_server
    kiosk = KioskClient(running.url, device_token=pair_kiosk(app, "1-2"))
    try:
        answers = [kiosk.client.call("decide", {"match_id": "m1", "kind": "guess",
                                                "bowler": "Ann", "side": "up"}, timeout=5)
                   for _ in range(4)]
    finally:
        kiosk.close()
    assert [a["error"]["code"] for a in answers] == ["validation_failed"] * 3 + [
        "too_many_requests"]
    assert "decisions in 60 s from this kiosk" in answers[3]["error"]["message"]


def test_a_pairing_request_names_a_lane_pair(live_server):
    kiosk = KioskClient(live_server.url)
    try:
        answer = kiosk.client.call("pair_request", {"lanes": "<script>"}, timeout=5)
        assert (answer["error"]["code"], answer["error"]["field"]) == ("bad_request", "lanes")
    finally:
        kiosk.close()


@pytest.mark.slow
def test_the_kiosk_shows_its_code_and_the_tablet_pairs_it(browser, live_server, service):
    """In Chromium: an unpaired kiosk shows a code; the commissioner types it on the tablet's
    Kiosks list; the kiosk notices it is paired and a tap on a card is taken."""
    kiosk = open_kiosk(browser, live_server.url, showing="body[data-paired=no]")
    kiosk.wait_for_function("document.getElementById('pairing-code').textContent.length === 6")
    code = kiosk.inner_text("#pairing-code")

    tablet = signed_in_desk(browser, live_server.url, timeout_ms=10_000)
    tablet.goto(f"{live_server.url}/commissioner/tokens")
    tablet.fill("#pair-kiosk input[name=code]", code)
    tablet.click("#pair-kiosk button[type=submit]")
    tablet.wait_for_selector("#kiosks td:has-text('Lanes 1-2')")
    # When it was paired, as a person reads it: no raw ISO timestamp.
    paired_when = tablet.locator("#kiosks tr[data-kiosk] td").nth(1).inner_text()
    assert paired_when and "T" not in paired_when and ":" in paired_when, paired_when

    kiosk.wait_for_selector("body[data-paired=yes]")
    assert kiosk.is_hidden("#pairing")
    gutter_after_a_strike(service)
    ann = "section.bowler[data-bowler=Ann]"
    kiosk.wait_for_selector(f"{ann} .decision")
    kiosk.locator(f"{ann} .card").first.click()
    kiosk.wait_for_function(f"document.querySelectorAll('{ann} .card').length === 2")
    assert service.state("m1").pending_for("Ann") == []


@pytest.mark.slow
def test_a_reloaded_kiosk_keeps_a_waiting_code_and_asks_again_for_a_gone_one(
        browser, app, live_server):
    """In Chromium: a kiosk reloaded while its request waits shows the same code (its new
    socket joins with the request's secret); once the request is gone (withdrawn, as 2
    minutes after its kiosk left) the reloaded kiosk asks for a new code, and that one
    pairs."""
    devices = centre_of(app).kiosk_devices
    kiosk = browser.new_page(viewport={"width": 1920, "height": 1080})
    kiosk.set_default_timeout(10_000)

    def shown_code() -> str:
        kiosk.wait_for_selector("body[data-paired=no]")
        kiosk.wait_for_function("document.getElementById('pairing-code').textContent.length === 6")
        return kiosk.inner_text("#pairing-code")

    kiosk.goto(f"{live_server.url}/kiosk/1-2")
    first = shown_code()
    kiosk.reload()
    assert shown_code() == first
    for device_id in devices.waiting():
        devices.withdraw(device_id)
    kiosk.reload()
    second = shown_code()
    assert second != first
    assert devices.approve(second, actor="commissioner:test") is not None
    kiosk.wait_for_selector("body[data-paired=yes]")
