"""MatchRepository with the real ledger over the real store (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from alley_poker.ledger import (
    CommandRefused,
    InvariantViolation,
    MatchState,
    StaleVersion,
    event_from_record,
    event_to_record,
    replay,
)
from alley_poker.ledger import commands as c
from alley_poker.store import EventStore, MatchRepository
from tests.store.league_night import clock_for, league_night, rng_for


class NightDriver:
    """Feeds a league night's steps to a repository with each step's own rng and clock."""

    def __init__(self, store: EventStore, seed: int) -> None:
        self.seed = seed
        self.index = 0
        self.repo = MatchRepository(
            store,
            rng_factory=lambda: rng_for(self.seed, self.index),
            clock=lambda: clock_for(self.index),
        )

    def run(self, steps) -> None:
        for step in steps:
            self.index = step.index
            events = self.repo.execute(step.match_id, step.command)
            assert [event_to_record(e) for e in events] == step.records


def replayed(match_id: str, steps) -> MatchState:
    records = [r for step in steps if step.match_id == match_id for r in step.records]
    return replay(match_id, [event_from_record(r) for r in records])


def test_a_night_of_commands_is_stored_and_rebuilt_exactly(store):
    night = league_night(11, matches=2, steps=150)
    NightDriver(store, seed=11).run(night)

    restarted = MatchRepository(store)  # a new process: nothing cached
    for match_id in {step.match_id for step in night}:
        expected = replayed(match_id, night)
        assert store.load(match_id) == [
            r for step in night if step.match_id == match_id for r in step.records
        ]
        assert restarted.state(match_id) == expected
        assert restarted.state(match_id).seq == expected.seq > 10
    assert sorted(store.match_ids()) == sorted({step.match_id for step in night})


def test_a_refused_command_stores_nothing_and_changes_nothing(store):
    night = league_night(5, matches=1, steps=30)
    driver = NightDriver(store, seed=5)
    driver.run(night)
    match_id = night[0].match_id
    before_state = driver.repo.state(match_id)
    before_log = store.load(match_id)

    for bad in [
        c.RecordBall("Zed", None, 7, actor="feed:lane-1"),           # no such bowler
        c.RecordBall("Ann", None, 11, actor="feed:lane-1"),          # impossible ball
        c.CreateMatch(match_id, ["Ann", "Bob"], actor="desk:pat"),   # exists already
        c.CommissionerVoidMatch(reason="prank", actor="bowler:Ann"),  # not a commissioner
    ]:
        with pytest.raises(CommandRefused):
            driver.repo.execute(match_id, bad)

    assert store.load(match_id) == before_log
    assert driver.repo.state(match_id) == before_state
    assert MatchRepository(store).state(match_id) == before_state


def test_the_state_handed_out_is_a_copy(store):
    repo = MatchRepository(store)
    repo.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], actor="desk:pat"))
    handed_out = repo.state("m1")
    handed_out.bowlers.append("Mallory")
    assert repo.state("m1").bowlers == ["Ann", "Bob"]


def test_an_unknown_match_is_new_and_is_not_kept(store):
    repo = MatchRepository(store)
    assert repo.state("nobody").status == "new"
    with pytest.raises(CommandRefused, match="does not exist"):
        repo.execute("nobody", c.StartMatch(actor="desk:pat"))
    assert store.match_ids() == []


def started_match(store: EventStore, match_id: str = "m1") -> MatchRepository:
    repo = MatchRepository(store)
    repo.execute(match_id, c.CreateMatch(match_id, ["Ann", "Bob"], actor="desk:pat"))
    for bowler in ("Ann", "Bob"):
        repo.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    repo.execute(match_id, c.StartMatch(actor="desk:pat"))
    return repo


def assert_matches_the_log(store: EventStore, repo: MatchRepository, match_id: str) -> None:
    stored = store.load(match_id)
    assert [r["seq"] for r in stored] == list(range(1, len(stored) + 1))
    assert repo.state(match_id) == replay(match_id, [event_from_record(r) for r in stored])


def test_a_second_process_writing_first_is_caught_and_the_command_decided_again(store):
    ours = started_match(store)
    theirs = MatchRepository(store)  # another process: its own cache, the same database
    theirs.execute("m1", c.RecordBall("Ann", 1, 3, actor="feed:lane-1"))
    stale_seq = ours.state("m1").seq

    # Our cache does not know Ann's ball: the append conflicts, the repository catches up
    # and decides Bob's strike again against the real state.
    events = ours.execute("m1", c.RecordBall("Bob", 1, 10, actor="feed:lane-2"))

    assert events[0].seq == theirs.state("m1").seq + 1 > stale_seq + 1
    assert [e.type for e in events][:1] == ["ball_recorded"]
    assert store.load("m1")[-len(events):] == [event_to_record(e) for e in events]
    assert_matches_the_log(store, ours, "m1")
    assert len(ours.state("m1").balls["Ann"][0]) == 1


def test_a_command_refused_only_by_a_stale_cache_is_decided_again(store):
    ours = MatchRepository(store)
    ours.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], actor="desk:pat"))
    theirs = MatchRepository(store)
    for bowler in ("Ann", "Bob"):
        theirs.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    theirs.execute("m1", c.StartMatch(actor="desk:pat"))
    assert ours.state("m1").status == "open"  # stale: the match has started elsewhere

    events = ours.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:lane-1"))

    assert events[0].type == "ball_recorded"
    assert ours.state("m1").status == "playing"
    assert_matches_the_log(store, ours, "m1")


def test_refresh_brings_in_what_other_processes_stored(store):
    ours = started_match(store)
    theirs = MatchRepository(store)
    theirs.execute("m1", c.RecordBall("Bob", 1, 10, actor="feed:lane-2"))
    assert ours.state("m1") != theirs.state("m1")
    assert ours.refresh("m1") == theirs.state("m1")
    assert ours.state("m1") == theirs.state("m1")


def test_losing_the_race_twice_refuses_the_command_and_keeps_the_winners_events(store):
    setup = MatchRepository(store)
    setup.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], actor="desk:pat"))
    rival = MatchRepository(store)
    rival_consents = iter(["Ann", "Bob"])

    def clock_with_a_rival_write() -> datetime:
        # Called just before our command is decided: the rival process stores an event
        # first, every time, so our append always finds the log moved on.
        bowler = next(rival_consents)
        rival.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        return datetime(2026, 3, 6, 19, 0, tzinfo=UTC)

    ours = MatchRepository(store, clock=clock_with_a_rival_write)
    ours.state("m1")
    with pytest.raises(CommandRefused, match="kept changing at another desk or lane"):
        ours.execute("m1", c.CommissionerAddBowler("Cy", reason="late", actor="commissioner:pat"))

    assert [r["type"] for r in store.load("m1")] == [
        "match_created", "deal_committed", "consent_recorded", "consent_recorded",
    ]
    assert ours.state("m1") == rival.state("m1")
    assert ours.state("m1").status == "open"


def test_an_expected_seq_the_match_has_passed_is_refused_and_not_decided_again(store):
    ours = started_match(store)
    seen = ours.state("m1").seq
    theirs = MatchRepository(store)  # another process moves the match on
    theirs.execute("m1", c.RecordBall("Ann", 1, 3, actor="feed:lane-1"))
    stored = store.load("m1")

    with pytest.raises(StaleVersion) as stale:
        ours.execute("m1", c.RecordBall("Bob", 1, 10, actor="commissioner:tablet"),
                     expected_seq=seen)

    assert (stale.value.expected_seq, stale.value.actual_seq) == (seen, len(stored))
    assert stale.value.field == "expected_seq"
    assert store.load("m1") == stored
    assert ours.state("m1") == theirs.state("m1")  # caught up for the caller's reload


def test_an_expected_seq_ahead_of_the_cache_is_checked_against_the_log(store):
    ours = started_match(store)
    theirs = MatchRepository(store)
    theirs.execute("m1", c.RecordBall("Ann", 1, 3, actor="feed:lane-1"))
    current = theirs.state("m1").seq  # what a client reading through the other process saw

    events = ours.execute("m1", c.RecordBall("Bob", 1, 10, actor="commissioner:tablet"),
                          expected_seq=current)

    assert events[0].seq == current + 1
    assert_matches_the_log(store, ours, "m1")


def test_an_expected_seq_lost_at_the_append_is_stale_not_decided_again(store):
    setup = MatchRepository(store)
    setup.execute("m1", c.CreateMatch("m1", ["Ann", "Bob"], actor="desk:pat"))
    rival = MatchRepository(store)

    def clock_with_a_rival_write() -> datetime:
        # Between our check of the seq and our append, another process stores an event.
        rival.execute("m1", c.ConsentToAnte("Ann", actor="bowler:Ann"))
        return datetime(2026, 3, 6, 19, 0, tzinfo=UTC)

    ours = MatchRepository(store, clock=clock_with_a_rival_write)
    seen = ours.state("m1").seq
    with pytest.raises(StaleVersion, match=fr"\(version {seen + 1}, not {seen}\)"):
        ours.execute("m1", c.ConsentToAnte("Bob", actor="commissioner:pat"), expected_seq=seen)

    assert [r["type"] for r in store.load("m1")] == ["match_created", "deal_committed",
                                                  "consent_recorded"]
    assert ours.state("m1") == rival.state("m1")


def test_commands_for_one_match_are_serialized(store):
    repo = MatchRepository(store)
    bowlers = ["Ann", "Bob", "Cy", "Dee"]
    repo.execute("m1", c.CreateMatch("m1", bowlers, games=2, actor="desk:pat"))
    for bowler in bowlers:
        repo.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    repo.execute("m1", c.StartMatch(actor="desk:pat"))

    def bowl_a_game(bowler: str) -> int:
        for _ in range(12):  # a perfect game: every ball dealt while others bowl too
            repo.execute("m1", c.RecordBall(bowler, 1, 10, actor="feed:lane-1"))
        return 12

    with ThreadPoolExecutor(len(bowlers)) as pool:
        assert sum(pool.map(bowl_a_game, bowlers)) == 48

    stored = store.load("m1")
    assert [r["seq"] for r in stored] == list(range(1, len(stored) + 1))
    rebuilt = replay("m1", [event_from_record(r) for r in stored])
    assert rebuilt == repo.state("m1") == MatchRepository(store).state("m1")
    assert sum(len(game) for b in bowlers for game in rebuilt.balls[b]) == 48


def test_different_matches_do_not_wait_for_each_other(store):
    other_done = threading.Event()
    saw_other_finish = []

    def slow_clock() -> datetime:
        # m1's command waits, mid-command, for m2's to finish; one lock for all matches
        # would make this wait time out.
        if threading.current_thread().name.startswith("m1"):
            saw_other_finish.append(other_done.wait(timeout=10))
        return datetime.now(UTC)

    repo = MatchRepository(store, clock=slow_clock)

    def create(match_id: str) -> None:
        threading.current_thread().name = f"{match_id}-worker"
        repo.execute(match_id, c.CreateMatch(match_id, ["Ann", "Bob"], actor="desk:pat"))
        if match_id == "m2":
            other_done.set()

    first = threading.Thread(target=create, args=("m1",))
    first.start()
    create("m2")
    first.join(timeout=30)

    assert saw_other_finish == [True]
    assert sorted(store.match_ids()) == ["m1", "m2"]


def test_a_log_that_breaks_an_invariant_is_refused_on_load(store):
    night = league_night(4, matches=1, steps=12)
    NightDriver(store, seed=4).run(night)
    match_id = night[0].match_id
    sound = MatchRepository(store).state(match_id)
    # A corrupt (or tampered) log: a swap that leaves two good jokers.  It folds, but the
    # match it makes is unsound.
    last = store.load(match_id)[-1]
    store.append(match_id, [{
        **last, "seq": sound.seq + 1, "type": "jokers_swapped",
        "data": {**{k: last["data"][k] for k in ("actor", "command")}, "action": sound.seq + 1,
                 "trigger": "JOKER-A", "disarmed": [],
                 "powers": {"JOKER-A": "good", "JOKER-B": "good"}},
    }], expected_seq=sound.seq)

    with pytest.raises(InvariantViolation, match="joker powers") as refused:
        MatchRepository(store).state(match_id)
    assert any(match_id in note for note in refused.value.__notes__)
