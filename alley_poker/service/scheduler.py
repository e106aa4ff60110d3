"""Decision deadlines on an APScheduler ``BackgroundScheduler``.

Every open decision in the ledger gets one ``date`` job that, at its deadline, asks the
ledger to make the automatic choice (``ExpireDecision(decision_id=..., actor="scheduler")``).
The jobs are not the truth, the ledger is: on start every job is rebuilt from the open
decisions of every unfinished match, so a restart keeps every deadline, and the job id is
``<match id>:<decision id>`` with ``replace_existing=True``, so a decision seen twice (the
rebuild racing a live ``decision_opened``) still has one job.  Should a job fire anyway for a
decision already answered, the ledger refuses the expiry and the refusal is only logged.

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
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from typing import Any

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.background import BackgroundScheduler

from alley_poker.ledger import CommandRefused
from alley_poker.ledger.commands import ExpireDecision
from alley_poker.service.alley import FINISHED, AlleyService

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

    def _stored_match_ids(self) -> list[str]:
        store = getattr(self.service.repository, "store", None)
        return list(store.match_ids()) if store is not None else []

    # --------------------------------------------------------------------------- lifecycle

    def start(self) -> None:
        """Listen on the bus, start the scheduler and rebuild every job from the ledger.

        The bus listener comes first so a decision opened during the rebuild is not missed;
        a decision seen by both just replaces its own job.
        """
        self._unsubscribe = self.service.bus.subscribe(self._on_message)
        self.scheduler.start()
        self.rebuild()

    def shutdown(self) -> None:
        """Stop listening and stop the scheduler (a running expiry is waited for)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.scheduler.running:
            self.scheduler.shutdown(wait=True)

    def rebuild(self) -> int:
        """Schedule every open decision of every unfinished match; returns how many."""
        scheduled = 0
        for match_id in self._match_ids():
            state = self.service.state(match_id)
            if state.status in FINISHED:
                continue
            for decision in list(state.decisions.values()):
                self.schedule(match_id, decision["id"], decision["deadline"])
                scheduled += 1
        log.info("decision scheduler: %d pending deadline(s) rebuilt from the ledger", scheduled)
        return scheduled

    # -------------------------------------------------------------------------------- jobs

    def schedule(self, match_id: str, decision_id: str, deadline: str) -> None:
        """(Re)place the job expiring ``decision_id`` at ``deadline`` (ISO 8601, aware)."""
        run_at = datetime.fromisoformat(deadline) + GRACE
        self.scheduler.add_job(
            self.expire, trigger="date", run_date=run_at, args=(match_id, decision_id),
            id=job_id(match_id, decision_id), replace_existing=True,
            name=f"expire {decision_id} of {match_id}",
        )

    def unschedule(self, match_id: str, decision_id: str) -> None:
        # Gone already when this very expiry closed the decision, or never scheduled.
        with contextlib.suppress(JobLookupError):
            self.scheduler.remove_job(job_id(match_id, decision_id))

    def pending_jobs(self) -> list[str]:
        """Ids of the jobs still waiting, soonest first."""
        return [job.id for job in self.scheduler.get_jobs()]

    def expire(self, match_id: str, decision_id: str) -> bool:
        """The job: make the automatic choice.  ``False`` (logged) when the ledger refuses,
        e.g. the bowler answered just in time."""
        try:
            self.service.execute(match_id, ExpireDecision(decision_id=decision_id, actor=ACTOR))
        except CommandRefused as refused:
            log.info("expiry of %s in %s refused: %s", decision_id, match_id, refused)
            return False
        except Exception:
            log.exception("expiry of %s in %s failed", decision_id, match_id)
            return False
        log.info("decision %s in %s expired: automatic choice made", decision_id, match_id)
        return True

    # --------------------------------------------------------------------------------- bus

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if message.get("kind") != "events":
            return
        match_id = message.get("match_id")
        for event in message.get("events", []):
            data = event.get("data", {})
            if event.get("type") == "decision_opened":
                self.schedule(match_id, data["id"], data["deadline"])
            elif event.get("type") == "decision_closed":
                self.unschedule(match_id, data["decision_id"])


def centre_scheduler(service: AlleyService, config: Any, feeds: Any) -> DecisionScheduler:
    """The scheduler of one centre's jobs, built where the feeds run (``serve``, ``worker``).

    ``config`` is the centre's :class:`~alley_poker.config.AlleyConfig` and ``feeds`` its
    :class:`~alley_poker.service.feeds.FeedSupervisor`.
    """
    return DecisionScheduler(service)
