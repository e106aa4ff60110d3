"""A match can only be placed on lanes the centre has (its configured ``centre.lanes``)."""

from __future__ import annotations

import pytest

from tests.conftest import centre_app
from tests.web.conftest import PIN, signed_in_client


@pytest.fixture
def eight_lane_app(service):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret", lanes=8)


def test_a_match_on_lane_150_of_an_8_lane_centre_is_refused_naming_its_lanes(
        eight_lane_app, service):
    client, csrf = signed_in_client(eight_lane_app)
    body = {"match_id": "m2", "games": 1,
            "slots": [{"lane": 7, "slot": 1, "bowler": "Cy"},
                      {"lane": 150, "slot": 1, "bowler": "Dee"}]}
    answer = client.post("/api/v1/matches", json=body, headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422, answer.get_json()
    error = answer.get_json()["error"]
    assert (error["code"], error["field"]) == ("unknown_lane", "slots.1.lane")
    assert "lane 150" in error["message"] and "1-8" in error["message"]
    assert service.state("m2").status == "new" and service.lanes.bowler_at(7, 1) is None
    lanes = client.get("/api/v1/lanes").get_json()["lanes"]
    assert [lane["lane"] for lane in lanes] == list(range(1, 9))

    body["slots"][1]["lane"] = 8
    answer = client.post("/api/v1/matches", json=body, headers={"X-CSRFToken": csrf})
    assert answer.status_code == 201, answer.get_json()


def test_moving_a_bowler_to_a_lane_the_centre_lacks_is_refused(eight_lane_app, service):
    client, csrf = signed_in_client(eight_lane_app)
    slots = [{"lane": 1, "slot": 1, "bowler": "Ann"}, {"lane": 9, "slot": 1, "bowler": "Bob"}]
    answer = client.put("/api/v1/matches/m1/lanes", json={"slots": slots, "reason": "typo"},
                        headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["error"]["code"] == "unknown_lane"
    assert service.lanes.bowler_at(2, 1) == ("m1", "Bob")
