"""A match can only be placed on lanes the centre has (its configured ``centre.lanes``)."""

from __future__ import annotations

import pytest

from tests.conftest import centre_app
from tests.web.conftest import PIN, post_new_match, signed_in_client


@pytest.fixture
def eight_lane_app(service):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret", lanes=8)


def test_a_match_on_lane_150_of_an_8_lane_centre_is_refused_naming_its_lanes(
        eight_lane_app, service):
    client, csrf = signed_in_client(eight_lane_app)
    answer = post_new_match(client, csrf, [(7, "Cy"), (150, "Dee")])
    assert answer.status_code == 422, answer.get_json()
    error = answer.get_json()["error"]
    assert (error["code"], error["field"]) == ("unknown_lane", "slots.1.lane")
    assert "lane 150" in error["message"] and "1-8" in error["message"]
    assert service.state("m2").status == "new" and service.lanes.bowler_at(7, 1) is None
    lanes = client.get("/api/v1/lanes").get_json()["lanes"]
    assert [lane["lane"] for lane in lanes] == list(range(1, 9))

    answer = post_new_match(client, csrf, [(7, "Cy"), (8, "Dee")])
    assert answer.status_code == 201, answer.get_json()


def test_moving_a_bowler_to_a_lane_the_centre_lacks_is_refused(eight_lane_app, service):
    client, csrf = signed_in_client(eight_lane_app)
    slots = [{"lane": 1, "slot": 1, "bowler": "Ann"}, {"lane": 9, "slot": 1, "bowler": "Bob"}]
    answer = client.put("/api/v1/matches/m1/lanes", json={"slots": slots, "reason": "typo"},
                        headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["error"]["code"] == "unknown_lane"
    assert service.lanes.bowler_at(2, 1) == ("m1", "Bob")
