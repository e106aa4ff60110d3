"""An honest check of the odds: predictions judged on matches whose balls the model being
judged did not make, with each bowler known only from their *other* dates.

The matches come from a centre's own log (``alley-poker odds calibrate``) or from the
second generator (:mod:`benchmarks._generated_centre`, balls by pin-by-pin deflection,
never fitted to).  For each date, the centre's prior is learnt from every other date's
games, each bowler from their own games of other dates (:mod:`alley_poker.odds.profiles`);
each match of the date is replayed from its events and predicted at chosen points (before
frame 1, after frames 3, 6 and 9 of each game, the match's own balls so far counting as the
live odds count them), and every bowler's predicted chance is set against the share of the
pot they took.  docs/odds.md, "Is it honest?".

>>> pairs = [Prediction("m", "f0", "A", 0.8, 1.0, 2), Prediction("m", "f0", "B", 0.2, 0.0, 2)]
>>> report = Report.of(pairs)
>>> round(report.brier, 2), report.naive_brier
(0.04, 0.25)
>>> [(b.low, b.count) for b in report.bins]
[(0.2, 1), (0.8, 1)]
"""

from __future__ import annotations

import math
import statistics
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from alley_poker.bowling import BowlingError
from alley_poker.ledger import MatchState
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.events import Event
from alley_poker.odds.engine import LIVE, win_odds
from alley_poker.odds.profiles import CentreAverages, profiles_for

#: Where each game is predicted: after this many frames of it by every bowler (0: before
#: its first ball; only the first game's, the others' being the last game's 10).
FRAMES = (0, 3, 6, 9)


@dataclass(frozen=True)
class PlayedMatch:
    """A match whose result is known: its events, date and league (if it has one)."""

    match_id: str
    date: str
    events: tuple[Event, ...]
    league: str | None = None


@dataclass(frozen=True)
class Prediction:
    """One bowler's predicted chance at one point of a match, and what they took."""

    match_id: str
    point: str
    bowler: str
    predicted: float
    outcome: float  # 1 won, 0 lost, 1/k of a tie of k
    bowlers: int
    date: str = ""  # the match's night: what a correction of the odds may learn from


@dataclass(frozen=True)
class Bin:
    """The predictions of one tenth of the scale."""

    low: float
    count: int
    predicted: float
    observed: float
    interval: tuple[float, float]  # Wilson's 95% interval of ``observed``

    @property
    def gap(self) -> float:
        return self.observed - self.predicted


