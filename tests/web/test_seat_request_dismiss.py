"""A seat request whose match is over can be dismissed (API and the tablet's button), and
"Seat them" on it says in words why nobody can be seated."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from drivers.base import BowlerSlot, LaneOpened
from tests.web.conftest import DESK
from tests.web.test_accessibility import serious_violations
from tests.web.test_league_api import ROSTER, TUESDAY, Desk, refused, roster_of
from tests.web.test_league_pages import tablet

MATCH = "tue-2026-11-24-3-4"


def settled_match_with_a_seat_request(desk, service):
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    assert desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER}).status_code == 201
    started = desk.send("POST", "/leagues/tue/nights", {
        "night_date": "2026-11-24",
        "checked_in": [b["bowler_id"] for b in roster_of(desk).values()]})
    assert started.status_code == 201
    service.handle_lane_event(LaneOpened(lane=3, bowlers=(BowlerSlot(1, "SUB"),), game=1))
    service.execute(MATCH, c.CommissionerSettleAsHandsStand(reason="closing time",
                                                             actor=DESK))
    assert service.state(MATCH).status == "settled"
    (waiting,) = desk.get("/seat-requests").get_json()["seat_requests"]
    return waiting


def test_a_settled_matchs_seat_request_says_why_and_can_be_dismissed(app, service):
    desk = Desk(app)
    waiting = settled_match_with_a_seat_request(desk, service)
    assert (waiting["match_status"], waiting["can_seat"]) == ("settled", False)

    url = f"/seat-requests/{waiting['id']}"
    error = refused(desk.send("POST", f"{url}/pick", {"bowler": "Ann Smith"}), 409,
                    "request_id")
    assert error["message"] == ("the match on lanes 3-4 is already settled, so nobody can be "
                                "seated in it now: dismiss this request instead")

    dismissed = desk.send("POST", f"{url}/dismiss", {})
    assert dismissed.status_code == 200, dismissed.get_json()
    assert "nobody is seated for the scorer's 'SUB' in lane 3 slot 1" in dismissed.get_json()[
        "message"]
    assert desk.get("/seat-requests").get_json() == {"seat_requests": []}
    refused(desk.send("POST", f"{url}/dismiss", {}), 404, "request_id")
    refused(desk.send("POST", "/seat-requests/99/dismiss", {}), 404, "request_id")
    assert app.test_client().post(f"/api/v1{url}/dismiss").status_code in (401, 403)


def test_the_tablet_dismisses_a_settled_matchs_seat_request(browser, live_server, app,
                                                             service):
    settled_match_with_a_seat_request(Desk(app), service)
    page = tablet(browser, live_server.url)
    request = page.locator("#seat-request-list li.seat-request")
    request.wait_for()
    assert "nobody can be seated in it now" in request.inner_text()
    assert "(the match on lanes 3-4)" in request.inner_text()
    assert serious_violations(page) == []
    assert request.get_by_role("button", name="Seat them").is_disabled()
    assert request.locator("select").is_disabled(), "nobody can be picked for a settled match"
    request.get_by_role("button", name="Dismiss").click()
    page.wait_for_selector("#notice >> text=nobody is seated for the scorer's 'SUB'")
    page.wait_for_selector("#seat-requests", state="hidden")
    assert centre_of(app).league_desk.store.open_seat_requests() == []
