"""A cable drop on a lane pair, caught up from the scorer's sheets in the lanes' turn order.

The scorer writes apf1 lines into a socat pty pair; the service reads them with its serial
reader and routes them with its real router into a real event store.  The same night is
bowled twice with the same deal: once without a drop, once with the cable pulled for a
whole frame round (every bowler of the pair bowls once meanwhile) and plugged back, after
which the scorer sends every bowler's sheet.  The sheets say what each bowler bowled, never
in which order; the first strike of the game was bowled in that round.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
import serial

from alley_poker.ledger.commands import ConsentToAnte, StartMatch
from alley_poker.service import open_service
from drivers.base import BallRecorded, ScoresheetSnapshot, SheetBall
from drivers.dialects.apf1 import Apf1Encoder
from drivers.serial_feed import BackoffSchedule, SerialFeed

MATCH = "tue-lanes-1-2"
#: Lane pair 1-2: on each lane the bowlers take turns in slot order, frame by frame, and the
#: two lanes bowl side by side (here strictly alternating, as the night below was bowled).
SEATS = {(1, 1): "ANN", (2, 1): "BOB", (1, 2): "CY", (2, 2): "DEE"}
OPEN = [7, 2]


def frames(*first: list[int], rest: list[int] = OPEN) -> list[list[int]]:
    return [*first, *[rest] * (10 - len(first))]


#: No mark before frame 2.  CY's strike in frame 2 is the first of the game; ANN strikes in
#: frame 3; lane 2 bowls open frames in the dropped round and marks after it.
NIGHT = {
    "ANN": frames([7, 2], [8, 1], [10], [9, 1]),
    "CY": frames([6, 3], [10], [7, 2], [10], rest=[8, 1]),
    "BOB": frames([5, 4], [7, 2], [8, 1], [10], rest=[6, 3]),
    "DEE": frames([4, 5], [6, 3], [10], [3, 7], rest=[7, 2]),
}


@dataclass(frozen=True)
class Night:
    before: list[BallRecorded]
    dropped: list[BallRecorded]
    after: list[BallRecorded]


def bowl(night: dict[str, list[list[int]]], drop_from: tuple[str, int],
         drop_to: tuple[str, int]) -> Night:
    """The night's balls in the order bowled, split around the dropped stretch: from
    ``drop_from`` (bowler, frame) to ``drop_to``, both whole frames."""
    order: list[tuple[str, int, BallRecorded]] = []
    for frame in range(1, 11):
        for (lane, slot), name in SEATS.items():
            for number, pins in enumerate(night[name][frame - 1], start=1):
                order.append((name, frame, BallRecorded(
                    lane=lane, bowler=slot, game=1, frame=frame, ball=number, pins=pins)))
    keys = [(name, frame) for name, frame, _ in order]
    start, end = keys.index(drop_from), len(keys) - keys[::-1].index(drop_to)
    balls = [ball for _, _, ball in order]
    return Night(balls[:start], balls[start:end], balls[end:])


def sheets(balls: list[BallRecorded]) -> list[ScoresheetSnapshot]:
    """Every bowler's sheet so far, as a scorer sends them after a reconnect (slot order)."""
    out = []
    for (lane, slot) in sorted(SEATS):
        frames_so_far: dict[int, list[SheetBall]] = {}
        for ball in balls:
            if (ball.lane, ball.bowler) == (lane, slot):
                frames_so_far.setdefault(ball.frame, []).append(SheetBall(ball.pins))
        out.append(ScoresheetSnapshot(lane=lane, bowler=slot, game=1, frames=tuple(
            tuple(frame) for _, frame in sorted(frames_so_far.items()))))
    return out


class Scorer:
    """The scorer's side of the pty: numbered apf1 lines, written one by one."""

    def __init__(self, pair):
        self.pair = pair
        self.encoder = Apf1Encoder(session="tue-night")
        self.port = serial.serial_for_url(pair.writer_path)
        self.port.write(self.encoder.hello())
        self.written = 1

    def send(self, events) -> None:
        for event in events:
            self.port.write(self.encoder.encode(event))
            self.written += 1

    def lose(self, events) -> None:
        """Lines written while the cable is out: numbered, never read."""
        for event in events:
            self.encoder.encode(event)

    def pull_cable_and_plug_back(self, feed: SerialFeed) -> None:
        self.port.close()
        self.pair.unplug()
        assert feed.wait_for(lambda h: not h.connected, 5)
        self.pair.plug()
        assert feed.wait_for(lambda h: h.connected and h.reconnects == 1, 10)
        self.port = serial.serial_for_url(self.pair.writer_path)


