"""The centre's scheduled jobs on an APScheduler ``BackgroundScheduler``.

:func:`centre_scheduler` builds a :class:`CentreScheduler`: the decision deadlines below, the
feed health check and the nightly SQLite backup, all on one scheduler, each under a fixed job
id (see ``docs/service.md``, "Scheduled jobs").

Decision deadlines:

Every open decision in the ledger has one ``date`` job that, at its deadline, asks the
ledger to make the automatic choice (``ExpireDecision(decision_id=..., actor="scheduler")``).
The jobs are not the truth, the ledger is: they are *derived from the match's state*.  After
every change of a match (any event, whatever command made it: a ball that opens a decision,
an answer that closes one, a ruling, an undo that brings a closed decision back, a void, a
settlement) :meth:`DecisionScheduler.reconcile` makes the match's jobs exactly its open
decisions, each at its deadline: a job for a decision that is open and has none (or at
another time), no job for one that is closed, none at all for a finished match.  No command
is a special case, so an undo puts every clock back, and a deadline that already passed
while the decision was closed fires at once (APScheduler runs a job whose time has passed).
On start, and when the bus may have lost messages, every match is reconciled the same way,
so a restart keeps every deadline.  The job id is ``<match id>:<decision id>``; should a job
fire anyway for a decision already answered, the ledger refuses the expiry and the refusal
is only logged.

>>> from alley_poker.service import open_service
>>> service = open_service("sqlite://")
>>> scheduler = DecisionScheduler(service)
>>> scheduler.start()
>>> scheduler.pending_jobs()
[]
>>> scheduler.shutdown()
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from tzlocal import get_localzone

from alley_poker.ledger import CommandRefused
from alley_poker.ledger.commands import ExpireDecision
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.alley import AlleyService
from alley_poker.service.backup import BackupNotPossible, NightlyBackup
from alley_poker.service.health import FeedHealthCheck, check_interval_s
from alley_poker.service.night_close import NightClose

log = logging.getLogger(__name__)

#: Fire this long after the deadline: the ledger refuses an expiry even a microsecond early,
#: and the scheduler's clock and the ledger's need not tick in step.
GRACE = timedelta(milliseconds=200)

ACTOR = "scheduler"


def job_id(match_id: str, decision_id: str) -> str:
    """The one job id of a decision.

    >>> job_id("m1", "D12")
    'm1:D12'
    """
    return f"{match_id}:{decision_id}"


class DecisionScheduler:
    """Expires pending decisions at their deadlines, through the service.

    ``match_ids`` lists every match to rebuild from on start (default: every match in the
    service's event store).
    """

    def __init__(self, service: AlleyService, *,
                 match_ids: Callable[[], Iterable[str]] | None = None,
                 scheduler: BackgroundScheduler | None = None) -> None:
        self.service = service
        self._match_ids = match_ids or self._stored_match_ids
        self.scheduler = scheduler or BackgroundScheduler(
            timezone="UTC",
            # A job whose time passed while the server was down or busy still runs, once.
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
        )
        self._unsubscribe: Callable[[], None] | None = None
        # A job's own events reach schedule/unschedule on the job's thread (an expiry closes
        # its decision and may open the next), and APScheduler's shutdown holds its job-store
        # lock while it waits for that thread: a job calling into the scheduler then waits
        # for ever (a CI run hung so).  Once stopping, schedule and unschedule do nothing; the
        # lock makes "not stopping, so call APScheduler" one step that shutdown waits out.
        self._changing = threading.Lock()
        self._stopping = False

    def _stored_match_ids(self) -> list[str]:
        store = getattr(self.service.repository, "store", None)
        return list(store.match_ids()) if store is not None else []

    # --------------------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Listen on the bus, start the scheduler and rebuild every job from the ledger.

        The bus listener comes first so a decision opened during the rebuild is not missed;
        a decision seen by both just replaces its own job.
        """
        with self._changing:
            self._stopping = False
        self._unsubscribe = self.service.bus.subscribe(self._on_message)
        self.scheduler.start()
        self.rebuild()

    def shutdown(self) -> None:
        """Stop listening and stop the scheduler (a running expiry is waited for)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        with self._changing:
            self._stopping = True
        if self.scheduler.running:
            # Paused, its loop starts no new round; get_jobs waits (on the job-store lock) for
            # a round in progress to finish, whose removal of a job it just ran would fail
            # with JobLookupError in its thread once the state said stopped.
            self.scheduler.pause()
            self.scheduler.get_jobs()
            self.scheduler.shutdown(wait=True)

    def rebuild(self) -> int:
        """Reconcile every match that is unfinished or still has a job; returns how many
        deadline jobs are pending afterwards."""
        matches = set(self._matches_with_jobs())
        for match_id in self._match_ids():
            if self.service.caught_up_state(match_id).status not in FINISHED:
                matches.add(match_id)
        for match_id in sorted(matches):
            self.reconcile(match_id, caught_up=True)
        scheduled = len(self.pending_jobs())
        log.info("decision scheduler: %d pending deadline(s) rebuilt from the ledger", scheduled)
        return scheduled

    # -------------------------------------------------------------------------------- jobs

    def reconcile(self, match_id: str, *, caught_up: bool = False) -> None:
        """Make the match's deadline jobs exactly what its state asks for now: one job per
        open decision, at its deadline; none for anything else.

        Runs under the service's lock of the match, so no command of the match runs in this
        process between the state read here and the jobs set from it (a decision opened
        meanwhile is reconciled again by its own event).  ``caught_up`` first catches the
        match up with the ledger (a change another process made, told on a shared bus).
        """
        with self.service.match_lock(match_id):
            state = (self.service.caught_up_state(match_id) if caught_up
                     else self.service.shared_state(match_id))
            wanted = {} if state.status in FINISHED else {
                job_id(match_id, decision["id"]): (decision["id"], _run_at(decision["deadline"]))
                for decision in state.decisions.values()}
            with self._changing:
                if self._stopping:  # the next start reconciles it from the ledger
                    return
                have = {job.id: job for job in self.scheduler.get_jobs()
                        if job.func == self.expire and job.args[0] == match_id}
                for stale in have.keys() - wanted.keys():
                    with contextlib.suppress(JobLookupError):  # it has just run
                        self.scheduler.remove_job(stale)
                for wanted_id, (decision_id, run_at) in wanted.items():
                    job = have.get(wanted_id)
                    if job is not None and getattr(job.trigger, "run_date", None) == run_at:
                        continue
                    self.scheduler.add_job(
                        self.expire, trigger="date", run_date=run_at,
                        args=(match_id, decision_id), id=wanted_id, replace_existing=True,
                        name=f"expire {decision_id} of {match_id}",
                    )

    def pending_jobs(self) -> list[str]:
        """Ids of the decision jobs still waiting, soonest first (a shared scheduler's other
        jobs are not ours)."""
        return [job.id for job in self.scheduler.get_jobs() if job.func == self.expire]

    def pending_deadlines(self) -> dict[str, datetime]:
        """Each waiting decision job's id and the moment it runs."""
        return {job.id: job.trigger.run_date for job in self.scheduler.get_jobs()
                if job.func == self.expire}

    def _matches_with_jobs(self) -> list[str]:
        return [job.args[0] for job in self.scheduler.get_jobs() if job.func == self.expire]

    def expire(self, match_id: str, decision_id: str) -> bool:
        """The job: make the automatic choice.  ``False`` (logged) when the ledger refuses,
        e.g. the bowler answered just in time; the match is then reconciled, so a decision
        still open (the ledger's clock was behind) gets its job back."""
        try:
            self.service.execute(match_id, ExpireDecision(decision_id=decision_id, actor=ACTOR))
        except CommandRefused as refused:
            log.info("expiry of %s in %s refused: %s", decision_id, match_id, refused)
            if refused.field == "deadline" and self._still_ahead(match_id, decision_id):
                self.reconcile(match_id)  # the ledger's clock was behind: the job comes back
            return False
        except Exception:
            log.exception("expiry of %s in %s failed", decision_id, match_id)
            return False
        log.info("decision %s in %s expired: automatic choice made", decision_id, match_id)
        return True

    def _still_ahead(self, match_id: str, decision_id: str) -> bool:
        """Whether the decision is open and its job's time is still to come (so putting the
        job back cannot run it again at once, and again)."""
        decision = self.service.shared_state(match_id).decisions.get(decision_id)
        return decision is not None and _run_at(decision["deadline"]) > datetime.now(UTC)

    # --------------------------------------------------------------------------------- bus

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        if topic.startswith("match:") and kind == "events":
            # Another process's change: the cached match may not have caught up yet.
            self.reconcile(message["match_id"],
                           caught_up=message.get("origin") != self.service.bus.origin)
        elif topic == "alley" and kind == "bus_reconnected":
            self.rebuild()  # messages may have been lost while the bus was down


def _run_at(deadline: str) -> datetime:
    """When a decision's job runs: just after its deadline (ISO 8601, aware)."""
    return datetime.fromisoformat(deadline) + GRACE


#: The fixed ids of the centre's standing jobs: ``replace_existing`` on these ids means a job
#: added twice (a restart of the scheduler, two code paths) is still one job.
FEED_HEALTH_JOB = "feed-health"
BACKUP_JOB = "nightly-backup"
BACKUP_CATCH_UP_JOB = "nightly-backup-catch-up"
NIGHT_CLOSE_JOB = "night-close"

#: A backup missed while the server was down runs this long after start-up, not during it:
#: the feeds reconnect and the screens resync first, and a server started only to be stopped
#: again (a quick test, a restart loop) does not copy the ledger each time.
CATCH_UP_DELAY_S = 60.0


class CentreScheduler:
    """Every scheduled job of one centre on one ``BackgroundScheduler``.

    - decision deadlines (:class:`DecisionScheduler`, rebuilt from the ledger on start);
    - ``feed-health``: an interval job checking every feed (:mod:`alley_poker.service.health`)
      and announcing the report on the ``alley`` topic, first at start-up;
    - ``night-close``: a cron job at ``[night] close`` in ``[night] timezone`` raising the
      alarm for every match still in play (:mod:`alley_poker.service.night_close`);
    - ``nightly-backup``: a cron job at ``[backup] at`` local time when the ledger is SQLite
      (:mod:`alley_poker.service.backup`), plus ``nightly-backup-catch-up``, once, shortly
      after start-up when the last backup time passed without its copy.

    Only the process that runs the feeds builds one (``serve``, or the centre's worker), so
    with several web processes there is still one of each job.
    """

    def __init__(self, service: AlleyService, config: Any, feeds: Any, *,
                 catch_up_delay_s: float = CATCH_UP_DELAY_S,
                 clock: Callable[[], datetime] = datetime.now) -> None:
        self.service = service
        self.config = config
        self.feeds = feeds
        self.catch_up_delay_s = catch_up_delay_s
        self.scheduler = BackgroundScheduler(
            timezone="UTC",
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
        )
        self.decisions = DecisionScheduler(service, scheduler=self.scheduler)
        self.feed_health = (FeedHealthCheck(feeds, service.announce)
                            if feeds is not None and getattr(feeds, "feeds", None) else None)
        self.backup = self._nightly_backup(clock)
        night = getattr(config, "night", None)
        self.night = night
        self.night_close = (NightClose(service, close=night.close)
                            if night is not None else None)

    def _nightly_backup(self, clock: Callable[[], datetime]) -> NightlyBackup | None:
        settings = self.config.backup
        if not settings.enabled:
            log.info("nightly backup: disabled in the configuration ([backup] enabled)")
            return None
        try:
            return NightlyBackup(self.config.database.url, settings.folder, settings.keep,
                                 hour=settings.hour, minute=settings.minute, clock=clock)
        except BackupNotPossible as reason:
            # Said once, at start-up; PostgreSQL is the centre's own tools' job.
            log.info("nightly backup: not scheduled: %s", reason)
            return None

    def start(self) -> None:
        """Start the scheduler with the decision jobs, then add the standing jobs."""
        self.decisions.start()
        self.add_standing_jobs()

    def add_standing_jobs(self) -> None:
        """Add the feed health and backup jobs; adding them again replaces them (fixed ids)."""
        if self.feed_health is not None:
            self.scheduler.add_job(
                self.feed_health.check, trigger="interval",
                seconds=check_interval_s(self.feeds.heartbeats()),
                next_run_time=datetime.now(UTC),  # the tablet has a report from the start
                id=FEED_HEALTH_JOB, name="feed health check", replace_existing=True,
                coalesce=True, max_instances=1,
                # A check that could not run on time is simply skipped: the next one reports.
                misfire_grace_time=1,
            )
        if self.night_close is not None:
            self.scheduler.add_job(
                self.night_close.check,
                trigger=CronTrigger(hour=self.night.hour, minute=self.night.minute,
                                    timezone=self.night.zone()),
                id=NIGHT_CLOSE_JOB, name="the night's close", replace_existing=True,
                # A close missed by a few minutes (a restart at closing time) still alarms.
                coalesce=True, max_instances=1, misfire_grace_time=1800,
            )
        if self.backup is not None:
            self.scheduler.add_job(
                self.backup.run,
                trigger=CronTrigger(hour=self.backup.hour, minute=self.backup.minute,
                                    timezone=get_localzone()),
                id=BACKUP_JOB, name="nightly SQLite backup", replace_existing=True,
                coalesce=True, max_instances=1, misfire_grace_time=3600,
            )
            if self.backup.missed():
                log.info("nightly backup: the copy for %s is missing; taking it in %.0f s",
                         self.backup.last_due_night(), self.catch_up_delay_s)
                self.scheduler.add_job(
                    self.backup.run, trigger="date",
                    run_date=datetime.now(UTC) + timedelta(seconds=self.catch_up_delay_s),
                    id=BACKUP_CATCH_UP_JOB, name="missed nightly backup",
                    replace_existing=True, max_instances=1,
                )

    def shutdown(self) -> None:
        """Stop every job (a running one is waited for)."""
        self.decisions.shutdown()

    def pending_jobs(self) -> list[str]:
        """Ids of the decision-deadline jobs still waiting, soonest first (as
        :meth:`DecisionScheduler.pending_jobs`; :meth:`job_ids` lists every job)."""
        return self.decisions.pending_jobs()

    def job_ids(self) -> list[str]:
        """Ids of every waiting job, the standing ones included, soonest first."""
        return [job.id for job in self.scheduler.get_jobs()]


def centre_scheduler(service: AlleyService, config: Any, feeds: Any) -> CentreScheduler:
    """The scheduler of one centre's jobs, built where the feeds run (``serve``, ``worker``).

    ``config`` is the centre's :class:`~alley_poker.config.AlleyConfig` and ``feeds`` its
    :class:`~alley_poker.service.feeds.FeedSupervisor`.
    """
    return CentreScheduler(service, config, feeds)
