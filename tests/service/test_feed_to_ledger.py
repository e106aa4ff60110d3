"""End to end: simulated scorer → real pty → pyserial feed → service → ledger in SQLite.

The ledger must deal the right cards for every mark of complete games on several lanes.
The expected cards come from an independent reading of the dealing rules over the
simulator's own record of what it bowled.
"""

from __future__ import annotations

import time

import pytest

from alley_poker.bowling import Game
from alley_poker.config import FeedConfig
from alley_poker.ledger import check_invariants
from alley_poker.ledger.commands import ConsentToAnte, StartMatch
from alley_poker.service import open_service
from alley_poker.service.feeds import FeedSupervisor
from drivers.base import BallRecorded, SequenceGap
from drivers.dialects.apf1 import Apf1Dialect, Apf1Encoder
from drivers.feed_writer import FeedWriter, encode_lines, serve
from drivers.simulator import Simulator

GAMES = 2


def expected_marks(balls: list[BallRecorded], bowler_of) -> dict[str, list[tuple[int, int]]]:
    """Per bowler, (cards for the mark, first-strike bonus) for every ball, in bowling order.

    Strike 2, spare 1; a mark of the same kind as the previous frame's earns one more than
    it did, up to 3; an open frame or a new game ends a streak; the first strike of each game
    by anyone in the match earns one more.
    """
    games: dict[tuple[str, int], Game] = {}
    streak: dict[tuple[str, int], tuple[str, int] | None] = {}
    first_strike_taken: set[int] = set()
    out: dict[str, list[tuple[int, int]]] = {}
    for ball in balls:
        bowler = bowler_of(ball)
        key = (bowler, ball.game)
        game = games.setdefault(key, Game())
        rolled = game.roll(ball.pins, foul=ball.flags.foul)
        previous = streak.get(key)
        mark = "strike" if rolled.is_strike else "spare" if rolled.is_spare else None
        cards = bonus = 0
        if mark:
            base = 2 if mark == "strike" else 1
            cards = min(previous[1] + 1, 3) if previous and previous[0] == mark else base
            streak[key] = (mark, cards)
            if mark == "strike" and ball.game not in first_strike_taken:
                first_strike_taken.add(ball.game)
                bonus = 1
        elif rolled.ends_frame:
            streak[key] = None
        out.setdefault(bowler, []).append((cards, bonus))
    return out


@pytest.mark.slow
def test_simulated_games_on_four_lanes_deal_every_mark_exactly(store_service, pty_pair):
    service = store_service
    simulator = Simulator([1, 2, 3, 4], seed=11, games=GAMES, bowlers_per_lane=2)
    slots = {(setup.lane, slot): profile.name
             for setup in simulator.lanes for slot, profile in enumerate(setup.bowlers, 1)}
    matches = {"pair-1-2": (1, 2), "pair-3-4": (3, 4)}
    for match_id, lanes in matches.items():
        mine = {key: name for key, name in slots.items() if key[0] in lanes}
        service.create_match(match_id, mine, games=GAMES, actor="commissioner:test")
        for name in mine.values():
            service.execute(match_id, ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, StartMatch(actor="commissioner:test"))

    writer_end, reader_end = pty_pair.writer_path, pty_pair.reader_path
    feeds = FeedSupervisor([FeedConfig(name="scorer", url=reader_end, lanes=[1, 2, 3, 4])],
                           service.handle_lane_event)
    feeds.start()
    writer = FeedWriter(writer_end).start()
    try:
        serve(simulator, writer, speed=0)
        assert writer.flush(10)
        bowled = simulator.balls
        deadline = time.monotonic() + 30
        while service.router.stats.recorded < len(bowled) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        writer.stop()
        feeds.stop()

    stats = service.router.stats
    assert stats.recorded == len(bowled), stats
    assert stats.refused == 0
    health = feeds.health()[0]
    assert health["lines_rejected"] == 0

    def match_bowler(ball):
        return slots[(ball.lane, ball.bowler)]

    for match_id, lanes in matches.items():
        state = service.state(match_id)
        check_invariants(state)
        assert state.status != "playing", "every game finished, so the match is ending"
        in_match = [b for b in bowled if b.lane in lanes]
        expected = expected_marks(in_match, match_bowler)
        for bowler in state.bowlers:
            ledger_balls = [b for game in state.balls[bowler] for b in game]
            mine = [b for b in in_match if match_bowler(b) == bowler]
            assert [b["pins"] for b in ledger_balls] == [b.pins for b in mine]
            dealt = [(b["cards_due"], b["bonus"]) for b in ledger_balls]
            assert dealt == expected[bowler], f"{match_id} {bowler}"
        assert sum(sum(c + b for c, b in marks) for marks in expected.values()) > 0


