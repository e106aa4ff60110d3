"""Killing the service between (or during) commands loses nothing it acknowledged.

A real worker process (``tests/store/crash_worker.py``) runs a seeded league night through
the store and prints ``ACK`` after each commit.  The test kills it with SIGKILL at random
moments — during start-up and migration, mid-command, between commit and ACK — restarts it
where the store says it got to, and after every kill checks, with a fresh store and
repository (a restarted service):

- every acknowledged event is in the log, and no seq is missing or doubled;
- the log holds whole commands only: it equals the events of exactly the first *c*
  commands of the night for some *c* (at least the acknowledged ones);
- each match rebuilt from the store (invariants checked on load) equals a fresh in-memory
  replay of those same *c* commands.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from alley_poker.ledger import check_invariants, event_from_record, replay
from alley_poker.store import EventStore, MatchRepository
from tests.store.league_night import Step, league_night

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CrashLog:
    """What the rounds saw, for the assertions and for the test's report."""

    acked: dict[tuple[str, int], int] = field(default_factory=dict)  # (match, seq) -> step
    kills: int = 0
    killed_before_ready: int = 0
    committed_but_unacknowledged: int = 0
    resumed_from: list[int] = field(default_factory=list)


def seqs_after(night: list[Step]) -> list[dict[str, int]]:
    """For each c in 0..len(night): every match's last seq after the first c commands."""
    totals = dict.fromkeys({step.match_id for step in night}, 0)
    prefix = [dict(totals)]
    for step in night:
        totals[step.match_id] += len(step.records)
        prefix.append(dict(totals))
    return prefix


def start_worker(url: str, seed: int, matches: int, steps: int, start: int, errors: Path):
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.crash_worker", url, str(seed), str(matches),
         str(steps), str(start)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=errors.open("ab"),
        text=True,
    )


def on_postgres(url: str) -> bool:
    return make_url(url).drivername.startswith("postgresql")


def named_connections(url: str, name: str) -> str:
    """``url`` with its PostgreSQL sessions named ``name`` (SQLite's URL as it is)."""
    if not on_postgres(url):
        return url
    return make_url(url).update_query_dict({"application_name": name}).render_as_string(
        hide_password=False)


def wait_for_killed_sessions(url: str, name: str, timeout: float = 30.0) -> None:
    """Wait until the server has ended every session of the killed worker.

    SIGKILL ends the client at once, but its PostgreSQL session lives on until the server
    reads the closed socket, and a COMMIT already in that socket is carried out first: the
    command then lands *after* the worker died.  Judging the store (and choosing where to
    resume) before that would resume one command early and run it twice.
    """
    if not on_postgres(url):
        return  # SQLite commits inside the process: nothing outlives it
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        deadline = time.monotonic() + timeout
        with engine.connect() as connection:
            while connection.execute(
                sa.text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name"),
                {"name": name},
            ).scalar_one():
                assert time.monotonic() < deadline, f"the killed worker's session {name} lingers"
                time.sleep(0.02)
                # A transaction reads pg_stat_activity once and keeps that snapshot: end it,
                # or the loop would see the dead session for ever.
                connection.rollback()
    finally:
        engine.dispose()


def read_acks(lines: list[str], log: CrashLog, expected: list[dict[str, int]]) -> None:
    for line in lines:
        if line.startswith("ACK "):
            _, match_id, seq, index = line.split()
            # The worker acknowledges exactly what the plan says that command leads to.
            assert int(seq) == expected[int(index) + 1][match_id], line
            log.acked[(match_id, int(seq))] = int(index)


