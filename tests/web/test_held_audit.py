"""Held balls on the desk's audit log: what was done with them (discarded one by one or in
bulk, applied), when, by whom and why, read from the held-ball log — the record — never
copied into a match's log.  A bulk discard is one line ("discarded 7 held balls on lanes
5-6: cable test"), over the service, the JSON API and on the tablet's Audit page."""

from __future__ import annotations

from alley_poker.service.audit import audit_entries
from alley_poker.service.held_audit import held_resolutions
from tests.web import test_tablet_browser
from tests.web.conftest import DESK
from tests.web.test_held_bulk import hold_balls
from tests.web.test_league_api import Desk

tablet = test_tablet_browser.tablet  # the signed-in tablet


def a_night_of_resolutions(service) -> dict[str, list[int]]:
    """A bulk discard of lanes 5-6 (7 balls), then one ball of lane 7 discarded alone."""
    bulk = hold_balls(service, 5, 4) + hold_balls(service, 6, 3)
    alone = hold_balls(service, 7, 2)
    events_before = len(audit_entries(service.repository.store, limit=None))
    assert service.router.discard_many(bulk, actor=DESK, reason="cable test").done
    assert service.router.discard_held(alone[0], actor=DESK, reason="a test line").done
    assert len(audit_entries(service.repository.store, limit=None)) == events_before, \
        "nothing is written into a match's log: the held-ball log is the record"
    return {"bulk": bulk, "alone": alone}


def test_a_bulk_discard_is_one_audit_line_and_a_single_discard_its_own(service):
    made = a_night_of_resolutions(service)
    lines = held_resolutions(service.held)
    assert [line["description"] for line in lines] == [
        "discarded 1 held ball on lane 7: a test line",
        "discarded 7 held balls on lanes 5-6: cable test"]
    single, bulk = lines
    assert (bulk["count"], bulk["lanes"], bulk["actor"], bulk["reason"], bulk["outcome"]) == (
        7, [5, 6], DESK, "cable test", "discarded")
    assert bulk["item_ids"] == sorted(made["bulk"])
    assert single["item_ids"] == [made["alone"][0]]
    assert single["time"] >= bulk["time"]


def test_the_api_gives_the_held_audit_lines_to_the_desk_only(app, service):
    a_night_of_resolutions(service)
    desk = Desk(app)
    answer = desk.get("/audit/held")
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert [(line["count"], line["description"]) for line in body["lines"]] == [
        (1, "discarded 1 held ball on lane 7: a test line"),
        (7, "discarded 7 held balls on lanes 5-6: cable test")]
    assert body["time_zone"]
    assert desk.get("/audit/held?match_id=m1").get_json()["lines"] == [], \
        "none of these balls was held for m1"
    assert app.test_client().get("/api/v1/audit/held").status_code in (401, 403)
    operation = app.test_client().get("/api/v1/openapi.json").get_json()["paths"][
        "/api/v1/audit/held"]["get"]
    assert "200" in operation["responses"]


def test_the_audit_page_shows_a_bulk_discard_as_one_line_in_words(tablet, live_server,
                                                                  service):
    a_night_of_resolutions(service)
    tablet.goto(f"{live_server.url}/commissioner/audit")
    rows = tablet.locator("#audit-held tbody tr")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    bulk = rows.nth(1).inner_text()
    assert "discarded 7 held balls on lanes 5-6: cable test" in bulk
    assert "desk (" + DESK.split(":", 1)[1] + ")" in bulk
    assert rows.nth(1).get_attribute("data-count") == "7"
    assert "discarded 1 held ball on lane 7: a test line" in rows.nth(0).inner_text()
    assert "$APF1" not in tablet.locator("#audit-held").inner_text()
