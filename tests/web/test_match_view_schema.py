"""The OpenAPI document describes the public match view field by field, and a league match's
real answers (its tag, handicaps, scratch and handicapped series) conform to it.

test_schemathesis.py fuzzes every route against a plain match; here the league keys, which
only a league match shows, are checked against the same document with schemathesis.
"""

from __future__ import annotations

import json

import jsonschema_rs
import pytest
import schemathesis
from schemathesis.specs.openapi.checks import response_schema_conformance

from alley_poker.ledger import commands as c
from tests.conftest import centre_app
from tests.web.conftest import DESK, PIN, open_service, start_match

LEAGUE = {"league_id": "tue", "night_id": "tue-2026-11-24", "night_date": "2026-11-24",
          "people": {"Ann": 17, "Bob": 18}}


@pytest.fixture(scope="module")
def league_app(tmp_path_factory):
    """A centre with a plain match on lanes 3-4 and a started league match on lanes 1-2
    (Ann handicap 31, Bob 0) in which Ann has bowled an open frame of 9."""
    service = open_service(tmp_path_factory.mktemp("match-view") / "ledger.sqlite3")
    start_match(service, "plain", {(3, 1): "Cy", (4, 1): "Dee"})
    service.create_match("league", {(1, 1): "Ann", (2, 1): "Bob"}, games=2, actor=DESK,
                         league=LEAGUE, handicaps={"Ann": 31, "Bob": 0})
    for bowler in ("Ann", "Bob"):
        service.execute("league", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("league", c.StartMatch(actor=DESK))
    for pins in (9, 0):
        service.execute("league", c.RecordBall("Ann", None, pins, actor="feed:test"))
    return centre_app(service, testing=True, pin=PIN, secret_key="match-view", lanes=4)


@pytest.fixture(scope="module")
def api_schema(league_app):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", league_app)


def _call(api_schema, path: str, **path_parameters):
    case = api_schema[path]["GET"].Case(path_parameters=path_parameters)
    response = case.call()
    # Raises with the offending key when the answer does not fit the documented schema.
    case.validate_response(response, checks=[response_schema_conformance])
    return response.json()


def test_a_league_matchs_view_conforms_to_the_documented_schema(api_schema):
    view = _call(api_schema, "/api/v1/matches/{match_id}", match_id="league")
    assert view["league"] == {"league_id": "tue", "night_id": "tue-2026-11-24",
                              "night_date": "2026-11-24"}
    assert view["handicaps"] == {"Ann": 31, "Bob": 0}
    ann = view["bowlers"]["Ann"]
    assert (ann["handicap"], ann["scratch_series"], ann["handicap_series"]) == (31, 9, 40)


def test_a_lane_screens_league_state_conforms_too(api_schema):
    screen = _call(api_schema, "/api/v1/lanes/{lane_pair}/screen", lane_pair="1-2")
    (match,) = screen["matches"]
    assert match["state"]["handicaps"] == {"Ann": 31, "Bob": 0}


def test_a_plain_matchs_view_conforms_without_the_league_keys(api_schema):
    view = _call(api_schema, "/api/v1/matches/{match_id}", match_id="plain")
    assert "league" not in view and "handicaps" not in view
    assert "handicap" not in view["bowlers"]["Cy"]


def test_the_document_names_the_views_fields(league_app):
    document = league_app.test_client().get("/api/v1/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    view = schemas["MatchView"]
    assert {"league", "handicaps"} <= set(view["properties"]) - set(view["required"])
    assert {"match_id", "status", "bowlers", "places", "winners"} <= set(view["required"])
    bowler = schemas["MatchViewBowler"]["properties"]
    assert {"handicap", "scratch_series", "handicap_series", "hand", "scoresheet"} <= set(bowler)
    screen_state = schemas["ScreenMatch"]["properties"]["state"]
    assert screen_state == {"$ref": "#/components/schemas/MatchView"}


def test_the_schema_refuses_a_view_of_the_wrong_shape(league_app):
    """The documented schema is no bare object: a view with a mistyped league key fails."""
    client = league_app.test_client()
    document = client.get("/api/v1/openapi.json").get_json()
    validator = jsonschema_rs.Draft202012Validator(
        {"$ref": "#/components/schemas/MatchView", "components": document["components"]})
    view = client.get("/api/v1/matches/league").get_json()
    assert validator.is_valid(view)
    for broken in ({**view, "league": None},
                   {**view, "handicaps": {"Ann": "31"}},
                   {**view, "bowlers": {"Ann": {**view["bowlers"]["Ann"], "handicap": None}}},
                   {key: value for key, value in view.items() if key != "seat_order"}):
        assert not validator.is_valid(json.loads(json.dumps(broken))), broken