def verify_store(url: str, night: list[Step], expected: list[dict[str, int]],
                 log: CrashLog) -> int:
    """Check the store after a crash; return how many commands of the night it holds."""
    match_ids = sorted({step.match_id for step in night})
    with EventStore.open(url) as store:
        logs = {m: store.load(m) for m in match_ids}
        for match_id, records in logs.items():
            assert [r["seq"] for r in records] == list(range(1, len(records) + 1)), match_id
        for (match_id, seq), index in log.acked.items():
            assert seq <= len(logs[match_id]), f"acknowledged {match_id}#{seq} (step {index}) lost"

        held = {m: len(records) for m, records in logs.items()}
        whole = [c for c, seqs in enumerate(expected) if seqs == held]
        assert whole, f"the log holds part of a command: {held}"
        committed = whole[-1]
        acknowledged = max(log.acked.values(), default=-1) + 1
        assert committed >= acknowledged

        done = night[:committed]
        repo = MatchRepository(store)  # a restarted service: rebuilds from the store
        for match_id in match_ids:
            reference = [r for step in done if step.match_id == match_id for r in step.records]
            assert logs[match_id] == reference, f"{match_id}: the log differs from the plan"
            rebuilt = repo.state(match_id)
            check_invariants(rebuilt)
            assert rebuilt == replay(match_id, [event_from_record(r) for r in reference])
        if committed > acknowledged:
            log.committed_but_unacknowledged += 1
        return committed


def crash_and_restart(url: str, tmp_path: Path, *, seed: int, matches: int, steps: int,
                      kills: int) -> CrashLog:
    night = league_night(seed, matches=matches, steps=steps)
    expected = seqs_after(night)
    chaos = random.Random(seed)
    log = CrashLog()
    errors = tmp_path / f"worker-{seed}.stderr"
    session_name = f"crash-worker-{os.getpid()}-{seed}"
    start = 0
    for round_number in range(kills + 1):
        log.resumed_from.append(start)
        worker = start_worker(named_connections(url, session_name), seed, matches, steps,
                              start, errors)
        lines: list[str] = []
        if round_number < kills:
            if round_number == 0 or chaos.random() < 0.2:
                # Before or during start-up: opening and migrating must be crash-safe too.
                time.sleep(chaos.uniform(0.0, 0.7))
            else:
                # Spread the kills over what is left of the night.
                remaining, kills_left = len(night) - start, kills - round_number
                wanted = chaos.randint(1, max(1, 2 * remaining // (kills_left + 1)))
                acks = 0
                for line in worker.stdout:
                    lines.append(line)
                    acks += line.startswith("ACK ")
                    if acks >= wanted or line.startswith("DONE"):
                        break
                time.sleep(chaos.uniform(0.0, 0.004))  # land anywhere in the next command
            os.kill(worker.pid, signal.SIGKILL)
            log.kills += 1
        lines.extend(worker.stdout)  # whatever it printed before dying counts as said
        status = worker.wait(timeout=60)
        if round_number == kills:
            assert status == 0 and lines[-1].strip() == "DONE", errors.read_text()[-3000:]
        else:
            assert status in (0, -signal.SIGKILL), errors.read_text()[-3000:]
            log.killed_before_ready += "READY\n" not in lines
        read_acks(lines, log, expected)
        wait_for_killed_sessions(url, session_name)
        start = verify_store(url, night, expected, log)
    assert start == len(night)
    return log


@pytest.mark.slow
def test_a_killed_worker_loses_nothing_it_acknowledged(store_url, tmp_path):
    log = crash_and_restart(store_url, tmp_path, seed=20260306, matches=2, steps=60, kills=2)
    assert log.kills == 2
    assert log.acked, "the worker acknowledged nothing: the test proved nothing"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_many_kills_across_a_whole_night_lose_nothing(store_url, tmp_path, seed):
    log = crash_and_restart(store_url, tmp_path, seed=seed, matches=4, steps=400, kills=12)
    assert log.kills == 12
    print(f"seed {seed}: {log.kills} kills, {log.killed_before_ready} before READY, "
          f"{log.committed_but_unacknowledged} committed but not yet acknowledged, "
          f"resumed from steps {log.resumed_from}")
