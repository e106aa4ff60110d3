"""Held balls in bulk: a night's worth chosen (a lane, a feed, all) and discarded with one
reason as one command — every one of them, or none.

The service and the API refuse an empty reason, a ball already resolved and an unknown one,
naming the problem, and change nothing; a bulk discard resolves every ball at one time, by
one desk, for one reason, with one announcement.  The tablet's Held balls screen does it in
real Chromium and says what it did in words ("6 held balls discarded").
"""

from __future__ import annotations

import pytest

from alley_poker.service.held import HeldBallsInMemory
from drivers.base import BallRecorded
from tests.web import test_tablet_browser
from tests.web.conftest import DESK
from tests.web.test_accessibility import serious_violations
from tests.web.test_league_api import Desk, refused
from tests.web.test_tablet_browser import feed_health

tablet = test_tablet_browser.tablet  # the signed-in tablet that says yes to every confirm


def hold_balls(service, lane: int, count: int) -> list[int]:
    """``count`` balls of a scorer on a lane no match is on: each held for the desk."""
    for frame in range(1, count + 1):
        service.router.handle(BallRecorded(
            lane=lane, bowler=1, game=1, frame=frame, ball=1, pins=frame % 10,
            source="scorer", raw=f"$APF1,{lane}{frame},BALL,{lane},1,1,{frame},1,{frame % 10}"))
    held = [item["id"] for item in service.held.open_items() if item["lane"] == lane]
    assert len(held) == count, service.held.open_items()
    return held


def still_open(service) -> set[int]:
    return {item["id"] for item in service.held.open_items()}


def announcements(service) -> list[dict]:
    heard: list[dict] = []
    service.bus.subscribe(lambda topic, message: heard.append(message)
                          if message.get("kind") == "held_resolved" else None)
    return heard


def test_a_bulk_discard_is_one_command_with_one_reason_time_and_desk(service):
    chosen = hold_balls(service, 5, 4)
    kept = hold_balls(service, 6, 2)
    heard = announcements(service)

    outcome = service.router.discard_many(chosen, actor=DESK, reason="practice balls")

    assert (outcome.done, outcome.message) == (True, "4 held balls discarded")
    assert still_open(service) == set(kept), "the other lane's balls stay held"
    resolved = [service.held.get(item_id) for item_id in chosen]
    assert {(item["outcome"], item["resolved_by"], item["resolved_reason"])
            for item in resolved} == {("discarded", DESK, "practice balls")}
    assert len({item["resolved_at"] for item in resolved}) == 1, "one command, one time"
    assert [(m["outcome"], m["ids"]) for m in heard] == [("discarded", chosen)], \
        "one announcement for the whole command"


def test_a_bulk_discard_with_any_ball_not_open_discards_none(service):
    chosen = hold_balls(service, 5, 5)
    assert service.router.discard_held(chosen[2], actor=DESK, reason="a test line").done
    heard = announcements(service)

    outcome = service.router.discard_many(chosen, actor=DESK, reason="practice balls")

    assert not outcome.done
    assert outcome.message == ("1 held ball of the 5 chosen is no longer held (resolved "
                               "meanwhile, or unknown): nothing was discarded; refresh the "
                               "list and choose again")
    assert still_open(service) == set(chosen) - {chosen[2]}, "nothing changed"
    assert heard == []
    blank = service.router.discard_many(chosen[:2], actor=DESK, reason="  ")
    assert not blank.done and "give a reason" in blank.message
    assert still_open(service) == set(chosen) - {chosen[2]}


def test_the_memory_log_is_all_or_nothing_too():
    log = HeldBallsInMemory()
    ball = {"game": 1, "frame": 1, "ball": 1, "pins": 7, "standing": None, "flags": "",
            "source": "scorer", "seq": 1, "recovered": False}
    ids = [log.hold(lane=1, slot=slot, match_id=None, bowler=None, ball=ball, line="",
                    reason="no match") for slot in (1, 2)]
    assert log.resolve_many([*ids, 99], "discarded", actor=DESK, reason="x") == [99]
    assert len(log.open_items()) == 2
    assert log.resolve_many(ids, "discarded", actor=DESK, reason="x") == []
    assert log.open_items() == []


def test_the_api_discards_many_in_one_call_or_refuses_naming_the_problem(app, service):
    desk = Desk(app)
    chosen = hold_balls(service, 5, 3)
    resolved = hold_balls(service, 6, 1)[0]
    service.router.discard_held(resolved, actor=DESK, reason="a test line")
    before = still_open(service)

    error = refused(desk.send("POST", "/held/discard", {"ids": chosen, "reason": " "}),
                    422, "reason")
    assert error["message"] == ("give a reason for discarding the balls: it goes into the "
                                "audit trail")
    refused(desk.send("POST", "/held/discard", {"ids": chosen}), 422, "reason")
    refused(desk.send("POST", "/held/discard", {"ids": [], "reason": "x"}), 422, "ids")
    error = refused(desk.send("POST", "/held/discard",
                              {"ids": [*chosen, 987654], "reason": "practice"}), 404, "ids")
    assert error["message"] == "no held ball 987654: nothing was discarded"
    answer = desk.send("POST", "/held/discard", {"ids": [*chosen, resolved],
                                                 "reason": "practice"})
    assert answer.status_code == 409, answer.get_json()
    assert "nothing was discarded" in answer.get_json()["error"]["message"]
    assert still_open(service) == before, "every refusal left every ball held"
    assert app.test_client().post("/api/v1/held/discard",
                                  json={"ids": chosen, "reason": "x"}).status_code in (401, 403)

    answer = desk.send("POST", "/held/discard", {"ids": chosen, "reason": "practice"})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == {"done": True, "message": "3 held balls discarded",
                                 "discarded": 3, "ids": chosen}
    assert still_open(service) == set()
    again = desk.send("POST", "/held/discard", {"ids": chosen, "reason": "practice"})
    assert again.status_code == 409

    # The audit trail: who discarded each, when and why — the bulk command's at one time.
    trail = desk.get("/held?state=resolved").get_json()["held"]
    assert [item["id"] for item in trail[:3]] == sorted(chosen, reverse=True)
    assert {(item["outcome"], item["resolved_by"], item["resolved_reason"])
            for item in trail[:3]} == {("discarded", "commissioner:tablet", "practice")}
    assert len({item["resolved_at"] for item in trail[:3]}) == 1
    assert (trail[3]["id"], trail[3]["resolved_reason"]) == (resolved, "a test line")


