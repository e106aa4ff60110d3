"""The night's close: at ``[night] close`` every match still in play raises an alarm (bus,
feed board, the server's log) and stays open until the commissioner settles or voids it."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from alley_poker.config import AlleyConfig, BackupConfig, CentreConfig, DatabaseConfig, NightConfig
from alley_poker.ledger import commands as c
from alley_poker.service.night_close import NightClose, NightCloseBoard, unsettled_matches
from alley_poker.service.scheduler import NIGHT_CLOSE_JOB, CentreScheduler
from tests.service.test_scheduler import DESK, gutter_after_a_strike, service_over, wait_until


def start(service, match_id: str, lanes: tuple[int, int], bowlers: tuple[str, str]) -> None:
    service.create_match(match_id, {(lanes[0], 1): bowlers[0], (lanes[1], 1): bowlers[1]},
                         games=1, actor=DESK)
    for bowler in bowlers:
        service.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, c.StartMatch(actor=DESK))


def test_the_close_alarms_for_every_match_in_play_and_logs_each(tmp_path: Path, caplog):
    caplog.set_level(logging.INFO, logger="alley_poker.service.night_close")
    service = service_over(tmp_path / "ledger.sqlite3")
    try:
        gutter_after_a_strike(service)                      # m1 playing, a decision open
        start(service, "m2", (3, 4), ("Cy", "Dee"))
        service.execute("m2", c.CommissionerVoidMatch(reason="lane down", actor=DESK))
        service.create_match("m3", {(5, 1): "Eve", (6, 1): "Flo"}, games=1, actor=DESK)
        heard = []
        service.bus.subscribe(lambda topic, message: heard.append((topic, message)))
        board = NightCloseBoard(service)
        assert board.current() is None, "no alarm before the close"

        closed_at = datetime(2026, 3, 7, 5, 30, tzinfo=UTC)
        alarm = NightClose(service, close="23:30").check(closed_at)

        assert alarm["matches"] == [{"match_id": "m1", "status": "playing", "pot_cents": 200}]
        assert alarm["closed_at"] == "2026-03-07T05:30:00Z"
        assert [(topic, message["matches"]) for topic, message in heard
                if message.get("kind") == "night_close"] == [("alley", alarm["matches"])]
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 1 and "match m1 is still playing" in warnings[0]
        # The report's list: not settled is m1 (in play) and m3 (never started); m2 is void.
        assert [m["match_id"] for m in unsettled_matches(service)] == ["m1", "m3"]
        assert board.current()["matches"] == alarm["matches"]

        # The match stays open until the commissioner acts; then the alarm clears.
        assert service.state("m1").status == "playing"
        service.execute("m1", c.CommissionerSettleAsHandsStand(reason="closed", actor=DESK))
        assert board.current()["matches"] == [] and board.current()["all_settled"] is True
    finally:
        service.repository.store.close()


def test_the_close_is_a_cron_job_at_the_configured_local_time_and_it_fires(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="alley_poker.service.night_close")
    database = tmp_path / "ledger.sqlite3"
    service = service_over(database)
    config = AlleyConfig(centre=CentreConfig(name="Close Lanes", lanes=2),
                         database=DatabaseConfig(url=f"sqlite:///{database}"),
                         backup=BackupConfig(enabled=False),
                         night=NightConfig(close="23:30", timezone="America/Chicago"))
    scheduler = CentreScheduler(service, config, None)
    scheduler.start()
    try:
        gutter_after_a_strike(service)
        job = scheduler.scheduler.get_job(NIGHT_CLOSE_JOB)
        due = job.next_run_time.astimezone(ZoneInfo("America/Chicago"))
        assert (due.hour, due.minute) == (23, 30)
        assert timedelta(0) < due - datetime.now(UTC) <= timedelta(days=1)

        alarms = []
        service.bus.subscribe(lambda topic, message: alarms.append(message)
                              if message.get("kind") == "night_close" else None)
        # The clock reaches the close: APScheduler runs the job now.
        job.modify(next_run_time=datetime.now(UTC))
        assert wait_until(lambda: alarms, timeout=5)
        assert [m["match_id"] for m in alarms[0]["matches"]] == ["m1"]
        assert "night close (23:30): match m1 is still playing" in caplog.text
        # Still in play: nothing was settled for the commissioner.
        assert service.state("m1").status == "playing" and service.state("m1").decisions
    finally:
        scheduler.shutdown()
        service.repository.store.close()