def test_lines_lost_on_the_wire_are_recovered_from_the_next_snapshot_once(store_service):
    """Six lines never arrive; the feed reports the gap and the next sheet fills it."""
    service = store_service
    simulator = Simulator([7], seed=41, games=1, bowlers_per_lane=2, snapshots=True)
    encoder = Apf1Encoder(session="s4")
    lines = [encoder.encode(timed.event) for timed in simulator.events()]
    slots = {(7, slot): profile.name
             for slot, profile in enumerate(simulator.lanes[0].bowlers, 1)}
    service.create_match("lane-7", slots, games=1, actor="commissioner:test")
    for name in slots.values():
        service.execute("lane-7", ConsentToAnte(name, actor=f"bowler:{name}"))
    service.execute("lane-7", StartMatch(actor="commissioner:test"))
    notices = []
    service.bus.subscribe(lambda topic, message: notices.append(message))

    dialect, gaps = Apf1Dialect(source="scorer"), []
    lost = range(40, 46)  # the cable was out for six lines
    for index, line in enumerate(lines):
        if index in lost:
            continue
        for event in dialect.parse(line):
            if isinstance(event, SequenceGap):
                gaps.append((event.first_missing, event.last_missing))
            service.handle_lane_event(event)

    assert gaps == [(41, 46)]
    state = service.state("lane-7")
    check_invariants(state)
    for slot, name in slots.items():
        bowled = [b.pins for b in simulator.balls if (b.lane, b.bowler) == slot]
        assert [b["pins"] for b in state.balls[name][0]] == bowled, name
    lost_balls = [e for e in simulator.record[40:46] if type(e) is BallRecorded]
    assert lost_balls
    assert service.router.stats.recovered == len(lost_balls)
    assert service.router.stats.refused == 0
    assert any(n.get("kind") == "balls_recovered" and "recovered" in n["message"]
               for n in notices)


def test_a_service_restarted_mid_game_catches_up_from_the_next_snapshot(tmp_path):
    """The service goes down mid-game; balls bowled meanwhile come back from the next sheet,
    and the restarted service still knows which lane slot is which bowler."""
    database = f"sqlite:///{tmp_path / 'alley.sqlite3'}"
    simulator = Simulator([5], seed=8, games=1, bowlers_per_lane=2, snapshots=True)
    encoder = Apf1Encoder(session="night")
    lines = [encoder.encode(timed.event) for timed in simulator.events()]
    slots = {(5, slot): profile.name
             for slot, profile in enumerate(simulator.lanes[0].bowlers, 1)}
    down_from, up_at = 30, 42  # lines the scorer sent while the service was down

    before = open_service(database)
    before.create_match("lane-5", slots, games=1, actor="commissioner:test")
    for name in slots.values():
        before.execute("lane-5", ConsentToAnte(name, actor=f"bowler:{name}"))
    before.execute("lane-5", StartMatch(actor="commissioner:test"))
    dialect = Apf1Dialect(source="scorer")
    for line in lines[:down_from]:
        for event in dialect.parse(line):
            before.handle_lane_event(event)
    dealt_before = before.router.stats.recorded
    before.repository.store.close()

    after = open_service(database)  # a new process: state and lanes from the database only
    assert after.lanes.bowler_at(5, 1) == ("lane-5", slots[(5, 1)])
    dialect = Apf1Dialect(source="scorer")
    for line in lines[up_at:]:
        for event in dialect.parse(line):
            after.handle_lane_event(event)

    state = after.state("lane-5")
    check_invariants(state)
    for slot, name in slots.items():
        bowled = [b.pins for b in simulator.balls if (b.lane, b.bowler) == slot]
        assert [b["pins"] for b in state.balls[name][0]] == bowled, name
    missed = [e for e in simulator.record[down_from:up_at] if type(e) is BallRecorded]
    assert missed and after.router.stats.recovered == len(missed)
    assert dealt_before + after.router.stats.recorded + len(missed) == len(simulator.balls)
    assert state.status != "playing"
    after.repository.store.close()


def test_a_cable_pulled_mid_game_deals_nothing_twice_and_loses_nothing(store_service):
    """TCP to the scorer's device server drops mid-game; the feed reconnects, the scorer
    re-sends its last lines, and the ledger ends with exactly the balls bowled."""
    service = store_service
    simulator = Simulator([1, 2], seed=21, games=1, bowlers_per_lane=2)
    lines = [timed.line for timed in encode_lines(simulator.events(), "apf1", session="s1")]
    slots = {(setup.lane, slot): profile.name
             for setup in simulator.lanes for slot, profile in enumerate(setup.bowlers, 1)}
    service.create_match("pair", slots, games=1, actor="commissioner:test")
    for name in slots.values():
        service.execute("pair", ConsentToAnte(name, actor=f"bowler:{name}"))
    service.execute("pair", StartMatch(actor="commissioner:test"))

    with FeedWriter("socket://127.0.0.1:0", resend_window=32) as writer:
        host, port = writer.address
        feeds = FeedSupervisor(
            [FeedConfig(name="scorer", url=f"socket://{host}:{port}", lanes=[1, 2])],
            service.handle_lane_event)
        feeds.start()
        try:
            half = len(lines) // 2
            for line in lines[:half]:
                writer.write(line)
            assert writer.flush(10)
            writer.drop_connection()  # the cable is pulled mid-game
            for line in lines[half:]:
                writer.write(line)
            assert writer.flush(20)
            deadline = time.monotonic() + 20
            while (service.router.stats.recorded < len(simulator.balls)
                   and time.monotonic() < deadline):
                time.sleep(0.05)
        finally:
            feeds.stop()

    health = feeds.health()[0]
    assert health["reconnects"] >= 1 and health["duplicates"] > 0
    state = service.state("pair")
    check_invariants(state)
    expected = expected_marks(simulator.balls, lambda ball: slots[(ball.lane, ball.bowler)])
    for name in slots.values():
        assert [(b["cards_due"], b["bonus"]) for b in state.balls[name][0]] == expected[name]
    assert service.router.stats.recorded == len(simulator.balls)
