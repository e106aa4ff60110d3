"""Lane events become ledger commands exactly once, in bowling order."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from alley_poker.ledger import MatchState, StaleVersion, check_invariants, handle
from alley_poker.ledger.commands import (
    CommissionerUndoLastAction,
    CommissionerVoidMatch,
    ConsentToAnte,
    RecordBall,
    StartMatch,
)
from alley_poker.ledger.undo import undoable_action
from alley_poker.service import AlleyService
from drivers.base import (
    BallCorrected,
    BallRecorded,
    Flags,
    ScoresheetSnapshot,
    SheetBall,
    WrongLane,
)

NOW = datetime(2026, 11, 20, 19, 0, tzinfo=UTC)


class MemoryRepository:
    """The match repository's contract, in memory (the store's own tests cover persistence)."""

    def __init__(self, seed: int = 7):
        self.states: dict[str, MatchState] = {}
        self.rng = random.Random(seed)

    def state(self, match_id):
        return self.states.setdefault(match_id, MatchState.empty(match_id))

    def shared_state(self, match_id, *, refresh=False):
        return self.state(match_id)

    def execute(self, match_id, command, *, expected_seq=None):
        state = self.state(match_id)
        if expected_seq is not None and expected_seq != state.seq:
            raise StaleVersion(expected_seq=expected_seq, actual_seq=state.seq)
        events = handle(state, command, rng=self.rng, now=NOW)
        for event in events:
            state.apply(event)
        check_invariants(state)
        return events


@pytest.fixture
def alley():
    service = AlleyService(MemoryRepository())
    published = []
    service.bus.subscribe(lambda topic, message: published.append((topic, message)))
    service.create_match("m1", {(1, 1): "Ann", (1, 2): "Bob", (2, 1): "Cy"}, games=1,
                         actor="commissioner:pat")
    for bowler in ("Ann", "Bob", "Cy"):
        service.execute("m1", ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m1", StartMatch(actor="commissioner:pat"))
    service.published = published
    return service


def ball(frame, number, pins, *, lane=1, slot=1, game=1, seq=None, **flags):
    return BallRecorded(lane=lane, bowler=slot, game=game, frame=frame, ball=number, pins=pins,
                        flags=Flags(**flags), source="scorer", seq=seq)


def test_a_strike_from_the_feed_deals_to_the_bowler_in_that_slot(alley):
    alley.handle_lane_event(ball(1, 1, 10, lane=1, slot=2))
    state = alley.state("m1")
    assert len(state.hands["Bob"]) == 3  # strike 2 + first strike of the game 1
    assert state.hands["Ann"] == []
    assert any(topic == "match:m1" for topic, _ in alley.published)


def test_a_resent_ball_is_not_dealt_twice(alley):
    alley.handle_lane_event(ball(1, 1, 10, seq=1))
    alley.handle_lane_event(ball(1, 1, 10, seq=1))
    state = alley.state("m1")
    assert len(state.hands["Ann"]) == 3
    assert alley.router.stats.duplicates == 1
    assert len(state.balls["Ann"][0]) == 1


def test_a_ball_ahead_of_a_gap_waits_for_the_missing_one(alley):
    alley.handle_lane_event(ball(1, 1, 7))
    alley.handle_lane_event(ball(2, 1, 10))         # frame 1 ball 2 never arrived (yet)
    assert len(alley.state("m1").balls["Ann"][0]) == 1
    alley.handle_lane_event(ball(1, 2, 3))          # the spare arrives late
    state = alley.state("m1")
    assert [(b["frame"], b["ball"]) for b in state.balls["Ann"][0]] == [(1, 1), (1, 2), (2, 1)]
    assert len(state.hands["Ann"]) == 1 + 2 + 1  # spare 1, strike 2, first strike 1


def test_a_snapshot_after_an_outage_replays_only_the_missing_balls(alley):
    alley.handle_lane_event(ball(1, 1, 10))
    sheet = ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer", frames=(
        (SheetBall(10),), (SheetBall(6), SheetBall(4)), (SheetBall(0, Flags(gutter=True)),)))
    alley.handle_lane_event(sheet)
    # After a reconnect the scorer sends every bowler's sheet: Bob and Cy have not bowled.
    for lane, slot in ((1, 2), (2, 1)):
        alley.handle_lane_event(ScoresheetSnapshot(lane=lane, bowler=slot, game=1,
                                                   source="scorer", frames=()))
    alley.handle_lane_event(sheet)  # the same sheet again changes nothing
    state = alley.state("m1")
    assert [b["pins"] for b in state.balls["Ann"][0]] == [10, 6, 4, 0]
    assert alley.router.stats.recovered == 3
    notes = [m["message"] for t, m in alley.published if m.get("kind") == "balls_recovered"]
    assert notes == ["lane 1: recovered 3 balls from the scoresheet"]


def test_an_impossible_ball_is_refused_and_announced_never_raised(alley):
    alley.handle_lane_event(ball(1, 1, 7))
    alley.handle_lane_event(ball(1, 2, 5))  # only 3 pins stand
    state = alley.state("m1")
    assert len(state.balls["Ann"][0]) == 1
    refusals = [m for t, m in alley.published if m.get("kind") == "feed_ball_refused"]
    assert refusals and "3" in refusals[0]["reason"]


def test_balls_on_a_lane_without_a_match_keep_score_but_deal_nothing(alley):
    for frame, number, pins in [(1, 1, 7), (1, 2, 2), (2, 1, 10), (2, 1, 10)]:  # one re-sent
        alley.handle_lane_event(ball(frame, number, pins, lane=3))
    game = alley.router.open_game(3, 1, 1)
    assert game.score_so_far() == 9
    assert len(game.balls) == 3
    assert all(not hand for hand in alley.state("m1").hands.values())


def test_a_wrong_lane_record_is_a_holland_daze(alley):
    alley.handle_lane_event(ball(1, 1, 10))
    alley.handle_lane_event(WrongLane(lane=1, bowler=1, source="scorer"))
    assert alley.state("m1").hands["Ann"] == []


def test_a_slot_another_match_holds_cannot_be_claimed(alley):
    from alley_poker.service import LaneAssignmentError

    with pytest.raises(LaneAssignmentError, match="lane 1 slot 1 is already taken by Ann"):
        alley.create_match("m2", {(1, 1): "Dee", (2, 2): "Eve"}, actor="commissioner:pat")
    assert alley.lanes.assignment("m2") is None


def test_the_public_view_shows_hands_and_never_the_pile_order(alley):
    from alley_poker.ledger.views import public_match_view

    alley.handle_lane_event(ball(1, 1, 10))
    state = alley.state("m1")
    view = public_match_view(state)
    assert view["bowlers"]["Ann"]["hand"] == [state.display_card(c) for c in state.hands["Ann"]]
    assert view["bowlers"]["Ann"]["scoresheet"] == "X"
    assert view["bowlers"]["Ann"]["next_strike_cards"] == 3
    assert view["pile_count"] == len(state.pile) == 51
    text = repr({key: value for key, value in view.items() if key != "jokers"})
    assert not any(f"'{card}'" in text for card in state.pile), "a pile card leaked"
    assert view["places"][0] == ["Ann"]


def two_game_match(service: AlleyService) -> None:
    service.create_match("m2", {(5, 1): "Dee", (5, 2): "Eve"}, games=2, actor="commissioner:pat")
    for bowler in ("Dee", "Eve"):
        service.execute("m2", ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m2", StartMatch(actor="commissioner:pat"))


def test_a_ball_of_the_next_game_waits_until_the_previous_game_is_complete():
    """After an outage swallowed the end of game 1, game 2's balls are held (not refused)
    and dealt, in order, as soon as game 1's sheet completes it."""
    service = AlleyService(MemoryRepository())
    two_game_match(service)
    for frame in range(1, 10):
        service.handle_lane_event(ball(frame, 1, 10, lane=5, slot=1))
    # Frame 10 of game 1 was lost; game 2 starts with two balls.
    service.handle_lane_event(ball(1, 1, 10, lane=5, slot=1, game=2))
    service.handle_lane_event(ball(2, 1, 7, lane=5, slot=1, game=2))
    state = service.state("m2")
    assert state.balls["Dee"][1] == [] and service.router.stats.refused == 0
    service.handle_lane_event(ScoresheetSnapshot(lane=5, bowler=1, game=1, source="scorer",
                                                 frames=((SheetBall(10),),) * 9 + (
                                                     (SheetBall(10), SheetBall(10),
                                                      SheetBall(10)),)))
    state = service.state("m2")
    assert len(state.balls["Dee"][0]) == 12
    assert [(b["frame"], b["ball"], b["pins"]) for b in state.balls["Dee"][1]] == \
        [(1, 1, 10), (2, 1, 7)]
    assert service.router.stats.recovered == 3 and service.router.stats.refused == 0


