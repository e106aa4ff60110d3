"""``GET /api/v1/lanes/<pair>/screen``: a lane pair's kiosk in one read, over the real app
and SQLite ledger (the kiosk's own behaviour is in test_kiosk_screen.py)."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from drivers.base import BallRecorded
from tests.web.conftest import DESK, start_match
from tests.web.test_kiosk_screen import settle_a_split_pot


def screen(app, pair: str = "1-2"):
    return app.test_client().get(f"/api/v1/lanes/{pair}/screen")


def test_a_pair_that_is_not_lane_numbers_is_a_404_naming_the_field(app):
    answer = screen(app, "one-two")
    assert answer.status_code == 404
    assert answer.get_json()["error"]["field"] == "lane_pair"


def test_the_screen_gives_lanes_who_is_up_and_running_totals(app, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    body = screen(app).get_json()
    assert body["last_result"] is None
    (match,) = body["matches"]
    assert match["match_id"] == "m1" and match["state"]["seq"] == service.state("m1").seq
    assert match["bowlers"] == {
        "Ann": {"lane": 1, "up": True, "ball": 1, "score": 0,  # a strike waits for bonus balls
                "score_at_least": 10, "held": 0},
        "Bob": {"lane": 2, "up": True, "ball": 1, "score": 0, "score_at_least": 0,
                "held": 0}}
    assert screen(app, "3-4").get_json() == {"lane_pair": "3-4", "matches": [],
                                             "last_result": None}


def test_the_match_settled_last_stays_until_a_voided_one_follows(app, service):
    settle_a_split_pot(service)
    body = screen(app).get_json()
    assert body["matches"] == []
    assert body["last_result"]["match_id"] == "m1"
    assert body["last_result"]["state"]["winners"] == ["Ann", "Bob"]
    assert body["last_result"]["bowlers"]["Ann"]["lane"] == 1
    assert screen(app, "3-4").get_json()["last_result"] is None  # other lanes

    start_match(service, "m2")  # the next match on the lanes
    body = screen(app).get_json()
    assert [m["match_id"] for m in body["matches"]] == ["m2"]
    assert body["last_result"]["match_id"] == "m1"  # the kiosk keeps it until m2 is bowled
    service.execute("m2", c.CommissionerVoidMatch(reason="rained off", actor=DESK))
    assert screen(app).get_json() == {"lane_pair": "1-2", "matches": [], "last_result": None}


def test_balls_from_a_slot_nobody_sits_in_count_for_the_bowlers_not_yet_seated(app, service):
    """The scorer's name for lane 2 matched nobody (a seat request): Bob has no slot, and the
    balls of lane 2 wait for the desk.  They may be his, so his screen says so; Ann's is
    plain.  Once the desk seats him there, they are dealt and the notice goes."""
    service.seat_bowlers("m1", {(1, 1): "Ann"}, actor=DESK, reason="the scorer's BOBBY")
    for ball, pins in ((1, 3), (2, 4)):
        service.router.handle(BallRecorded(lane=2, bowler=1, game=1, frame=1, ball=ball,
                                           pins=pins, source="scorer"))
    service.router.handle(BallRecorded(lane=5, bowler=1, game=1, frame=1, ball=1, pins=3,
                                       source="scorer"))  # another pair's: not theirs
    seats = screen(app).get_json()["matches"][0]["bowlers"]
    assert (seats["Bob"]["held"], seats["Bob"]["lane"], seats["Ann"]["held"]) == (2, None, 0)

    service.seat_bowlers("m1", {(1, 1): "Ann", (2, 1): "Bob"}, actor=DESK, reason="Bob")
    for item in service.held.open_items():
        if item["lane"] == 2:
            assert service.router.apply_held(item["id"], actor=DESK).done
    seats = screen(app).get_json()["matches"][0]["bowlers"]
    assert (seats["Bob"]["held"], seats["Bob"]["score"]) == (0, 7)
