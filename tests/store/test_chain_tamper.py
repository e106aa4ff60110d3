"""The hash chain on SQLite and PostgreSQL: every kind of tampering is caught and named."""

from __future__ import annotations

import subprocess
import sys

import pytest
import sqlalchemy as sa

from alley_poker.ledger import commands as c
from alley_poker.store import MatchRepository
from alley_poker.store.chain import audit, chain_head
from alley_poker.store.schema import events


@pytest.fixture
def dealt(store):
    """Two fair matches with a few balls each; the chain as the ledger stored it."""
    repo = MatchRepository(store, snapshots=None)
    for match_id in ("m1", "m2"):
        repo.execute(match_id, c.CreateMatch(match_id, ["Ann", "Bob"], actor="desk:pat"))
        for bowler in ("Ann", "Bob"):
            repo.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        repo.execute(match_id, c.StartMatch(actor="desk:pat"))
        for _ in range(3):
            for bowler in ("Ann", "Bob"):
                repo.execute(match_id, c.RecordBall(bowler, 1, 10, actor="feed:lane-1"))
    assert audit(store.engine).ok
    return store


def rows(store, match_id="m1"):
    with store.engine.connect() as connection:
        return connection.execute(sa.select(events).where(events.c.match_id == match_id)
                                  .order_by(events.c.seq)).all()


def test_an_untouched_log_holds_and_its_heads_are_the_last_hashes(dealt):
    report = audit(dealt.engine)
    assert report.ok and report.matches == 2 and report.events == len(rows(dealt)) * 2
    assert report.heads[("default", "m1")] == chain_head(dealt, "m1") == rows(dealt)[-1].hash


def test_an_edited_payload_byte_is_named(dealt):
    target = next(r for r in rows(dealt) if r.type == "card_drawn")
    data = dict(target.data)
    data["data"] = {**data["data"], "card": "AS" if data["data"]["card"] != "AS" else "KS"}
    with dealt.engine.begin() as connection:
        connection.execute(events.update().where(events.c.id == target.id).values(data=data))
    (found,) = audit(dealt.engine).breaks
    assert (found.match_id, found.seq, found.kind) == ("m1", target.seq, "edited")


def test_a_deleted_event_is_named(dealt):
    with dealt.engine.begin() as connection:
        connection.execute(events.delete().where(events.c.match_id == "m2", events.c.seq == 7))
    (found,) = audit(dealt.engine).breaks
    assert (found.match_id, found.seq, found.kind) == ("m2", 7, "deleted")


def test_two_swapped_events_are_named(dealt):
    with dealt.engine.begin() as connection:
        for old, new in ((8, -1), (9, 8), (-1, 9)):
            connection.execute(events.update().where(events.c.match_id == "m1",
                                                     events.c.seq == old).values(seq=new))
    (found,) = audit(dealt.engine).breaks
    assert (found.match_id, found.seq, found.kind) == ("m1", 8, "reordered")


def test_an_inserted_event_is_named(dealt):
    last = rows(dealt)[-1]
    with dealt.engine.begin() as connection:
        connection.execute(events.insert().values(
            match_id="m1", seq=last.seq + 1, type="payout", centre="default",
            recorded_at=last.recorded_at,
            data={"at": "2026-03-06T22:00:00Z",
                  "data": {"bowler": "Ann", "cents": 5000, "actor": "desk:pat",
                           "command": "CommissionerConfirmResult", "action": last.seq + 1}}))
    (found,) = audit(dealt.engine).breaks
    assert (found.match_id, found.seq, found.kind) == ("m1", last.seq + 1, "inserted")


def test_an_event_slipped_into_the_middle_is_named(dealt):
    with dealt.engine.begin() as connection:
        for seq in sorted((r.seq for r in rows(dealt) if r.seq >= 6), reverse=True):
            connection.execute(events.update().where(events.c.match_id == "m1",
                                                     events.c.seq == seq).values(seq=seq + 1))
        before = rows(dealt)[4]
        connection.execute(events.insert().values(
            match_id="m1", seq=6, type="hole_deepened", centre="default",
            recorded_at=before.recorded_at, prev_hash=before.hash, hash="0" * 64,
            data={"at": "2026-03-06T19:30:00Z",
                  "data": {"bowler": "Bob", "why": "gutter", "actor": "feed:lane-1",
                           "command": "RecordBall", "action": 6}}))
    (found,) = audit(dealt.engine).breaks
    assert (found.match_id, found.seq, found.kind) == ("m1", 6, "inserted")


# On SQLite only: the command reads through the same store on either back-end, and the chain
# checks above run on both (the PostgreSQL copy took twice as long and checked nothing more).
@pytest.mark.slow
@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_audit_verify_on_the_command_line(dealt, store_url):
    run = [sys.executable, "-m", "alley_poker.cli", "audit", "verify", "--database", store_url]
    clean = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stderr
    assert f"default/m1: OK, head {chain_head(dealt, 'm1')}" in clean.stdout
    pinned = subprocess.run([*run, "--head", "m1=" + "ab" * 32], capture_output=True,
                            text=True, timeout=60)
    assert pinned.returncode == 1 and "not the pinned" in pinned.stdout
    with dealt.engine.begin() as connection:
        connection.execute(events.delete().where(events.c.match_id == "m1", events.c.seq == 5))
    broken = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert broken.returncode == 1
    assert "BROKEN: match m1 event #5: deleted" in broken.stdout
