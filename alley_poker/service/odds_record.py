"""The centre's own record: how its live odds fared on its settled matches.

Forecasters publish their record; so does the centre (docs/odds.md, "The record, shown").
The record is the odds as the live odds gave them, from the code ``alley-poker odds
calibrate`` uses (:func:`alley_poker.odds.calibration.held_out_predictions` with
``rolling``, :func:`alley_poker.odds.correction.corrected`): every settled match replayed to
its prediction points and predicted with each bowler known from *earlier* nights only, the
chances corrected by the correction those nights fit, every bowler's chance set against the
share of the pot they took.  From those, per tenth of the scale, the mean chance given
against the share won with its Wilson 95 % interval (the reliability chart), the Brier score
against guessing 1 in *n*, and how many matches and predictions it rests on.

A projection, never a second truth: rebuilt from the event log, kept in memory.  It replays
every match, so it is not worked out per page view: :class:`OddsRecordSource` works it out
when it is first asked for and again, when asked, once it is :data:`RELEARN_SECONDS` old (the
schedule the odds' knowledge of the centre keeps) *and* a match has settled since; in one
process of its own below the balls (the odds pool's ``nice``), so it never holds the web
server's interpreter.  Until the first is ready it says it is being worked out.

>>> from alley_poker.odds.calibration import Prediction, Report
>>> few = Report.of([Prediction("m", "g1f0", "A", 0.8, 1.0, 2),
...                  Prediction("m", "g1f0", "B", 0.2, 0.0, 2)])
>>> record = OddsRecord.of(few, settled=1)
>>> record.enough, record.as_json()["bins"][0]["readable"]
(False, False)
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from alley_poker.odds.calibration import FRAMES, PlayedMatch, Report, held_out_predictions
from alley_poker.odds.correction import corrected, rolling_corrections
from alley_poker.service.odds_history import RELEARN_SECONDS, played_matches
from alley_poker.service.odds_pool import start_pool_process

log = logging.getLogger(__name__)

#: The record judges the odds once it rests on this many settled matches: fewer, and a bin's
#: share won is mostly chance (30 matches of 2-4 bowlers at 4 points: a few hundred
#: predictions, a middle bin's 30-60 of them ±10-15 points).
MIN_MATCHES = 30
#: A bin is drawn, and read, with this many predictions (as the calibration report's worst
#: gap counts them); below it the table lists it as too few to read.
MIN_BIN = 30
#: Runs per prediction (``odds calibrate`` makes 1,000 by default).  At 400 a prediction's
#: own simulation noise is ±2.5 points at most, which moves a bin's mean by well under a
#: point and the Brier score by about 0.0006: the record's own sampling is far wider.
ITERATIONS = 400
#: The record rests on the centre's latest matches, at most this many (about 5,000
#: predictions): replaying them takes a process below the balls about two minutes of a core
#: (118 matches took 25.6 s of CPU at 400 runs a prediction, 13.3 s at 100), each time the
#: record is asked for once it is due and a match has settled since.
MAX_MATCHES = 500


@dataclass(frozen=True)
class OddsRecord:
    """The centre's record as the pages and the API show it."""

    report: Report
    settled: int          # settled matches the store holds (the record rests on the latest)
    iterations: int = ITERATIONS
    computed_at: datetime | None = None

    @classmethod
    def of(cls, report: Report, *, settled: int, iterations: int = ITERATIONS,
           computed_at: datetime | None = None) -> OddsRecord:
        return cls(report, settled, iterations, computed_at)

    @property
    def enough(self) -> bool:
        """Enough to judge: :data:`MIN_MATCHES` matches and a bin of :data:`MIN_BIN`
        predictions at least."""
        return (self.report.matches >= MIN_MATCHES
                and any(b.count >= MIN_BIN for b in self.report.bins))

    def as_json(self) -> dict[str, Any]:
        report = self.report
        return {
            "state": "ready", "enough": self.enough, "matches": report.matches,
            "settled_matches": self.settled, "predictions": report.predictions,
            "min_matches": MIN_MATCHES, "min_bin": MIN_BIN,
            "brier": round(report.brier, 4), "naive_brier": round(report.naive_brier, 4),
            "iterations": self.iterations,
            "computed_at": self.computed_at.isoformat() if self.computed_at else None,
            "bins": [{"low": b.low, "high": round(b.low + 0.1, 1), "count": b.count,
                      "predicted": round(b.predicted, 4), "observed": round(b.observed, 4),
                      "interval": [round(b.interval[0], 4), round(b.interval[1], 4)],
                      "readable": b.count >= MIN_BIN} for b in report.bins],
        }