def play(tmp_path, pty_pair, night: Night, *, drop: bool, name: str):
    """Bowl ``night`` through the pty into a fresh service; the service and what it said."""
    service = open_service(f"sqlite:///{tmp_path / f'{name}.sqlite3'}",
                           rng_factory=lambda: random.Random(37))
    said: list[dict] = []
    service.bus.subscribe(lambda topic, message: said.append(message))
    service.create_match(MATCH, SEATS, games=1, actor="commissioner:pat")
    for bowler in SEATS.values():
        service.execute(MATCH, ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(MATCH, StartMatch(actor="commissioner:pat"))
    feed = SerialFeed(pty_pair.reader_path, "apf1", service.handle_lane_event,
                      source="scorer", backoff=BackoffSchedule(initial=0.02, maximum=0.2),
                      read_timeout=0.05)
    feed.start()
    try:
        assert feed.wait_connected(5)
        scorer = Scorer(pty_pair)
        scorer.send(night.before)
        if drop:
            assert feed.wait_for(lambda h: h.lines_ok == scorer.written, 20), feed.health()
            scorer.pull_cable_and_plug_back(feed)
            scorer.lose(night.dropped)
        else:
            scorer.send(night.dropped)
        scorer.send(sheets(night.before + night.dropped))
        scorer.send(night.after)
        assert feed.wait_for(
            lambda h: h.lines_ok + h.lines_rejected + h.duplicates >= scorer.written, 30), \
            feed.health()
        scorer.port.close()
    finally:
        feed.stop()
    return service, said, feed.health()


def cards(service) -> dict[str, list[str]]:
    state = service.state(MATCH)
    return {bowler: [state.display_card(card) for card in state.hands[bowler]]
            for bowler in state.bowlers}


@pytest.fixture
def night_without_drop(tmp_path, pty_pair):
    night = bowl(NIGHT, drop_from=("CY", 2), drop_to=("BOB", 3))
    service, _said, health = play(tmp_path, pty_pair, night, drop=False, name="clean")
    assert health.gaps == () and health.lines_rejected == 0
    yield night, service
    service.repository.store.close()


def test_a_frame_round_lost_on_a_lane_pair_deals_the_same_cards_as_without_the_drop(
        tmp_path, pty_pair, night_without_drop):
    night, clean = night_without_drop
    # The dropped round: CY's strike (the game's first), DEE's open frame 2, ANN's strike
    # in frame 3 and BOB's open frame 3.  Bowler by bowler, ANN's sheet would come first
    # and hand her CY's first-strike bonus and the cards after it.
    assert [(b.lane, b.bowler, b.frame) for b in night.dropped if b.ball == 1] == [
        (1, 2, 2), (2, 2, 2), (1, 1, 3), (2, 1, 3)]
    dropped, said, health = play(tmp_path, pty_pair, night, drop=True, name="dropped")
    try:
        assert health.reconnects == 1 and health.gaps_total == 1
        state = dropped.state(MATCH)
        assert state.first_strike == {1: "CY"} == clean.state(MATCH).first_strike
        assert cards(dropped) == cards(clean)
        assert {b: state.balls[b] for b in state.bowlers} == \
            {b: clean.state(MATCH).balls[b] for b in state.bowlers}
        assert state.status == clean.state(MATCH).status
        assert dropped.held.open_items() == []
        assert dropped.router.stats.recovered == len(night.dropped)
        recovered = [m["message"] for m in said if m.get("kind") == "balls_recovered"]
        assert recovered == ["lane 1: recovered 2 balls from the scoresheet",
                             "lane 2: recovered 4 balls from the scoresheet"]
    finally:
        dropped.repository.store.close()


def test_marks_on_both_lanes_while_the_cable_was_out_wait_for_the_desk(tmp_path, pty_pair):
    """DEE struck on lane 2 in the same round as CY on lane 1: no sheet says who was first,
    so neither strike (nor anything bowled after it on those lanes) is dealt by guess."""
    night_with_two_marks = {**NIGHT, "DEE": frames([4, 5], [10], [7, 2])}
    night = bowl(night_with_two_marks, drop_from=("CY", 2), drop_to=("BOB", 3))
    night = Night(night.before, night.dropped, [])  # the scorer sends its sheets, then waits
    service, said, _health = play(tmp_path, pty_pair, night, drop=True, name="two-marks")
    try:
        state = service.state(MATCH)
        assert state.first_strike == {}
        assert all(len(state.hands[bowler]) == 0 for bowler in state.bowlers)
        # Lane 2: BOB's frame 2 came live; DEE's strike and BOB's frame 3 after it wait.
        # Lane 1: CY's strike and ANN's frame 3 after it wait.
        items = service.held.open_items(MATCH)
        waiting = sorted((item["bowler"], item["ball"]["frame"], item["ball"]["ball"])
                         for item in items)
        assert waiting == [("ANN", 3, 1), ("BOB", 3, 1), ("BOB", 3, 2), ("CY", 2, 1),
                           ("DEE", 2, 1)]
        assert all(item["reason"].endswith("apply the balls in the order they were bowled")
                   for item in items), items
        notices = [m["message"] for m in said if m.get("kind") == "catch_up_for_review"]
        assert notices == ["lanes 1-2: marks were bowled on both lanes while the scorer's "
                           "feed was out, and its sheets cannot tell which came first: 5 "
                           "balls wait under Held balls; apply them in the order they were "
                           "bowled"]
        # The desk asks the bowlers and applies CY's strike first: the bonus is CY's.
        (cy_strike,) = [item for item in items if item["bowler"] == "CY"]
        assert service.router.apply_held(cy_strike["id"], actor="commissioner:pat").done
        assert service.state(MATCH).first_strike == {1: "CY"}
    finally:
        service.repository.store.close()


def test_sheets_sent_in_slot_order_still_deal_in_the_lanes_turn_order():
    """The feed was out from the first ball; the scorer sends ANN's sheet (slot 1) before
    CY's.  CY struck in frame 1, ANN in frame 2: the first strike is CY's, and ANN's strike
    waits (held, with its reason) until CY's sheet tells who was first."""
    from alley_poker.service import AlleyService
    from tests.service.test_router import MemoryRepository

    service = AlleyService(MemoryRepository())
    service.create_match("m", {(1, 1): "ANN", (1, 2): "CY"}, games=1, actor="commissioner:pat")
    for bowler in ("ANN", "CY"):
        service.execute("m", ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m", StartMatch(actor="commissioner:pat"))
    ann = ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer", frames=(
        (SheetBall(7), SheetBall(2)), (SheetBall(10),)))
    cy = ScoresheetSnapshot(lane=1, bowler=2, game=1, source="scorer", frames=(
        (SheetBall(10),), (SheetBall(7), SheetBall(2))))
    service.handle_lane_event(ann)
    state = service.state("m")
    assert [b["pins"] for b in state.balls["ANN"][0]] == [7, 2] and state.first_strike == {}
    (waiting,) = service.held.open_items("m")
    assert (waiting["bowler"], waiting["ball"]["frame"]) == ("ANN", 2)
    assert "when it was bowled among the other bowlers of lane 1" in waiting["reason"]
    service.handle_lane_event(cy)
    state = service.state("m")
    assert state.first_strike == {1: "CY"}
    assert len(state.hands["CY"]) == 3 and len(state.hands["ANN"]) == 2  # 2 + 1 bonus; 2
    assert service.held.open_items("m") == []