def test_a_wrong_lane_line_re_sent_after_a_restart_is_not_a_second_holland_daze(tmp_path):
    """The scorer re-sends its last lines to the restarted service; the WRONG among them was
    applied before the crash (the ledger's log says so) and must not wipe cards won since."""
    from alley_poker.service import open_service

    database = f"sqlite:///{tmp_path / 'alley.sqlite3'}"
    before = open_service(database, rng_factory=lambda: random.Random(3))
    two_game_match(before)
    before.handle_lane_event(ball(1, 1, 10, lane=5, slot=1, seq=10))
    before.handle_lane_event(WrongLane(lane=5, bowler=1, source="scorer", seq=11))
    before.repository.store.close()

    after = open_service(database, rng_factory=lambda: random.Random(4))
    after.handle_lane_event(ball(2, 1, 10, lane=5, slot=1, seq=12))  # Dee wins cards again
    won = list(after.state("m2").hands["Dee"])
    assert won, "a strike after the Holland-daze deals"
    after.handle_lane_event(ball(1, 1, 10, lane=5, slot=1, seq=10))  # the re-sent lines
    after.handle_lane_event(WrongLane(lane=5, bowler=1, source="scorer", seq=11))
    state = after.state("m2")
    assert state.hands["Dee"] == won, "the re-sent WRONG line was applied a second time"
    dazes = [r for r in after.repository.store.load("m2") if r["type"] == "holland_daze"]
    assert len(dazes) == 1 and "[line scorer#11]" in dazes[0]["data"]["reason"]
    after.handle_lane_event(WrongLane(lane=5, bowler=1, source="scorer", seq=13))
    assert after.state("m2").hands["Dee"] == [], "a new WRONG line is a new Holland-daze"
    after.repository.store.close()


