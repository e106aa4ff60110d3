"""The nightly SQLite backup for real: a ledger being written while it is copied, retention,
one copy per night, and the catch-up after a night the server was down."""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
import time
from datetime import date, datetime
from pathlib import Path

import pytest

from alley_poker.config import AlleyConfig, BackupConfig, CentreConfig, DatabaseConfig
from alley_poker.ledger import commands as c
from alley_poker.ledger import event_from_record, replay
from alley_poker.ledger.views import public_match_view
from alley_poker.service import open_service
from alley_poker.service.backup import (
    BackupNotPossible,
    NightlyBackup,
    backup_name,
    backup_now,
    existing_backups,
)
from alley_poker.service.scheduler import BACKUP_CATCH_UP_JOB, BACKUP_JOB, CentreScheduler
from alley_poker.store.event_store import EventStore

DESK = "commissioner:test-desk"


def play_a_match(service, match_id: str) -> None:
    """Create, start, and bowl an open frame then a spare each: a score of events."""
    service.execute(match_id, c.CreateMatch(match_id, ("Ann", "Bob"), actor=DESK))
    for bowler in ("Ann", "Bob"):
        service.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, c.StartMatch(actor=DESK))
    for second_ball in (2, 3):
        for bowler in ("Ann", "Bob"):
            service.execute(match_id, c.RecordBall(bowler, 1, 7, actor="feed:test"))
            service.execute(match_id, c.RecordBall(bowler, 1, second_ball, actor="feed:test"))


def fingerprint(state) -> dict:
    """What a screen and the money depend on: the public view plus the hidden pile order."""
    return {"view": public_match_view(state), "pile": list(state.pile),
            "hands": {name: list(hand) for name, hand in state.hands.items()},
            "status": state.status}


@pytest.fixture
def ledger(tmp_path: Path):
    seeds = random.Random(7)
    database = tmp_path / "ledger.sqlite3"
    service = open_service(f"sqlite:///{database}",
                           rng_factory=lambda: random.Random(seeds.random()))
    yield database, service
    service.repository.store.close()


def pad_with_an_archive(store: EventStore, matches: int = 24, events: int = 1000) -> None:
    """Seasons of past matches (plain records; the store does not read them), so the copy
    takes long enough for the service to write during it."""
    for number in range(matches):
        match_id = f"archive-{number}"
        store.append(match_id, [
            {"match_id": match_id, "seq": seq, "type": "archived",
             "data": {"note": "x" * 200, "n": seq}}
            for seq in range(1, events + 1)], expected_seq=0)


@pytest.mark.slow
def test_a_backup_taken_while_the_ledger_is_written_is_whole_and_replays(ledger, tmp_path):
    database, service = ledger
    live = service.repository.store
    pad_with_an_archive(live)
    play_a_match(service, "warm-up")
    commands_done: list[str] = []
    service.bus.subscribe(lambda topic, message: commands_done.append(topic))
    stop = threading.Event()

    def keep_writing() -> None:
        number = 0
        while not stop.is_set():
            play_a_match(service, f"m{number}")
            number += 1

    writer = threading.Thread(target=keep_writing, daemon=True)
    writer.start()
    results, written_during = [], []
    try:
        while len(commands_done) < 5:
            stop.wait(0.01)
        for day in (18, 19, 20, 21):
            before = len(commands_done)
            results.append(backup_now(f"sqlite:///{database}", tmp_path / "backups", keep=10,
                                      night=date(2026, 11, day)))
            written_during.append(len(commands_done) - before)
    finally:
        stop.set()
        writer.join(30)
    print(f"commands stored during each backup: {written_during}")
    assert sum(written_during) > 0, "the service kept writing while the backups ran"

    for result in results:
        assert result.created and result.path.exists()
        with sqlite3.connect(result.path) as copy:
            assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",), \
                "a single self-contained file"
        with EventStore.open(f"sqlite:///{result.path}") as backup:
            match_ids = backup.match_ids()
            assert {"warm-up", "archive-23"} <= set(match_ids)
            for match_id in match_ids:
                saved = backup.load(match_id)
                # A consistent snapshot: every match's log is a prefix of the live log ...
                assert saved == live.load(match_id)[: len(saved)]
                if match_id.startswith("archive-"):
                    assert len(saved) == 1000
                    continue
                # ... and replays into the state the live ledger had at that point.
                restored = replay(match_id, map(event_from_record, saved))
                original = replay(match_id, map(event_from_record,
                                                live.load(match_id)[: len(saved)]))
                assert fingerprint(restored) == fingerprint(original)
    with EventStore.open(f"sqlite:///{results[0].path}") as backup:
        restored = replay("warm-up", map(event_from_record, backup.load("warm-up")))
    assert fingerprint(restored) == fingerprint(service.state("warm-up"))


def test_retention_keeps_the_newest_copies_and_leaves_other_files_alone(ledger, tmp_path):
    database, service = ledger
    play_a_match(service, "m1")
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("the IT person's own file")
    for day in (14, 15, 16, 17, 18):
        result = backup_now(f"sqlite:///{database}", folder, keep=3, night=date(2026, 11, day))
    assert [night.day for night, _path in existing_backups(folder)] == [16, 17, 18]
    assert [path.name for path in result.deleted] == [backup_name(date(2026, 11, 15))]
    assert (folder / "notes.txt").exists()
    assert not list(folder.glob("*.partial"))