def test_a_bowler_who_left_takes_no_turn_in_a_catch_up():
    """CY bowled frame 1 and left (the desk marked him not here); the feed then went out
    for ANN's frames 2 and 3.  Her sheet alone is dealt: nobody is waited for."""
    from alley_poker.ledger.commands import CommissionerBowlerGone
    from alley_poker.service import AlleyService
    from tests.service.test_router import MemoryRepository

    service = AlleyService(MemoryRepository())
    service.create_match("m", {(1, 1): "ANN", (1, 2): "CY", (1, 3): "ED"}, games=1,
                         actor="commissioner:pat")
    for bowler in ("ANN", "CY", "ED"):
        service.execute("m", ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute("m", StartMatch(actor="commissioner:pat"))
    for slot, pins in ((1, (7, 2)), (2, (6, 3)), (3, (5, 4))):
        for number, pin in enumerate(pins, start=1):
            service.handle_lane_event(BallRecorded(lane=1, bowler=slot, game=1, frame=1,
                                                   ball=number, pins=pin, source="scorer"))
    service.execute("m", CommissionerBowlerGone("CY", reason="went home",
                                                actor="commissioner:pat"))
    service.handle_lane_event(ScoresheetSnapshot(lane=1, bowler=1, game=1, source="scorer",
                                                 frames=((SheetBall(7), SheetBall(2)),
                                                         (SheetBall(10),))))
    service.handle_lane_event(ScoresheetSnapshot(lane=1, bowler=3, game=1, source="scorer",
                                                 frames=((SheetBall(5), SheetBall(4)),
                                                         (SheetBall(10),))))
    state = service.state("m")
    assert state.first_strike == {1: "ANN"}  # her frame 2 came before ED's
    assert [len(state.balls[b][0]) for b in ("ANN", "ED")] == [3, 3]
    assert service.held.open_items("m") == []