def record_of(matches: Sequence[PlayedMatch], *, iterations: int = ITERATIONS,
              frames: Sequence[int] = FRAMES) -> Report | None:
    """The odds as the live odds gave them on ``matches``: each night predicted from the
    earlier nights only and corrected by the correction those nights fit (as ``odds
    calibrate`` predicts and corrects them); None when no match reached a prediction
    point."""
    predictions = held_out_predictions(matches, iterations=iterations, frames=frames,
                                       rolling=True)
    if not predictions:
        return None
    return Report.of(corrected(predictions, rolling_corrections(predictions)))


def latest(matches: Sequence[PlayedMatch], most: int = MAX_MATCHES) -> list[PlayedMatch]:
    """The ``most`` latest matches by night (match id breaking ties)."""
    return sorted(matches, key=lambda m: (m.date, m.match_id))[-most:]


class OddsRecordSource:
    """The centre's record, worked out in the background from ``store`` (an EventStore).

    ``processes=0`` works it out in a thread of this process (tests, tiny centres); else in
    one process of its own started for each working-out, below the balls."""

    def __init__(self, store: Any, *, iterations: int = ITERATIONS, processes: int = 1,
                 refresh_seconds: float = RELEARN_SECONDS, max_matches: int = MAX_MATCHES,
                 clock: Callable[[], float] = time.monotonic):
        self.store, self.iterations, self.processes = store, iterations, processes
        self.refresh_seconds, self.max_matches = refresh_seconds, max_matches
        self._clock = clock
        self._lock = threading.Condition()
        self._record: OddsRecord | None = None
        self._settled_ids: tuple[str, ...] | None = None  # the matches it rests on
        self._checked_at: float | None = None
        self._working: threading.Thread | None = None
        self._failed = False

    def current(self) -> dict[str, Any]:
        """The record as JSON (``state``: ``ready``, or ``working`` before the first is
        ready); starts working it out again when it is due."""
        with self._lock:
            due = self._checked_at is None or (
                self._clock() - self._checked_at >= self.refresh_seconds)
            if due and self._working is None:
                self._checked_at = self._clock()
                self._working = threading.Thread(target=self._work, name="odds-record",
                                                 daemon=True)
                self._working.start()
            if self._record is not None:
                return self._record.as_json()
            if self._failed:
                return {"state": "failed"}
            return {"state": "working"}

    def wait(self, timeout: float) -> bool:
        """Wait until no working-out is under way (tests)."""
        with self._lock:
            return self._lock.wait_for(lambda: self._working is None, timeout)

    def _work(self) -> None:
        try:
            every = played_matches(self.store, skipped=_skipped)
            matches = latest(every, self.max_matches)
            ids = tuple(sorted(m.match_id for m in matches))
            if ids != self._settled_ids:
                report = self._report(matches) if matches else None
                if report is None:  # no match reached a prediction point: nothing to judge
                    report = Report(0, 0, 0.0, 0.0, (), {})
                record = OddsRecord.of(report, settled=len(every),
                                       iterations=self.iterations,
                                       computed_at=datetime.now(UTC))
                with self._lock:
                    self._record, self._settled_ids, self._failed = record, ids, False
        except Exception:
            log.exception("the odds' record could not be worked out; the last one stays")
            with self._lock:
                self._failed = self._record is None
        finally:
            with self._lock:
                self._working = None
                self._lock.notify_all()

    def _report(self, matches: list[PlayedMatch]) -> Report | None:
        if not self.processes:
            return record_of(matches, iterations=self.iterations)
        # A process of its own, started by this thread (the odds pool's processes end with
        # the thread that started them) and gone once the record is made.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=start_pool_process) as pool:
            return pool.submit(record_of, matches, iterations=self.iterations).result()


def _skipped(match_id: str, exc: Exception) -> None:
    log.warning("the odds' record leaves out match %s: its events cannot be read (%s)",
                match_id, exc)


__all__ = ["ITERATIONS", "MAX_MATCHES", "MIN_BIN", "MIN_MATCHES", "OddsRecord",
           "OddsRecordSource", "latest", "record_of"]
