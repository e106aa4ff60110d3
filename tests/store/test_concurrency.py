"""Racing writers: for every seq exactly one writer wins and the loser gets a conflict.

Threads share one store (one connection pool); processes each open their own store, as two
service processes on one database would.  Both race round by round behind a barrier, every
writer trying to append the same next seq.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import sqlalchemy as sa

from alley_poker.store import ConcurrencyConflict, EventStore
from alley_poker.store.schema import events, matches

ROUNDS = 12


def claim(store: EventStore, writer: str, round_number: int) -> str:
    """Try to append seq ``round_number + 1`` as ``writer``; ``"won"`` or ``"conflict"``."""
    seq = round_number + 1
    entry = {"match_id": "race", "seq": seq, "type": "Claimed", "data": {"writer": writer}}
    try:
        store.append("race", [entry], expected_seq=round_number)
    except ConcurrencyConflict:
        return "conflict"
    return "won"


def race_in_process(url: str, writer: str, barrier, results) -> None:
    """A racing process: opens its own store, then claims each round's seq with the others."""
    with EventStore.open(url) as store:
        for round_number in range(ROUNDS):
            barrier.wait(timeout=60)
            results.put((writer, round_number, claim(store, writer, round_number)))


def assert_one_winner_per_round(store: EventStore, outcomes: dict[tuple[str, int], str]) -> None:
    writers = sorted({writer for writer, _ in outcomes})
    for round_number in range(ROUNDS):
        this_round = {w: outcomes[(w, round_number)] for w in writers}
        winners = [w for w, outcome in this_round.items() if outcome == "won"]
        assert len(winners) == 1, f"round {round_number}: {this_round}"
        assert sorted(this_round.values()).count("conflict") == len(writers) - 1
        stored = store.load("race", after_seq=round_number)[0]
        assert stored["seq"] == round_number + 1
        assert stored["data"]["writer"] == winners[0]
    assert [r["seq"] for r in store.load("race")] == list(range(1, ROUNDS + 1))


def test_racing_threads_never_both_append_the_same_seq(store):
    writers = [f"thread-{n}" for n in range(4)]
    barrier = threading.Barrier(len(writers))

    def race(writer: str) -> dict[tuple[str, int], str]:
        outcomes = {}
        for round_number in range(ROUNDS):
            barrier.wait(timeout=60)
            outcomes[(writer, round_number)] = claim(store, writer, round_number)
        return outcomes

    with ThreadPoolExecutor(len(writers)) as pool:
        results = list(pool.map(race, writers))

    assert_one_winner_per_round(store, {k: v for r in results for k, v in r.items()})


@pytest.mark.slow
def test_racing_processes_never_both_append_the_same_seq(store_url):
    # "spawn": each racer is a fresh interpreter with its own connections, like a real
    # second service process; both also open (and so migrate) the fresh database at once.
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    results = context.Queue()
    racers = [
        context.Process(target=race_in_process, args=(store_url, name, barrier, results))
        for name in ("process-a", "process-b")
    ]
    for racer in racers:
        racer.start()
    outcomes = {}
    for _ in range(2 * ROUNDS):
        writer, round_number, outcome = results.get(timeout=120)
        outcomes[(writer, round_number)] = outcome
    for racer in racers:
        racer.join(timeout=60)
        assert racer.exitcode == 0

    with EventStore.open(store_url) as store:
        assert_one_winner_per_round(store, outcomes)


def test_the_unique_constraint_turns_a_lost_race_into_a_conflict(postgresql_url):
    # PostgreSQL runs appends at READ COMMITTED, so two writers can both see "last seq 0".
    # Play that interleaving out for certain: a rival transaction registers the match and
    # stores seq 1 but has not committed when our append reads the log; our insert then
    # waits on the rival's row, and the rival's commit must turn it into a conflict.
    with EventStore.open(postgresql_url) as store:
        rival = store.engine.connect()
        rival_transaction = rival.begin()
        rival.execute(
            sa.insert(matches).values(match_id="race", centre="default", created_at=sa.func.now())
        )
        rival.execute(
            sa.insert(events).values(
                match_id="race", seq=1, type="Rival", data={}, recorded_at=sa.func.now()
            )
        )
        with ThreadPoolExecutor(1) as pool:
            ours = pool.submit(claim, store, "ours", 0)
            with pytest.raises(TimeoutError):  # blocked behind the rival's uncommitted row
                ours.result(timeout=1.0)
            rival_transaction.commit()
            assert ours.result(timeout=30) == "conflict"
        rival.close()

        assert [(r["seq"], r["type"]) for r in store.load("race")] == [(1, "Rival")]