@dataclass(frozen=True)
class Report:
    predictions: int
    matches: int
    brier: float
    naive_brier: float
    bins: tuple[Bin, ...]
    by_point: Mapping[str, tuple[int, float, float]]  # point: (count, brier, naive)

    @classmethod
    def of(cls, predictions: Sequence[Prediction], bins: int = 10) -> Report:
        by_bin: list[list[Prediction]] = [[] for _ in range(bins)]
        for p in predictions:
            by_bin[min(int(p.predicted * bins), bins - 1)].append(p)
        table = tuple(
            Bin(low=index / bins, count=len(group),
                predicted=statistics.fmean(p.predicted for p in group),
                observed=statistics.fmean(p.outcome for p in group),
                interval=wilson(sum(p.outcome for p in group), len(group)))
            for index, group in enumerate(by_bin) if group)
        points: dict[str, list[Prediction]] = {}
        for p in predictions:
            points.setdefault(p.point, []).append(p)
        return cls(predictions=len(predictions),
                   matches=len({p.match_id for p in predictions}),
                   brier=brier(predictions), naive_brier=naive_brier(predictions), bins=table,
                   by_point={point: (len(group), brier(group), naive_brier(group))
                             for point, group in points.items()})

    def worst_gap(self, at_least: int = 30) -> float:
        """The largest |observed - predicted| of a bin with ``at_least`` predictions."""
        return max((abs(b.gap) for b in self.bins if b.count >= at_least), default=0.0)

    def as_json(self) -> dict:
        return {"predictions": self.predictions, "matches": self.matches, "brier": self.brier,
                "naive_brier": self.naive_brier, "worst_gap_30": self.worst_gap(),
                "bins": [{"low": b.low, "count": b.count, "predicted": b.predicted,
                          "observed": b.observed, "interval": list(b.interval)}
                         for b in self.bins]}

    def markdown(self) -> str:
        """The reliability table, the Brier scores and the worst gap, as docs/odds.md has
        them."""
        lines = ["| predicted | predictions | mean predicted | won | 95% interval | gap |",
                 "|---|---|---|---|---|---|"]
        for b in self.bins:
            lines.append(f"| {b.low:.1f}–{b.low + 0.1:.1f} | {b.count} | {b.predicted:.3f} | "
                         f"{b.observed:.3f} | {b.interval[0]:.3f}–{b.interval[1]:.3f} | "
                         f"{100 * b.gap:+.1f} pp |")
        lines.append("")
        lines.append(f"{self.predictions} predictions in {self.matches} matches: Brier "
                     f"{self.brier:.4f} against {self.naive_brier:.4f} for the naive 1/n; "
                     f"largest gap of a bin with ≥ 30 predictions "
                     f"{100 * self.worst_gap():.1f} points.")
        lines.append("")
        lines.append("| point | predictions | Brier | naive 1/n |")
        lines.append("|---|---|---|---|")
        for point, (count, score, naive) in sorted(self.by_point.items(), key=_point_order):
            lines.append(f"| {point} | {count} | {score:.4f} | {naive:.4f} |")
        return "\n".join(lines)


def _point_order(item: tuple[str, Any]) -> tuple[int, int]:
    game, _, frame = item[0].removeprefix("g").partition("f")
    return int(game), int(frame)


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson's score interval of a proportion (ties count as fractions of a win).

    >>> [round(x, 3) for x in wilson(15, 50)]
    [0.191, 0.438]
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def brier(predictions: Iterable[Prediction]) -> float:
    return statistics.fmean((p.predicted - p.outcome) ** 2 for p in predictions)


def naive_brier(predictions: Iterable[Prediction]) -> float:
    """The Brier score of predicting 1/n for every bowler of an n-bowler match."""
    return statistics.fmean((1 / p.bowlers - p.outcome) ** 2 for p in predictions)


# Replaying a match to its prediction points ---------------------------------------------


def replay_points(events: Iterable[Event], frames: Sequence[int] = FRAMES
                  ) -> Iterator[tuple[str, MatchState]]:
    """The match's states at each prediction point (``g1f0``: before the first ball,
    ``g2f6``: once every bowler has bowled 6 frames of game 2), in order."""
    state: MatchState | None = None
    reached: set[str] = set()
    for event in events:
        if state is None:
            state = MatchState.empty(event.match_id)
        state.apply(event)
        if state.status not in LIVE or (event.type not in ("match_started", "ball_recorded")):
            continue
        for game in range(1, state.games + 1):
            for frame in frames:
                label = f"g{game}f{frame}"
                if label in reached or (frame == 0 and game > 1):
                    continue
                # Bowlers on two lanes go at their own pace: some may be further on.
                if all(_frames_done(state, bowler, game) >= frame for bowler in state.bowlers):
                    reached.add(label)
                    yield label, state.clone()


def _frames_done(state: MatchState, bowler: str, game: int) -> int:
    balls = state.balls[bowler][game - 1] if len(state.balls[bowler]) >= game else []
    if not balls:
        return 0
    try:
        played = rebuild_game(balls)
    except BowlingError:
        return 0
    return 10 if played.is_complete else played.current_frame - 1