def test_a_correction_re_sent_after_a_reconnect_is_applied_once(alley):
    alley.handle_lane_event(ball(1, 1, 7))
    alley.handle_lane_event(ball(1, 2, 2))
    fix = BallCorrected(lane=1, bowler=1, game=1, frame=1, ball=2, pins=3, source="scorer",
                        seq=3)
    alley.handle_lane_event(fix)
    corrected = [m for t, m in alley.published if m.get("kind") == "events"
                 and any(e["type"] == "ball_corrected" for e in m["events"])]
    alley.handle_lane_event(fix)  # re-sent
    again = [m for t, m in alley.published if m.get("kind") == "events"
             and any(e["type"] == "ball_corrected" for e in m["events"])]
    state = alley.state("m1")
    assert [b["pins"] for b in state.balls["Ann"][0]] == [7, 3]
    assert len(corrected) == len(again) == 1
    assert alley.router.stats.duplicates == 1


def test_a_resync_never_takes_the_balls_the_slots_last_match_bowled(alley):
    alley.handle_lane_event(ball(1, 1, 7))  # Ann, match m1, lane 1 slot 1
    alley.execute("m1", CommissionerVoidMatch(reason="rained off", actor="commissioner:pat"))
    alley.create_match("m2", {(1, 1): "Dee", (1, 2): "Eve"}, games=1,
                       actor="commissioner:pat")
    for bowler in ("Dee", "Eve"):
        alley.execute("m2", ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    alley.execute("m2", StartMatch(actor="commissioner:pat"))

    outcome = alley.router.resync("m2", "Dee", actor="commissioner:pat")
    assert not outcome.done and "already in step" in outcome.message
    assert alley.state("m2").balls["Dee"][0] == []


def test_an_undo_keeps_the_scorers_correction_of_a_ball_the_desk_entered_first(alley):
    """The desk keys in Ann's ball, the scorer sends the same then corrects it, and the desk
    undoes a later entry: the undo offers the scorer's corrected ball, not its first reading
    (which a re-sync would then have put back)."""
    alley.handle_lane_event(ball(1, 1, 5))
    alley.execute("m1", RecordBall("Ann", 1, 3, actor="commissioner:pat"))
    alley.handle_lane_event(ball(1, 2, 3))  # the scorer agrees with the desk
    alley.handle_lane_event(BallCorrected(lane=1, bowler=1, game=1, frame=1, ball=2, pins=4,
                                          source="scorer"))
    alley.execute("m1", RecordBall("Bob", 1, 7, actor="commissioner:pat"))
    last = undoable_action(alley.state("m1"))
    alley.execute("m1", CommissionerUndoLastAction("wrong tap", action=last["action"],
                                                   actor="commissioner:pat"))
    alley.router.resync("m1", "Ann", actor="commissioner:pat")
    state = alley.state("m1")
    assert [b["pins"] for b in state.balls["Ann"][0]] == [5, 4]
    assert state.balls["Bob"][0] == []
    assert alley.held.open_items("m1") == []


def test_the_scorers_balls_for_a_bowler_who_left_are_refused_and_held_never_dealt(alley):
    from alley_poker.ledger.commands import CommissionerBowlerGone

    for slot in (1, 2):
        alley.handle_lane_event(ball(1, 1, 9, slot=slot))
        alley.handle_lane_event(ball(1, 2, 0, slot=slot))
    alley.execute("m1", CommissionerBowlerGone("Ann", "went home", actor="commissioner:pat"))
    seq = alley.state("m1").seq
    # The scorer keeps bowling her slot (a pacer, or a typo at the lane): nothing is dealt,
    # and no ball waits in memory for a frame that will never come.
    for number, pins in ((1, 7), (2, 2)):
        alley.handle_lane_event(ball(2, number, pins, slot=1))
    assert alley.state("m1").seq == seq and len(alley.state("m1").balls["Ann"][0]) == 2
    refusals = [m["reason"] for t, m in alley.published if m.get("kind") == "feed_ball_refused"]
    assert len(refusals) == 2 and "expects no more balls" in refusals[-1]
    assert not alley.router._held
    # Bob's slot on the same lane deals as before.
    alley.handle_lane_event(ball(2, 1, 10, slot=2))
    assert alley.state("m1").balls["Bob"][0][-1]["mark"] == "strike"
