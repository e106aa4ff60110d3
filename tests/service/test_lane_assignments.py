"""The commissioner moves bowlers between lane slots; the change is kept and audited."""

from __future__ import annotations

import pytest

from alley_poker.ledger import CommandRefused
from alley_poker.service import LaneAssignmentError, open_service
from alley_poker.store.lane_assignments import LaneAssignmentLog


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
    with pytest.raises(LaneAssignmentError, match="lane 3 slot 1 is already Cy"):
        service.reassign_lanes("m1", {(1, 1): "Ann", (3, 1): "Bob"},
                               actor="commissioner:pat", reason="x")
    with pytest.raises(CommandRefused, match="match zz is new"):
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
