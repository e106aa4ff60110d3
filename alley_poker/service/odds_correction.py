"""The live odds corrected by the centre's own settled matches (docs/odds.md,
"Self-correcting odds").

Each settled match is predicted at its replay points (before frame 1, after frames 3, 6 and
9 of each game) from the matches of *earlier* nights only, as the live odds would have
predicted it then; those predictions, set against the shares of the pot the bowlers took,
fit the correction (:mod:`alley_poker.odds.correction`) a night's live odds apply, from the
nights before it only.  A projection of the event log, not a second truth: rebuilt from the
settled matches, never stored.

The predictions are made once per match (a night's predictions depend only on the nights
before it, which never change), in a thread of their own at a lower priority, when
:class:`~alley_poker.service.odds_history.CentreKnowledgeSource` learns the centre again:
the odds go on with the correction they had meanwhile.  Only the latest
:data:`CORRECTION_NIGHTS` nights are predicted: the correction follows the centre as it is.

>>> learner = CorrectionLearner()
>>> learner.correction_for("2026-12-01").power   # nothing settled yet: no correction
1.0
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from alley_poker.ledger import MatchState
from alley_poker.odds.calibration import FRAMES, PlayedMatch, Prediction, games_of, predict_night
from alley_poker.odds.correction import IDENTITY, Correction, fit_correction

log = logging.getLogger(__name__)

#: Runs of the simulation per prediction of a settled match (±1.6 points at a 50 % chance:
#: noise the fit averages over hundreds of predictions).
CORRECTION_ITERATIONS = 400
#: The nights whose matches are predicted to fit the correction: the latest this many.
CORRECTION_NIGHTS = 40
#: How much lower than the service the predicting thread runs (``nice``, Linux threads).
_NICENESS = 10


def night_of(state: MatchState, today: Callable[[], str] | None = None) -> str:
    """The night a live match belongs to: its league night, else today (UTC), as
    :func:`~alley_poker.service.odds_history.played_matches` dates a settled match."""
    league = state.league or {}
    night = league.get("night_date")
    if night:
        return str(night)
    return today() if today is not None else datetime.now(UTC).date().isoformat()


class CorrectionLearner:
    """Each settled match's predictions (made once, from earlier nights only) and the
    correction each night gets from the nights before it."""

    def __init__(self, *, iterations: int = CORRECTION_ITERATIONS,
                 nights: int = CORRECTION_NIGHTS, frames: Sequence[int] = FRAMES):
        self.iterations, self.nights, self.frames = iterations, nights, tuple(frames)
        self._lock = threading.Lock()
        self._predicted: dict[str, tuple[Prediction, ...]] = {}
        self._fitted: dict[str, tuple[int, Correction]] = {}
        self._thread: threading.Thread | None = None

    @property
    def matches(self) -> int:
        with self._lock:
            return len(self._predicted)

    def correction_for(self, night: str) -> Correction:
        """The correction of a match of ``night``: fitted on the earlier nights' settled
        matches only (never on the night's own)."""
        with self._lock:
            earlier = [p for predictions in self._predicted.values() for p in predictions
                       if p.date < night]
            cached = self._fitted.get(night)
            if cached is not None and cached[0] == len(earlier):
                return cached[1]
        correction = fit_correction(earlier) if earlier else IDENTITY
        with self._lock:
            self._fitted[night] = (len(earlier), correction)
        return correction

    def refresh(self, matches: Sequence[PlayedMatch]) -> None:
        """Predict the settled matches not predicted yet (of the latest nights), here."""
        by_night: dict[str, list[PlayedMatch]] = {}
        for match in matches:
            by_night.setdefault(match.date, []).append(match)
        nights = sorted(by_night)[-self.nights:]
        games = None
        for night in nights:
            with self._lock:
                todo = [m for m in by_night[night] if m.match_id not in self._predicted]
            if not todo:
                continue
            if games is None:
                games = {m.match_id: games_of(m) for m in matches}
            history: dict[str, list] = {}
            leagues: dict[str, str] = {}
            for m in matches:
                if m.date < night:
                    for bowler, played in games[m.match_id].items():
                        history.setdefault(bowler, []).extend(played)
                        if m.league is not None:
                            leagues[bowler] = m.league
            predictions = predict_night(todo, history, leagues, iterations=self.iterations,
                                        frames=self.frames)
            with self._lock:
                for match in todo:  # a match with no prediction (void, never live) too
                    self._predicted[match.match_id] = tuple(
                        p for p in predictions if p.match_id == match.match_id)

    def refresh_in_background(self, matches: Sequence[PlayedMatch]) -> threading.Thread | None:
        """:meth:`refresh` in a thread of its own at a lower priority, unless one is still
        at work (it will see these matches at the next learning)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return None
            self._thread = threading.Thread(target=self._refresh_quietly, args=(matches,),
                                            name="odds-correction", daemon=True)
            self._thread.start()
            return self._thread

    def _refresh_quietly(self, matches: Sequence[PlayedMatch]) -> None:
        # Not Linux, or not allowed: at the usual priority.
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), _NICENESS)
        try:
            self.refresh(matches)
        except Exception:  # the odds go on with the correction they had
            log.exception("the odds' correction could not learn from the settled matches")


__all__ = ["CORRECTION_ITERATIONS", "CORRECTION_NIGHTS", "CorrectionLearner", "night_of"]
