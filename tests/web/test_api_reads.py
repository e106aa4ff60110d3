"""Public reads of /api/v1: lanes, bowlers, hands, pending decisions, reviews, events, feeds."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from tests.conftest import centre_app
from tests.web.conftest import PIN, assert_no_pile_order

FEED = "feed:test"


def strike_then_gutter(service):
    """Ann strikes (3 cards), then throws a gutter ball: a lose-card decision opens."""
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=FEED))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor=FEED))


def test_lanes_name_each_slot_with_its_pair_and_match(service):
    app = centre_app(service, testing=True, pin=PIN, lanes=2)
    lanes = app.test_client().get("/api/v1/lanes").get_json()["lanes"]
    assert lanes == [
        {"lane": 1, "pair": "1-2", "matches": ["m1"],
         "slots": [{"slot": 1, "bowler": "Ann", "match_id": "m1"}]},
        {"lane": 2, "pair": "1-2", "matches": ["m1"],
         "slots": [{"slot": 1, "bowler": "Bob", "match_id": "m1"}]},
    ]


def test_lanes_list_every_lane_of_the_centre_when_configured(service):
    app = centre_app(service, testing=True, pin=PIN, lanes=4)
    lanes = app.test_client().get("/api/v1/lanes").get_json()["lanes"]
    assert [(lane["lane"], lane["pair"], lane["matches"]) for lane in lanes] == [
        (1, "1-2", ["m1"]), (2, "1-2", ["m1"]), (3, "3-4", []), (4, "3-4", [])]


def test_bowlers_hands_and_pending_decision_after_a_gutter(app, service):
    strike_then_gutter(service)
    client = app.test_client()
    bowlers = client.get("/api/v1/matches/m1/bowlers").get_json()["bowlers"]
    ann = bowlers[0]
    assert (ann["bowler"], ann["seat"], ann["lane"], ann["slot"], ann["paid_cents"],
            ann["pending"], ann["scoresheet"]) == ("Ann", 1, 1, 1, 100, 1, "X G")
    assert bowlers[1]["bowler"] == "Bob" and bowlers[1]["lane"] == 2

    hands = {h["bowler"]: h for h in client.get("/api/v1/matches/m1/hands").get_json()["hands"]}
    held = service.state("m1").hands["Ann"]
    assert hands["Ann"]["cards"] == [service.state("m1").display_card(card) for card in held]
    assert hands["Ann"]["describe"] and hands["Ann"]["describe"] != "No hand"
    assert hands["Bob"]["cards"] == []

    pending = client.get("/api/v1/matches/m1/pending").get_json()["pending"]
    assert len(pending) == 1
    decision = pending[0]
    assert decision["bowler"] == "Ann" and decision["kind"] == "lose_card"
    assert decision["choices"] == hands["Ann"]["cards"] and decision["deadline"]
    assert decision["id"] in service.state("m1").decisions


def test_reviews_are_listed_for_the_commissioner(app, service):
    answer = app.test_client().get("/api/v1/matches/m1/reviews")
    assert answer.status_code == 200 and answer.get_json() == {"match_id": "m1", "reviews": []}


def test_events_since_a_seq_come_in_order_without_the_pile(app, service):
    strike_then_gutter(service)
    client = app.test_client()
    everything = client.get("/api/v1/matches/m1/events").get_json()
    seqs = [event["seq"] for event in everything["events"]]
    assert seqs == list(range(1, service.state("m1").seq + 1))
    assert everything["next_since"] == seqs[-1]
    assert_no_pile_order(everything, service.state("m1").pile)
    started = next(e for e in everything["events"] if e["type"] == "match_started")
    assert "pile" not in started["data"]

    page = client.get("/api/v1/matches/m1/events?since=4&limit=3").get_json()
    assert [event["seq"] for event in page["events"]] == [5, 6, 7]
    assert page["next_since"] == 7
    rest = client.get("/api/v1/matches/m1/events?since=7&limit=1000").get_json()
    assert rest["events"][0]["seq"] == 8
    beyond = client.get(f"/api/v1/matches/m1/events?since={seqs[-1]}").get_json()
    assert beyond["events"] == [] and beyond["next_since"] == seqs[-1]


def test_bad_event_cursors_are_422_naming_the_parameter(app):
    client = app.test_client()
    for query, field in (("since=-1", "since"), ("since=x", "since"), ("limit=0", "limit"),
                         ("limit=1001", "limit"), ("limit=2.5", "limit"),
                         ("since=99999999999", "since")):
        answer = client.get(f"/api/v1/matches/m1/events?{query}")
        assert answer.status_code == 422, query
        error = answer.get_json()["error"]
        assert answer.get_json() == {"error": error}, query  # the error and nothing else
        assert (error["code"], error["field"]) == ("validation_failed", field), query
        assert f"({field})" in error["message"], query  # the parameter, named


def test_empty_or_unknown_event_parameters_are_as_if_not_given(app, service):
    client = app.test_client()
    everything = client.get("/api/v1/matches/m1/events").get_json()
    assert client.get("/api/v1/matches/m1/events?since=&limit=&_=123").get_json() == everything


def test_every_match_read_of_an_unknown_match_is_404(app):
    client = app.test_client()
    for tail in ("", "/bowlers", "/hands", "/pending", "/reviews", "/events", "/lanes"):
        answer = client.get(f"/api/v1/matches/nope{tail}")
        assert answer.status_code == 404, tail
        assert answer.get_json()["error"]["field"] == "match_id"


def test_feeds_show_the_latest_health_report(app, service):
    client = app.test_client()
    assert client.get("/api/v1/feeds").get_json() == {"feeds": [], "night_close": None}
    report = [{"source": "lanes-1-4", "state": "amber", "last_line_age": 12.5}]
    service.bus.publish("alley", {"kind": "feed_health", "feeds": report})
    assert client.get("/api/v1/feeds").get_json() == {"feeds": [{**report[0], "held": 0}],
                                                         "night_close": None}
