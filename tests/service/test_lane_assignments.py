"""The commissioner moves bowlers between lane slots; the change is kept and audited."""

from __future__ import annotations

import pytest

from alley_poker.ledger import CommandRefused
from alley_poker.service import LaneAssignmentError, open_service
from alley_poker.store.lane_assignments import LaneAssignmentLog
from tests.league.play import decline_the_end


def test_a_reassignment_survives_a_restart_with_who_and_why(store_url):
    database = store_url
    service = open_service(database)
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1,
                         actor="commissioner:pat")
    service.reassign_lanes("m1", {(1, 1): "Ann", (1, 2): "Bob"}, actor="commissioner:pat",
                           reason="Bob moved to lane 1")
    assert service.lanes.bowler_at(1, 2) == ("m1", "Bob")
    assert service.lanes.bowler_at(2, 1) is None
    service.repository.store.close()

    restarted = open_service(database)
    assert restarted.lanes.bowler_at(1, 2) == ("m1", "Bob")
    history = LaneAssignmentLog(restarted.repository.store).history("m1")
    assert [(h["actor"], h["reason"]) for h in history] == [
        ("commissioner:pat", "match created"), ("commissioner:pat", "Bob moved to lane 1")]
    restarted.repository.store.close()


def test_a_bad_reassignment_is_refused_and_changes_nothing(store_url):
    service = open_service(store_url)
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1,
                         actor="commissioner:pat")
    service.create_match("m2", {(3, 1): "Cy", (4, 1): "Dee"}, games=1,
                         actor="commissioner:pat")
    with pytest.raises(CommandRefused, match="every bowler of the match"):
        service.reassign_lanes("m1", {(1, 1): "Ann"}, actor="commissioner:pat", reason="x")
    with pytest.raises(LaneAssignmentError, match="lane 3 slot 1 is already taken by Cy"):
        service.reassign_lanes("m1", {(1, 1): "Ann", (3, 1): "Bob"},
                               actor="commissioner:pat", reason="x")
    with pytest.raises(CommandRefused, match="there is no match 'zz'"):
        service.reassign_lanes("zz", {(5, 1): "Eve"}, actor="commissioner:pat", reason="x")
    assert service.lanes.bowler_at(2, 1) == ("m1", "Bob")
    assert len(LaneAssignmentLog(service.repository.store).history("m1")) == 1
    service.repository.store.close()


def test_finished_matches_do_not_take_their_lanes_back_after_a_restart(store_url):
    from alley_poker.ledger.commands import CommissionerVoidMatch

    database = store_url
    service = open_service(database)
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1,
                         actor="commissioner:pat")
    service.execute("m1", CommissionerVoidMatch(reason="rained off", actor="commissioner:pat"))
    service.repository.store.close()
    restarted = open_service(database)
    assert restarted.lanes.bowler_at(1, 1) is None
    restarted.repository.store.close()


def test_a_removed_bowler_gives_up_their_lane_slot_for_good(store_url):
    from alley_poker.ledger import commands as c

    database = store_url
    service = open_service(database)
    service.create_match("m1", {(1, 1): "Ann", (1, 2): "Bob", (2, 1): "Cy"}, games=1,
                         actor="commissioner:pat")
    service.execute("m1", c.CommissionerRemoveBowler("Bob", reason="went home",
                                                     actor="commissioner:pat"))
    assert service.lanes.bowler_at(1, 2) is None           # the feed's slot 2 deals to nobody
    assert service.lanes.bowler_at(1, 1) == ("m1", "Ann")
    service.repository.store.close()

    restarted = open_service(database)
    assert restarted.lanes.bowler_at(1, 2) is None
    history = LaneAssignmentLog(restarted.repository.store).history("m1")
    assert history[-1]["reason"] == "Bob removed from the match"
    restarted.repository.store.close()


# --- a finished match frees its lanes at once (league night: the next match is on them) ------

def start(service, match_id, slots, *, games=1):
    from alley_poker.ledger.commands import ConsentToAnte, StartMatch

    service.create_match(match_id, slots, games=games, actor="commissioner:pat")
    for bowler in slots.values():
        service.execute(match_id, ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, StartMatch(actor="commissioner:pat"))


def settle(service, match_id):
    """9-0 frames to the end, every end-of-match choice declined, the result confirmed."""
    from alley_poker.ledger import commands as c

    while service.state(match_id).status == "playing":
        for bowler in service.state(match_id).bowlers:
            for pins in (9, 0):
                if service.state(match_id).status == "playing":
                    service.execute(match_id, c.RecordBall(bowler, None, pins,
                                                           actor="commissioner:pat"))
    decline_the_end(service.execute, service.state, match_id)
    service.execute(match_id, c.CommissionerConfirmResult(reason="end of the night",
                                                          actor="commissioner:pat"))
    assert service.state(match_id).status == "settled"


def lane_messages(service):
    seen = []
    service.bus.subscribe(lambda topic, message: seen.append(message)
                          if topic == "alley" else None)
    return seen


def feed_strike(service, lane, slot):
    from drivers.base import BallRecorded, Flags

    service.handle_lane_event(BallRecorded(lane=lane, bowler=slot, game=1, frame=1, ball=1,
                                           pins=10, flags=Flags(), source="scorer"))


