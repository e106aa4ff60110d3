"""Settled odds re-used: per match, its last few settled states and their odds, and the
settled odds a new state of the match is given for no run at all (:class:`SettledOdds`).

Before a state's first chunk, :class:`~alley_poker.service.live_odds.LiveOdds` compares it
with them: when its odds' inputs (:func:`~alley_poker.odds.fast.odds_inputs`: all the fast
engine reads of it) equal a settled state's of the same match, the last event changed
nothing that matters, and that state's settled odds are this one's — published at once,
settled.  Only a settled state with as many balls is compared (reading a state's inputs takes
a millisecond, so after a ball, which always changes them, none is read).
"""

from __future__ import annotations

import logging
from collections import deque

from alley_poker.odds.fast import odds_inputs
from alley_poker.service.odds_job import OddsJob

log = logging.getLogger(__name__)


class SettledOdds:
    """Per match, the settled states kept to compare its next states with.  Not locked of
    its own: :class:`~alley_poker.service.live_odds.LiveOdds` calls it holding its lock."""

    #: How many settled states of a match are kept to compare a new state's inputs with: the
    #: state a ball ago, and a few before it (a ball undone and bowled again).
    KEPT = 4

    def __init__(self) -> None:
        self._kept: dict[str, deque[tuple[OddsJob, dict]]] = {}

    def remember(self, job: OddsJob, odds: dict) -> None:
        """Keep a settled state and its odds, as shown (a state reusing them shows the same);
        a settled match's result is not kept: no state of the match follows it."""
        if job.state.result is None:
            self._kept.setdefault(job.match_id, deque(maxlen=self.KEPT)).append((job, odds))

    def comparable(self, job: OddsJob) -> list[tuple[OddsJob, dict]]:
        """The kept states of the job's match with as many balls as its state, and their
        odds: the only ones whose inputs may be its."""
        return [(settled, odds) for settled, odds in self._kept.get(job.match_id, ())
                if settled.state.balls_recorded == job.state.balls_recorded]

    def forget(self, match_id: str) -> None:
        self._kept.pop(match_id, None)


def odds_of_same_inputs(job: OddsJob, kept: list[tuple[OddsJob, dict]]) -> dict | None:
    """The odds of the first of ``kept`` whose inputs equal the job's state's, if any (read
    outside the lock: a millisecond a state).  None when reading them failed: the runs go on
    without the comparison."""
    try:
        inputs = _inputs_of(job)
        return None if inputs is None else next(
            (odds for settled, odds in kept if _inputs_of(settled) == inputs), None)
    except Exception:
        log.exception("the odds inputs of match %s at #%s", job.match_id, job.state.seq)
        return None


def _inputs_of(job: OddsJob) -> tuple | None:
    """What the job's odds are made from, read once."""
    if job.inputs is None:
        job.inputs = odds_inputs(job.state)
    return job.inputs
