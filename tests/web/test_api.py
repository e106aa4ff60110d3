"""The JSON API: public reads, commissioner commands, JSON errors with the right statuses."""

from __future__ import annotations

import re

from alley_poker.ledger import commands as c
from alley_poker.web.schemas import COMMAND_BODIES
from tests.conftest import centre_app
from tests.web.conftest import assert_no_pile_order, signed_in_client


def test_lists_matches_with_lanes_bowlers_and_pot(app):
    answer = app.test_client().get("/api/v1/matches")
    assert answer.status_code == 200
    assert answer.get_json() == {"matches": [{
        "match_id": "m1", "title": "Lanes 1-2", "status": "playing", "lanes": [1, 2],
        "bowlers": ["Ann", "Bob"],
        "pot_cents": 200}]}


def test_public_state_of_a_match_never_holds_the_pile_order(app, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    answer = app.test_client().get("/api/v1/matches/m1")
    view = answer.get_json()
    assert answer.status_code == 200
    assert len(view["bowlers"]["Ann"]["hand"]) == 3  # strike 2 + first strike 1
    pile = service.state("m1").pile
    assert view["pile_count"] == len(pile)
    assert_no_pile_order(view, pile)


def test_unknown_match_is_a_json_404(app):
    answer = app.test_client().get("/api/v1/matches/nope")
    assert answer.status_code == 404
    assert answer.get_json()["error"] == {"code": "not_found", "message": "no match 'nope'",
                                          "field": "match_id"}


def test_commissioner_records_a_strike_and_gets_the_public_events(app, service):
    client, token = signed_in_client(app)
    answer = client.post("/api/v1/matches/m1/commands/record-ball",
                         json={"bowler": "Ann", "pins": 10}, headers={"X-CSRFToken": token})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert [e["type"] for e in body["events"]] == ["ball_recorded"] + ["card_drawn"] * 3
    assert "actor" not in body["events"][0]["data"]
    assert len(service.state("m1").hands["Ann"]) == 3
    assert body["seq"] == service.state("m1").seq


def test_commissioner_rules_a_holland_daze(app, service):
    client, token = signed_in_client(app)
    answer = client.post("/api/v1/matches/m1/commands/holland-daze",
                         json={"bowler": "Bob", "reason": "bowled on lane 1"},
                         headers={"X-CSRFToken": token})
    assert answer.status_code == 200, answer.get_json()
    assert "holland_daze" in [e["type"] for e in answer.get_json()["events"]]


def test_errors_have_the_right_status_code_and_field(app, service):
    client, token = signed_in_client(app)
    headers = {"X-CSRFToken": token}
    seq_before = service.state("m1").seq

    def post(kind, **kwargs):
        answer = client.post(f"/api/v1/matches/m1/commands/{kind}", headers=headers, **kwargs)
        return answer.status_code, answer.get_json()["error"]

    status, error = post("record-ball", json={"bowler": "Ann", "pins": 11})
    assert (status, error["code"], error["field"]) == (422, "validation_failed", "pins")
    status, error = post("record-ball", json={"bowler": "Ann", "pins": 3, "extra": 1})
    assert (status, error["field"]) == (422, "extra")
    status, error = post("record-ball", data="{not json", content_type="application/json")
    assert (status, error["code"]) == (400, "bad_request")
    status, error = post("record-ball", json={"bowler": "Zed", "pins": 3})
    assert (status, error["code"], error["field"]) == (409, "command_refused", "bowler")
    assert "Zed" in error["message"]
    status, error = post("lose-card", json={"bowler": "Ann", "card": "7H"})
    assert status == 409  # no gutter, so no decision pending
    status, error = post("fold", json={})
    assert (status, error["code"]) == (404, "unknown_command")
    answer = client.post("/api/v1/matches/zzz/commands/record-ball", headers=headers,
                         json={"bowler": "Ann", "pins": 3})
    assert answer.status_code == 404
    assert service.state("m1").seq == seq_before  # nothing refused changed the ledger


def test_a_bug_answers_500_without_a_traceback(service):

    app = centre_app(service, secret_key="x")

    def broken_state(match_id):
        raise RuntimeError("secret internals /etc/passwd")

    service.state = broken_state  # the service failing underneath the API
    answer = app.test_client().get("/api/v1/matches/m1")
    assert answer.status_code == 500
    assert answer.get_json()["error"]["code"] == "internal_error"
    assert "secret internals" not in answer.get_data(as_text=True)
    assert "Traceback" not in answer.get_data(as_text=True)


def test_openapi_document_describes_every_api_route(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    documented = {(path, method) for path, operations in document["paths"].items()
                  for method in operations}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/"):
            continue
        # /matches/<match_id>/commands/<kind> is documented once per kind.
        kinds = COMMAND_BODIES if "<kind>" in rule.rule else [None]
        for kind in kinds:
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule).replace("{kind}", kind or "")
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                assert (path, method.lower()) in documented, (path, method)
    schema = document["components"]["schemas"]["RecordBallBody"]
    assert schema["properties"]["pins"]["maximum"] == 10
    assert "record-ball" in " ".join(document["paths"])
