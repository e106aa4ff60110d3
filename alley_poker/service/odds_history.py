"""What the live odds know of the centre's bowlers: the games of its settled matches.

A bowler's ball model starts from the centre's bowlers (docs/odds.md, "The ball model"): a
newcomer is one of them, nobody knows which, and a regular is learnt from their own games
here, shrunk toward their league's and the centre's.  :func:`learn_centre` reads that from
the matches the event store holds, once and then every :data:`RELEARN_SECONDS` (the odds'
worker threads ask, never the thread that ran a ball); a centre with no settled match yet
knows nothing and starts from ``[odds] centre_average``.

The same reading hands the settled matches to the odds' self-correction
(:mod:`alley_poker.service.odds_correction`): each is predicted once, from the earlier
nights only, and a night's odds are corrected by the nights before it.

Projections, not a second truth: every figure is rebuilt from the event log.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from alley_poker.ledger.events import EventFormatError, event_from_record
from alley_poker.odds import CentreAverages
from alley_poker.odds.calibration import PlayedMatch, games_of
from alley_poker.odds.correction import IDENTITY, Correction
from alley_poker.service.odds_correction import CorrectionLearner

log = logging.getLogger(__name__)

#: How often the centre's knowledge is read again from the store (a settled match's games
#: count from the next reading on).
RELEARN_SECONDS = 600.0


@dataclass(frozen=True)
class CentreKnowledge:
    """The centre's prior, each bowler's games from settled matches, and each league
    bowler's league, by seat name."""

    centre: CentreAverages
    history: Mapping[str, tuple[tuple[dict, ...], ...]] = field(default_factory=dict)
    leagues: Mapping[str, str] = field(default_factory=dict)
    matches: int = 0
    #: What the settled matches say of the odds themselves (docs/odds.md, "Self-correcting
    #: odds"); None: the odds are not corrected.
    corrections: CorrectionLearner | None = field(default=None, compare=False, repr=False)

    def correction_for(self, night: str) -> Correction:
        """The correction of the live odds of a match of ``night`` (earlier nights only)."""
        return IDENTITY if self.corrections is None else self.corrections.correction_for(night)

    def for_bowlers(self, bowlers: Iterable[str]) -> tuple[dict, dict]:
        """The history and leagues of a match's bowlers only (what a pool process needs)."""
        bowlers = list(bowlers)
        return ({b: self.history[b] for b in bowlers if b in self.history},
                {b: self.leagues[b] for b in bowlers if b in self.leagues})


def played_matches(store: Any, *, skipped: Callable[[str, Exception], None] | None = None
                   ) -> list[PlayedMatch]:
    """Every match of ``store`` (an EventStore) with a showdown, with its night (a league
    match's night, else the day it was created, UTC) and league.  A match whose events
    cannot be read is passed to ``skipped`` and left out."""
    matches = []
    for match_id in store.match_ids():
        try:
            events = tuple(event_from_record(record) for record in store.load(match_id))
        except EventFormatError as exc:
            if skipped is not None:
                skipped(match_id, exc)
            continue
        if not events or not any(event.type == "showdown" for event in events):
            continue
        league = events[0].data.get("league") or {}
        date = league.get("night_date") or events[0].at.date().isoformat()
        matches.append(PlayedMatch(match_id, date, events, league.get("league_id")))
    return matches


def learn_centre(matches: Sequence[PlayedMatch], *, average: int = 150) -> CentreKnowledge:
    """The centre as its settled matches show it (``average``: the prior when they show
    nothing yet)."""
    history: dict[str, list[tuple[dict, ...]]] = {}
    leagues: dict[str, str] = {}
    for match in matches:
        for bowler, games in games_of(match).items():
            history.setdefault(bowler, []).extend(tuple(game) for game in games)
            if match.league is not None:
                leagues[bowler] = match.league
    history = {bowler: games for bowler, games in history.items() if games}
    centre = CentreAverages.learn(history, leagues=leagues, average=average)
    return CentreKnowledge(centre, {b: tuple(g) for b, g in history.items()}, leagues,
                           len(matches))


class CentreKnowledgeSource:
    """The centre's knowledge for the live odds, learnt from ``store`` when first asked
    and again once it is :data:`RELEARN_SECONDS` old.  A store that cannot be read leaves
    the last knowledge (or the bare prior) in place and says so in the log."""

    def __init__(self, store: Any, *, average: int = 150,
                 relearn_seconds: float = RELEARN_SECONDS,
                 clock: Callable[[], float] = time.monotonic,
                 corrections: CorrectionLearner | None = None, correct: bool = True):
        self.store, self.average, self.relearn_seconds = store, average, relearn_seconds
        self._clock = clock
        # The settled matches' predictions, kept from one learning to the next (each match
        # is predicted once, in a thread of its own); ``correct=False``: none.
        self.corrections = (corrections or CorrectionLearner()) if correct else None
        self._lock = threading.Lock()
        self._known: CentreKnowledge | None = None
        self._learnt_at = 0.0

    def __call__(self) -> CentreKnowledge:
        with self._lock:
            now = self._clock()
            if self._known is None or now - self._learnt_at >= self.relearn_seconds:
                self._learnt_at = now
                try:
                    matches = played_matches(self.store, skipped=_skipped)
                    self._known = replace(learn_centre(matches, average=self.average),
                                          corrections=self.corrections)
                    if self.corrections is not None:
                        self.corrections.refresh_in_background(matches)
                except Exception:  # the odds go on from what they knew
                    log.exception("the centre's settled matches could not be read for the "
                                  "odds; they go on from what they knew")
                    if self._known is None:
                        self._known = CentreKnowledge(CentreAverages(average=self.average),
                                                      corrections=self.corrections)
            return self._known


def _skipped(match_id: str, exc: Exception) -> None:
    log.warning("the odds leave out match %s: its events cannot be read (%s)", match_id, exc)


__all__ = ["RELEARN_SECONDS", "CentreKnowledge", "CentreKnowledgeSource", "learn_centre",
           "played_matches"]