def test_a_voided_match_frees_its_lanes_for_the_next_match_at_once(store_service):
    from alley_poker.ledger.commands import CommissionerVoidMatch

    service = store_service
    seen = lane_messages(service)
    start(service, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
    service.execute("m1", CommissionerVoidMatch(reason="rained off", actor="commissioner:pat"))
    assert service.lanes.bowler_at(1, 1) is None
    assert seen[-1] == {"kind": "lanes_released", "match_id": "m1", "actor": "commissioner:pat",
                        "reason": "match voided", "origin": service.bus.origin}

    start(service, "m2", {(1, 1): "Cy", (2, 1): "Dee"})  # was: "already Ann of match m1"
    feed_strike(service, 1, 1)
    assert [b["pins"] for b in service.state("m2").balls["Cy"][0]] == [10]
    history = LaneAssignmentLog(service.repository.store).history("m1")
    assert [(h["reason"], h["slots"]) for h in history] == [
        ("match created", {(1, 1): "Ann", (2, 1): "Bob"}), ("match voided", {})]


def test_a_settled_match_frees_its_lanes_and_a_restart_agrees(store_service):
    service = store_service
    start(service, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
    settle(service, "m1")
    assert service.lanes.assignment("m1") is None
    start(service, "m2", {(1, 1): "Cy", (2, 1): "Dee"})
    feed_strike(service, 1, 1)
    assert [b["pins"] for b in service.state("m2").balls["Cy"][0]] == [10]
    assert LaneAssignmentLog(service.repository.store).history("m1")[-1]["reason"] == \
        "match settled"

    restarted = open_service(service.repository.store.engine.url.render_as_string(
        hide_password=False))
    try:
        assert restarted.lanes.bowler_at(1, 1) == ("m2", "Cy")
        assert restarted.lanes.assignment("m1") is None
    finally:
        restarted.repository.store.close()


def test_an_undone_result_takes_its_free_lanes_back(store_service):
    from alley_poker.ledger.commands import CommissionerUndoResult

    service = store_service
    start(service, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
    settle(service, "m1")
    service.execute("m1", CommissionerUndoResult(reason="wrong score", actor="commissioner:pat"))
    assert service.state("m1").status == "ending"
    assert service.lanes.bowler_at(2, 1) == ("m1", "Bob")
    history = LaneAssignmentLog(service.repository.store).history("m1")
    assert [h["reason"] for h in history] == [
        "match created", "match settled", "result undone: lanes taken back"]
    assert history[-1]["slots"] == history[0]["slots"]


def test_an_undone_result_leaves_lanes_another_match_took_and_says_so(store_service):
    from alley_poker.ledger.commands import CommissionerUndoResult

    service = store_service
    seen = lane_messages(service)
    start(service, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
    settle(service, "m1")
    start(service, "m2", {(1, 1): "Cy", (3, 1): "Dee"})
    service.execute("m1", CommissionerUndoResult(reason="wrong score", actor="commissioner:pat"))
    assert service.lanes.bowler_at(1, 1) == ("m2", "Cy")
    assert service.lanes.assignment("m1") is None
    assert seen[-1] == {"kind": "lanes_not_restored", "match_id": "m1",
                        "actor": "commissioner:pat",
                        "reason": "lane 1 slot 1 is already taken by Cy in another match",
                        "origin": service.bus.origin}
    history = LaneAssignmentLog(service.repository.store).history("m1")
    assert history[-1]["reason"] == "match settled"  # the log still says: no lanes
    # The commissioner can put the match on other lanes.
    service.reassign_lanes("m1", {(5, 1): "Ann", (6, 1): "Bob"}, actor="commissioner:pat",
                           reason="back on 5-6")
    assert service.lanes.bowler_at(5, 1) == ("m1", "Ann")


class SharedHub:
    """Two processes' buses over one hub, as a Redis bus between a web process and the worker."""

    def __init__(self):
        self.subscribers = []

    def bus(self):
        from alley_poker.service.bus import new_origin

        hub = self

        class Bus:
            is_shared = True
            origin = new_origin()

            def publish(self, topic, message):
                for subscriber in list(hub.subscribers):
                    subscriber(topic, {**message, "origin": self.origin})

            def subscribe(self, subscriber):
                hub.subscribers.append(subscriber)
                return lambda: hub.subscribers.remove(subscriber)

        return Bus()


def test_a_match_voided_in_a_web_process_frees_the_workers_lanes(sqlite_url):
    from alley_poker.ledger.commands import CommissionerUndoResult, CommissionerVoidMatch

    hub = SharedHub()
    web, worker = (open_service(sqlite_url, bus=hub.bus()) for _ in range(2))
    try:
        start(web, "m1", {(1, 1): "Ann", (2, 1): "Bob"})
        assert worker.lanes.bowler_at(1, 1) == ("m1", "Ann")
        web.execute("m1", CommissionerVoidMatch(reason="rained off", actor="commissioner:pat"))
        assert worker.lanes.bowler_at(1, 1) is None
        start(worker, "m2", {(1, 1): "Cy", (2, 1): "Dee"})
        feed_strike(worker, 1, 1)
        assert [b["pins"] for b in web.state("m2").balls["Cy"][0]] == [10]

        # A settled match undone in the worker takes its lanes back in the web process too.
        start(web, "m3", {(3, 1): "Eve", (4, 1): "Fay"})
        settle(web, "m3")
        assert worker.lanes.assignment("m3") is None
        worker.execute("m3", CommissionerUndoResult(reason="x", actor="commissioner:pat"))
        assert web.lanes.bowler_at(4, 1) == ("m3", "Fay")
    finally:
        web.repository.store.close()
        worker.repository.store.close()