def test_the_openapi_document_has_the_bulk_discard(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    operation = document["paths"]["/api/v1/held/discard"]["post"]
    assert {"200", "404", "409", "422"} <= set(operation["responses"])


@pytest.fixture
def night_of_held_balls(service):
    """Held balls on two feeds: lanes 5-6 (feed "north") and lane 7 (feed "south")."""
    service.bus.publish("alley", {"kind": "feed_health", "feeds": [
        feed_health("north", "ok", lanes=[5, 6]), feed_health("south", "ok", lanes=[7])]})
    return {5: hold_balls(service, 5, 6), 6: hold_balls(service, 6, 4),
            7: hold_balls(service, 7, 3)}


def test_the_tablet_discards_a_lane_then_a_feed_with_one_reason_each(
        tablet, service, night_of_held_balls):
    held = night_of_held_balls
    screen = tablet.locator("#held")
    lane_5 = screen.locator("li.held-lane[data-lane='5']")
    lane_5.locator("li.held-item").nth(5).wait_for(state="attached")
    tablet.wait_for_function("document.getElementById('held-count').textContent === '13'")
    # A lane of many held balls is one line; the desk opens it to see each.
    assert not lane_5.locator("li.held-item").first.is_visible()
    lane_5.get_by_text("Each ball of lane 5 (6)").click()
    lane_5.locator("li.held-item").nth(5).wait_for()
    words = screen.locator("#held-list").inner_text()
    assert "$APF1" not in words, "no raw feed line where a person reads"
    assert "Lane 5 — 6 held balls" in words
    assert "Slot 1 (nobody seated): game 1, frame 6, ball 1, 6 pins" in words
    assert serious_violations(tablet) == []

    # A reason is asked for before anything is sent.
    lane_5.get_by_role("button", name="Choose all of lane 5 (6)").click()
    discard = screen.locator("#held-discard-chosen")
    assert discard.inner_text() == "Discard the 6 chosen balls…"
    discard.click()
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes('Give a reason')")
    assert still_open(service) == {*held[5], *held[6], *held[7]}

    screen.locator("#held-reason").fill("the mechanic's test game")
    discard.click()
    screen.locator("#held-progress", has_text="6 held balls discarded").wait_for()
    lane_5.wait_for(state="detached")
    assert still_open(service) == {*held[6], *held[7]}
    assert {service.held.get(i)["resolved_reason"] for i in held[5]} == {
        "the mechanic's test game"}

    # A whole feed: lane 6 is all that is left of "north".
    screen.get_by_role("button", name="Choose all from feed north (4)").click()
    screen.locator("#held-reason").fill("practice before the league")
    discard.click()
    screen.locator("#held-progress", has_text="4 held balls discarded").wait_for()
    assert still_open(service) == set(held[7])

    # One by one.
    lane_7 = screen.locator("li.held-lane[data-lane='7'] li.held-item")
    lane_7.nth(0).locator("input.held-choose").check()
    lane_7.nth(2).locator("input.held-choose").check()
    assert discard.inner_text() == "Discard the 2 chosen balls…"
    screen.locator("#held-reason").fill("practice")
    discard.click()
    screen.locator("#held-progress", has_text="2 held balls discarded").wait_for()
    assert still_open(service) == {held[7][1]}


def test_a_lane_drawn_open_with_few_balls_is_folded_once_it_holds_many(tablet, service):
    """A lane first drawn with two held balls (shown open) that then holds six is one line
    again: only the desk's own click keeps a lane open.  (The fold's "toggle" event fires
    for the state it is drawn in too; taken as the desk's, it kept the lane open — ci3.)"""
    lane_5 = tablet.locator("#held li.held-lane[data-lane='5']")
    hold_balls(service, 5, 2)
    lane_5.locator("li.held-item").nth(1).wait_for()  # two balls: drawn open
    tablet.evaluate("() => new Promise(done => setTimeout(done, 100))")  # its toggle fired
    for frame in range(3, 7):
        service.router.handle(BallRecorded(
            lane=5, bowler=1, game=1, frame=frame, ball=1, pins=frame,
            source="scorer", raw=f"$APF1,5{frame},BALL,5,1,1,{frame},1,{frame}"))
    lane_5.get_by_text("Each ball of lane 5 (6)").wait_for()
    assert not lane_5.locator("li.held-item").first.is_visible()
    lane_5.get_by_text("Each ball of lane 5 (6)").click()  # the desk opens it: it stays open
    lane_5.locator("li.held-item").first.wait_for()
    service.router.handle(BallRecorded(
        lane=5, bowler=1, game=1, frame=7, ball=1, pins=7,
        source="scorer", raw="$APF1,57,BALL,5,1,1,7,1,7"))
    lane_5.get_by_text("Each ball of lane 5 (7)").wait_for()
    assert lane_5.locator("li.held-item").first.is_visible()