def test_a_second_run_for_the_same_night_does_nothing(ledger, tmp_path):
    database, service = ledger
    play_a_match(service, "m1")
    night = date(2026, 11, 22)
    first = backup_now(f"sqlite:///{database}", tmp_path / "b", keep=3, night=night)
    stamp = first.path.stat()
    play_a_match(service, "m2")  # the ledger moved on; the night's copy stays as it was
    second = backup_now(f"sqlite:///{database}", tmp_path / "b", keep=3, night=night)
    assert (second.path, second.created) == (first.path, False)
    assert (second.path.stat().st_mtime_ns, second.path.stat().st_ino) == \
        (stamp.st_mtime_ns, stamp.st_ino)
    with EventStore.open(f"sqlite:///{second.path}") as backup:
        assert backup.match_ids() == ["m1"]
    redone = backup_now(f"sqlite:///{database}", tmp_path / "b", keep=3, night=night, redo=True)
    with EventStore.open(f"sqlite:///{redone.path}") as backup:
        assert sorted(backup.match_ids()) == ["m1", "m2"]


def test_a_half_written_copy_is_never_taken_for_a_backup(ledger, tmp_path):
    database, service = ledger
    play_a_match(service, "m1")
    folder = tmp_path / "backups"
    folder.mkdir()
    night = date(2026, 11, 22)
    leftover = folder / (backup_name(night) + ".partial")
    leftover.write_bytes(b"SQLite format 3\0 ...power cut")
    nightly = NightlyBackup(f"sqlite:///{database}", folder, keep=3,
                            clock=lambda: datetime(2026, 11, 22, 9, 0))
    assert existing_backups(folder) == [] and nightly.missed()
    result = nightly.run()
    assert result.created and not leftover.exists()
    with sqlite3.connect(result.path) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_ledger_at_rest_backs_up_too(ledger, tmp_path):
    """The service stopped (no -wal/-shm files): the read-only copy still opens it."""
    database, service = ledger
    play_a_match(service, "m1")
    service.repository.store.close()
    result = backup_now(f"sqlite:///{database}", tmp_path / "b", keep=1)
    assert result.path.name == backup_name(date.today())
    with EventStore.open(f"sqlite:///{result.path}") as backup:
        assert backup.match_ids() == ["m1"]


@pytest.mark.parametrize(
    ("url", "message"),
    [("postgresql+psycopg://postgres@127.0.0.1:5432/test", "back PostgreSQL up with its own"),
     ("sqlite://", "in-memory database"),
     ("sqlite:///{tmp}/never-created.sqlite3", "no such database file")],
)
def test_what_cannot_be_backed_up_is_refused_by_name(tmp_path, url, message):
    with pytest.raises(BackupNotPossible, match=message):
        backup_now(url.format(tmp=tmp_path), tmp_path / "b", keep=3)
    assert not (tmp_path / "b").exists() or not list((tmp_path / "b").iterdir())


@pytest.mark.parametrize(
    ("now", "due"),
    [(datetime(2026, 11, 22, 3, 59), date(2026, 11, 21)),
     (datetime(2026, 11, 22, 4, 0), date(2026, 11, 22)),
     (datetime(2026, 11, 22, 23, 0), date(2026, 11, 22))],
)
def test_the_night_due_is_the_last_backup_time_passed(tmp_path, now, due):
    nightly = NightlyBackup(f"sqlite:///{tmp_path / 'x.sqlite3'}", tmp_path, keep=3,
                            hour=4, minute=0, clock=lambda: now)
    assert nightly.last_due_night() == due


def centre_config(database: Path, folder: Path, **backup) -> AlleyConfig:
    return AlleyConfig(centre=CentreConfig(name="Backup Lanes", lanes=2),
                       database=DatabaseConfig(url=f"sqlite:///{database}"),
                       backup=BackupConfig(folder=str(folder), keep=5, **backup))


def test_a_missed_night_is_backed_up_once_at_start_up_and_not_again_on_restart(ledger,
                                                                                tmp_path):
    database, service = ledger
    play_a_match(service, "m1")
    folder = tmp_path / "backups"
    config = centre_config(database, folder)

    first = CentreScheduler(service, config, None, catch_up_delay_s=0)
    first.start()
    try:
        assert BACKUP_JOB in first.job_ids()
        due = first.backup.last_due_night()
        deadline = time.monotonic() + 10
        while not (folder / backup_name(due)).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        first.shutdown()
    assert [path.name for _night, path in existing_backups(folder)] == [backup_name(due)]
    made = (folder / backup_name(due)).stat().st_mtime_ns

    again = CentreScheduler(service, config, None, catch_up_delay_s=0)  # a restart
    again.start()
    try:
        assert BACKUP_CATCH_UP_JOB not in again.job_ids(), "that night is done"
        assert BACKUP_JOB in again.job_ids()
        job = again.scheduler.get_job(BACKUP_JOB)
        fires = job.next_run_time
        assert (fires.hour, fires.minute) == (4, 0), "04:00 local time"
    finally:
        again.shutdown()
    assert (folder / backup_name(due)).stat().st_mtime_ns == made


def test_postgresql_and_disabled_backups_schedule_nothing_and_say_so(ledger, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="alley_poker.service.scheduler")
    _database, service = ledger
    postgres = AlleyConfig(
        centre=CentreConfig(name="Big Lanes", lanes=2),
        database=DatabaseConfig(url="postgresql+psycopg://postgres@127.0.0.1:5432/test"))
    disabled = centre_config(tmp_path / "x.sqlite3", tmp_path / "b", enabled=False)
    for config in (postgres, disabled):
        scheduler = CentreScheduler(service, config, None, catch_up_delay_s=0)
        scheduler.start()
        try:
            assert BACKUP_JOB not in scheduler.job_ids()
            assert BACKUP_CATCH_UP_JOB not in scheduler.job_ids()
        finally:
            scheduler.shutdown()
    assert caplog.text.count("back PostgreSQL up with its own tools") == 1
    assert "disabled in the configuration" in caplog.text
    assert not (tmp_path / "b").exists()