def outcome_of(events: Sequence[Event]) -> dict[str, float] | None:
    """Each bowler's share of the win in the match's final result; None if it has none."""
    state = MatchState.empty(events[0].match_id)
    for event in events:
        state.apply(event)
    if state.result is None or state.status == "void":
        return None
    winners = state.result["winners"]
    return {bowler: (1 / len(winners) if bowler in winners else 0.0)
            for bowler in state.bowlers}


def games_of(match: PlayedMatch) -> dict[str, list[list[dict]]]:
    """Each bowler's complete games in the match (ledger ball records)."""
    state = MatchState.empty(match.events[0].match_id)
    for event in match.events:
        state.apply(event)
    return {bowler: [list(game) for game in state.balls[bowler]
                     if game and game[-1].get("completes_game")]
            for bowler in state.bowlers}


# Predicting held-out matches --------------------------------------------------------------


@dataclass(frozen=True)
class _DateJob:
    date: str
    matches: tuple[PlayedMatch, ...]
    history: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]]
    leagues: Mapping[str, str]
    iterations: int
    frames: tuple[int, ...]


def _predict_date(job: _DateJob) -> list[Prediction]:
    centre = CentreAverages.learn(job.history, leagues=job.leagues)
    predictions = []
    for match in job.matches:
        outcome = outcome_of(match.events)
        if outcome is None:
            continue
        for point, state in replay_points(match.events, job.frames):
            profiles = profiles_for(state.balls, centre, leagues=job.leagues,
                                    history={b: job.history.get(b, ()) for b in state.bowlers})
            seed = zlib.crc32(f"{match.match_id}/{point}".encode())
            odds = win_odds(state, iterations=job.iterations, seed=seed, profiles=profiles)
            if odds is None:
                continue
            predictions.extend(
                Prediction(match.match_id, point, bowler, odds.bowlers[bowler].win,
                           outcome[bowler], len(state.bowlers), match.date)
                for bowler in state.bowlers)
    return predictions


def predict_night(matches: Sequence[PlayedMatch],
                  history: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]],
                  leagues: Mapping[str, str], *, iterations: int = 200,
                  frames: Sequence[int] = FRAMES) -> list[Prediction]:
    """``matches`` (one night's) predicted at their points from ``history`` (each bowler's
    games from other matches) and ``leagues`` alone."""
    date = matches[0].date if matches else ""
    return _predict_date(_DateJob(date, tuple(matches), history, leagues, iterations,
                                  tuple(frames)))


def held_out_predictions(matches: Sequence[PlayedMatch], *, iterations: int = 200,
                         frames: Sequence[int] = FRAMES, processes: int = 1,
                         progress: Callable[[int, int], None] | None = None,
                         rolling: bool = False) -> list[Prediction]:
    """Every match predicted with each bowler's history from other dates only (the
    centre's prior too), ``iterations`` runs a prediction; ``progress(done, total)`` after
    each date.  ``rolling``: from *earlier* dates only, as the live odds know them (a
    centre's first night is predicted from nothing)."""
    games = {m.match_id: games_of(m) for m in matches}
    dates = sorted({m.date for m in matches})
    leagues: dict[str, str] = {}
    for m in matches:
        if m.league is not None:
            for bowler in games[m.match_id]:
                leagues[bowler] = m.league
    jobs = []
    for date in dates:
        history: dict[str, list[list[dict]]] = {}
        for m in matches:
            if m.date < date or (m.date != date and not rolling):
                for bowler, played in games[m.match_id].items():
                    history.setdefault(bowler, []).extend(played)
        jobs.append(_DateJob(date, tuple(m for m in matches if m.date == date), history,
                             leagues, iterations, tuple(frames)))
    results: list[Prediction] = []
    if processes <= 1:
        for done, job in enumerate(jobs, start=1):
            results.extend(_predict_date(job))
            if progress:
                progress(done, len(jobs))
        return results
    with ProcessPoolExecutor(processes) as pool:
        for done, found in enumerate(pool.map(_predict_date, jobs), start=1):
            results.extend(found)
            if progress:
                progress(done, len(jobs))
    return results
