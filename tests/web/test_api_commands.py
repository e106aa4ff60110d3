"""Commands of /api/v1: create a match, move lanes, every ledger command kind, the
commissioner deciding for a bowler; refusals leave the ledger as it was."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.web.kiosk_decisions import answer_decision
from alley_poker.web.schemas import COMMAND_BODIES
from tests.web.conftest import signed_in_tablet

FEED = "feed:test"


def command(send, kind, body=None, match_id="m1"):
    return send("POST", f"/api/v1/matches/{match_id}/commands/{kind}", body or {})


NEW_MATCH = {"match_id": "m2", "games": 1, "ante_cents": 150,
             "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"},
                       {"lane": 4, "slot": 1, "bowler": "Dee"},
                       {"lane": 4, "slot": 2, "bowler": "Eve"}],
             "seat_order": ["Eve", "Cy", "Dee"]}


def test_create_a_match_then_consent_and_start_it(app, service):
    _, send = signed_in_tablet(app)
    status, view = send("POST", "/api/v1/matches", NEW_MATCH)
    assert status == 201, view
    assert (view["match_id"], view["status"], view["ante_cents"], view["seat_order"]) == (
        "m2", "open", 150, ["Eve", "Cy", "Dee"])
    assert service.lanes.bowler_at(4, 2) == ("m2", "Eve")
    for bowler in ("Cy", "Dee", "Eve"):
        status, body = command(send, "consent", {"bowler": bowler}, "m2")
        assert status == 200, body
    status, body = command(send, "start", None, "m2")
    assert status == 200 and "match_started" in [e["type"] for e in body["events"]]
    assert "pile" not in next(e for e in body["events"] if e["type"] == "match_started")["data"]
    assert service.state("m2").status == "playing" and service.state("m2").pot_cents == 450
    listed = {m["match_id"]: m for m in send("GET", "/api/v1/matches")[1]["matches"]}
    assert listed["m2"]["lanes"] == [3, 4]


def test_a_bad_new_match_is_refused_and_claims_no_lanes(app, service):
    _, send = signed_in_tablet(app)
    taken = NEW_MATCH | {"slots": [{"lane": 1, "slot": 1, "bowler": "Cy"},
                                   {"lane": 4, "slot": 1, "bowler": "Dee"}],
                         "seat_order": None}
    status, body = send("POST", "/api/v1/matches", taken)
    assert (status, body["error"]["code"], body["error"]["field"]) == (409, "lanes_taken", "slots")
    assert "Ann" in body["error"]["message"]
    status, body = send("POST", "/api/v1/matches", NEW_MATCH | {"seat_order": ["Cy", "Zed"]})
    assert (status, body["error"]["field"]) == (409, "seat_order")
    status, body = send("POST", "/api/v1/matches", NEW_MATCH | {"ante_cents": 5})
    assert (status, body["error"]["field"]) == (409, "ante_cents")
    doubled = NEW_MATCH | {"slots": [NEW_MATCH["slots"][0]] * 2}
    assert send("POST", "/api/v1/matches", doubled)[0] == 422
    assert send("POST", "/api/v1/matches", NEW_MATCH | {"match_id": "a/b"})[0] == 422
    assert send("POST", "/api/v1/matches", NEW_MATCH | {"match_id": "m1"})[1]["error"][
        "code"] == "match_exists"
    assert service.lanes.bowler_at(4, 1) is None and service.state("m2").status == "new"
    assert service.lanes.bowler_at(1, 1) == ("m1", "Ann")


def test_the_commissioner_moves_bowlers_between_lane_slots(app, service):
    _, send = signed_in_tablet(app)
    slots = [{"lane": 1, "slot": 1, "bowler": "Ann"}, {"lane": 1, "slot": 2, "bowler": "Bob"}]
    status, body = send("PUT", "/api/v1/matches/m1/lanes",
                        {"slots": slots, "reason": "Bob moved to lane 1"})
    assert status == 200, body
    assert body == {"match_id": "m1", "lanes": [1], "slots": slots}
    assert service.lanes.bowler_at(1, 2) == ("m1", "Bob")
    history = service.assignments.history("m1")
    assert history[-1]["reason"] == "Bob moved to lane 1"
    assert history[-1]["actor"] == "commissioner:tablet"
    status, body = send("PUT", "/api/v1/matches/m1/lanes",
                        {"slots": slots[:1], "reason": "Bob forgotten"})
    assert (status, body["error"]["field"]) == (409, "slots")
    assert send("PUT", "/api/v1/matches/nope/lanes", {"slots": slots})[0] == 404


def test_the_commissioner_decides_a_lose_card_for_the_bowler_after_a_guess(app, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=FEED))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor=FEED))
    _, send = signed_in_tablet(app)
    decision = next(iter(service.state("m1").decisions))
    status, body = command(send, "guess", {"bowler": "Ann", "side": "left",
                                           "decision_id": decision})
    assert status == 200, body
    status, body = command(send, "guess-outcome", {"bowler": "Ann", "side": "right"})
    assert status == 200 and body["events"][0]["data"]["correct"] is False
    card = service.state("m1").display_card(service.state("m1").hands["Ann"][0])
    status, body = command(send, "lose-card", {"bowler": "Ann", "card": card,
                                               "decision_id": decision})
    assert status == 200, body
    assert len(service.state("m1").hands["Ann"]) == 2 and not service.state("m1").decisions


def test_undo_last_takes_back_a_ruling_and_void_refunds_the_antes(app, service):
    _, send = signed_in_tablet(app)
    status, _ = command(send, "holland-daze", {"bowler": "Bob", "reason": "lane 1"})
    assert status == 200
    seq_after_ruling = service.state("m1").seq
    status, body = send("GET", "/api/v1/matches/m1/undo")
    last = body["undoable"]
    assert (last["what"], last["bowler"], last["actor"]) == (
        "the Holland-daze ruling on Bob", "Bob", "commissioner:tablet")
    status, body = command(send, "undo-last", {"reason": "wrong bowler",
                                                "action": last["action"]})
    assert status == 200, body
    assert service.state("m1").seq > seq_after_ruling
    assert send("GET", "/api/v1/matches/m1/undo")[1]["undoable"] is None
    status, body = command(send, "void", {"reason": "power cut"})
    assert status == 200, body
    state = service.state("m1")
    assert state.status == "void" and state.paid == {"Ann": 0, "Bob": 0}


def test_undo_meant_for_one_action_is_refused_when_another_became_last(app, service):
    _, send = signed_in_tablet(app)
    command(send, "holland-daze", {"bowler": "Bob", "reason": "lane 1"})
    meant = send("GET", "/api/v1/matches/m1/undo")[1]["undoable"]["action"]
    command(send, "holland-daze", {"bowler": "Ann", "reason": "lane 2"})  # another tablet
    before = service.state("m1").snapshot()
    status, body = command(send, "undo-last", {"reason": "oops", "action": meant})
    assert status == 409 and body["error"]["code"] == "undo_moved", body
    assert body["undoable"]["what"] == "the Holland-daze ruling on Ann"
    assert service.state("m1").snapshot() == before
    status, body = command(send, "undo-last", {"reason": "oops"})
    assert status == 422 and body["error"]["field"] == "action"


def test_bowlers_are_added_and_removed_before_the_first_ball(app, service):
    _, send = signed_in_tablet(app)
    send("POST", "/api/v1/matches", NEW_MATCH)
    status, body = command(send, "add-bowler", {"bowler": "Fay", "reason": "late"}, "m2")
    assert status == 200, body
    status, body = command(send, "remove-bowler", {"bowler": "Dee", "reason": "ill"}, "m2")
    assert status == 200, body
    assert service.state("m2").bowlers == ["Eve", "Cy", "Fay"]


def test_refused_commands_name_the_field_and_change_nothing(app, service):
    _, send = signed_in_tablet(app)
    seq = service.state("m1").seq
    cases = [
        ("guess", {"bowler": "Ann", "side": "up"}, 422, "side"),
        ("steal", {"bowler": "Ann", "from_bowler": "Bob", "card": "7H"}, 409, None),
        ("end-draw", {"bowler": "Ann", "accept": True}, 409, None),
        ("buy", {"bowler": "Ann", "accept": "maybe"}, 422, "accept"),
        ("apply-review", {"review_id": "R1"}, 409, None),
        ("dismiss-review", {}, 422, "review_id"),
        ("void-guess", {"bowler": "Ann"}, 409, None),
        ("confirm-result", {}, 409, None),
        ("undo-result", {}, 409, None),
        ("correct-ball", {"bowler": "Ann", "game": 1, "frame": 11, "ball": 1, "pins": 3},
         422, "frame"),
        ("correct-ball", {"bowler": "Ann", "game": 1, "frame": 1, "ball": 1, "pins": 3},
         409, None),
        ("consent", {"bowler": "Ann", "reason": "x"}, 422, "reason"),
        ("start", {}, 409, None),
    ]
    for kind, body, status, field in cases:
        got, answer = command(send, kind, body)
        assert got == status, (kind, answer)
        if field:
            assert answer["error"]["field"] == field, (kind, answer)
    assert service.state("m1").seq == seq


# --- the stale-version check: expected_seq -------------------------------------------------
def test_a_command_with_the_current_expected_seq_runs(app, service):
    _, send = signed_in_tablet(app)
    seq = send("GET", "/api/v1/matches/m1")[1]["seq"]
    status, body = command(send, "holland-daze", {"bowler": "Bob", "expected_seq": seq})
    assert status == 200, body
    assert body["events"][0]["seq"] == seq + 1 and body["seq"] == service.state("m1").seq


def test_a_stale_expected_seq_is_409_and_changes_nothing(app, service):
    _, send = signed_in_tablet(app)
    seen = service.state("m1").seq
    service.execute("m1", c.RecordBall("Ann", 1, 3, actor=FEED))  # the feed got in first
    now = service.state("m1").seq
    stored = service.repository.store.load("m1")
    for kind, body in (("holland-daze", {"bowler": "Bob"}), ("start", {}), ("void", {})):
        status, answer = command(send, kind, body | {"expected_seq": seen})
        assert status == 409, (kind, answer)
        assert answer == {"error": {
            "code": "stale_version", "field": "expected_seq",
            "message": f"the match changed since you looked (version {now}, not {seen}): "
                       "reload and try again"}}
    assert service.repository.store.load("m1") == stored
    assert service.state("m1").status == "playing"


def test_an_expected_seq_that_is_not_a_seq_is_422(app, service):
    _, send = signed_in_tablet(app)
    seq = service.state("m1").seq
    for bad in (-1, 1.5, float(seq), str(seq), True, [seq]):
        status, answer = command(send, "holland-daze", {"bowler": "Bob", "expected_seq": bad})
        assert status == 422, (bad, answer)
        assert (answer["error"]["code"], answer["error"]["field"]) == (
            "validation_failed", "expected_seq"), bad
    assert service.state("m1").seq == seq


def test_every_command_body_documents_expected_seq(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    paths = {path: item for path, item in document["paths"].items() if "/commands/" in path}
    assert len(paths) == len(COMMAND_BODIES)
    for path, item in paths.items():
        name = item["post"]["requestBody"]["content"]["application/json"]["schema"][
            "$ref"].rsplit("/", 1)[1]
        documented = document["components"]["schemas"][name]["properties"]["expected_seq"]
        assert {"type": "integer", "minimum": 0} in documented["anyOf"], path
        assert "stale_version" in documented["description"]
        assert "expected_seq" in item["post"]["responses"]["409"]["description"]


def test_a_kiosk_answer_with_a_stale_expected_seq_is_refused_and_changes_nothing(service):
    # The kiosk's ``decide`` validates with the same body models, so it takes the check too.
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=FEED))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor=FEED))
    state = service.state("m1")
    card = state.display_card(state.hands["Ann"][0])
    answer = {"match_id": "m1", "kind": "lose-card", "bowler": "Ann", "card": card}

    stale = answer_decision(service, ["m1"], answer | {"expected_seq": state.seq - 1})
    assert (stale["error"]["code"], stale["error"]["field"]) == ("stale_version", "expected_seq")
    assert service.state("m1") == state

    assert answer_decision(service, ["m1"], answer | {"expected_seq": state.seq}) == {"ok": True}
    assert len(service.state("m1").hands["Ann"]) == len(state.hands["Ann"]) - 1
