"""Each bowler's ball model for the odds, learnt from balls: the centre's bowlers, then the
league's, then the bowler's own (docs/odds.md, "Learning a bowler").

Three levels, each an empirical-Bayes shrinkage toward the one above:

1. **The centre** (:meth:`CentreAverages.learn`): every recorded ball of the centre's
   bowlers, pooled, moves the six rate offsets (:data:`~alley_poker.odds.rates.OFFSET_NAMES`)
   away from bowling's published curves (a centre's lanes are oiled its own way); the spread
   of its bowlers' offsets and averages gives the weights of the levels below; the learnt
   bowlers themselves are the *mixture* a bowler with no history is drawn from.
2. **The league** (``league`` of :func:`profiles_for`): the league's bowlers' pooled balls
   move the centre's offsets, each as far as the league's evidence outweighs the spread of
   leagues (a fixed prior, docs/odds.md).
3. **The bowler**: their own balls move the league's offsets, their games their average.

An offset moves by one Newton step of a normal prior on it: ``θ = θ_parent + (hits −
expected) / (information + λ)``, with ``expected`` and ``information`` (Σ p(1-p)) at the
parent's rates, and ``λ = 1/τ²`` where τ is how much bowlers (or leagues) differ.  The
average shrinks the same way: ``(n·mean/σ² + μ/τ²) / (n/σ² + 1/τ²)``.

>>> game = [{"frame": f, "ball": 1, "pins": 10, "standing": [], "mark": "strike",
...          "gutter_ball": False, "foul": False} for f in range(1, 10)]
>>> centre = CentreAverages(average=150)
>>> hot = learn_profile("ANN", game, centre)
>>> centre.profile("ANN").strike_rate < hot.strike_rate < 1.0
True
>>> learn_profile("BOB", [], centre).members != ()   # nobody knows Bob: the centre's mix
True
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alley_poker.bowling import BowlingError
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.odds.ball_model import AVERAGES, FORM_SD, BowlerProfile
from alley_poker.odds.leaves import SPLIT_CLASS
from alley_poker.odds.rates import (
    NO_OFFSETS,
    OFFSET_NAMES,
    Rates,
    average_for,
    skill_for_average,
)

#: How much bowlers differ from their centre (τ of each offset, log-odds) when the centre
#: has too few bowlers to say: strikes, gutters, leave size, splits, single pins, clusters.
DEFAULT_BOWLER_TAU = (0.5, 0.6, 0.4, 0.4, 0.6, 0.5)
#: How much leagues differ from their centre (τ, log-odds): the same lanes, other bowlers.
LEAGUE_TAU = 0.25
#: How much centres differ from bowling's published curves (τ, log-odds): oil and pins.
CENTRE_TAU = 0.5
#: A game's standard deviation around the bowler's average (pins), until the centre's games
#: say otherwise.
DEFAULT_GAME_SD = 28.0
#: A book or league average counts as this many games of the bowler's.
KNOWN_AVERAGE_GAMES = 9
#: Members of the mixture for a centre that knows no bowler: quantiles of a normal.
_UNKNOWN_MEMBERS = 9
_MIN_BOWLERS = 5  # fewer learnt bowlers than this: the spreads are the defaults
_FULL = frozenset(range(1, 11))


@dataclass
class Counts:
    """What a bowler's balls say about each rate: (hits, chances) per kind of ball, and
    their complete games' scores."""

    gutter: list[int] = field(default_factory=lambda: [0, 0])   # full racks, not fouls
    strike: list[int] = field(default_factory=lambda: [0, 0])   # full racks, not gutters
    split: list[int] = field(default_factory=lambda: [0, 0])    # leaves of a first ball
    leave: list[int] = field(default_factory=lambda: [0, 0])    # (pins left - 1, leaves)
    single: list[int] = field(default_factory=lambda: [0, 0])   # one pin standing
    multi: list[tuple[int, str | None, bool]] = field(default_factory=list)  # size, split, hit
    scores: list[int] = field(default_factory=list)
    balls: int = 0

    def add(self, other: Counts) -> None:
        for name in ("gutter", "strike", "split", "leave", "single"):
            mine, theirs = getattr(self, name), getattr(other, name)
            mine[0] += theirs[0]
            mine[1] += theirs[1]
        self.multi.extend(other.multi)
        self.scores.extend(other.scores)
        self.balls += other.balls


def count_games(games: Iterable[Sequence[Mapping[str, Any]]]) -> Counts:
    """Counts of ledger ball records, one game (a list of balls in order) at a time."""
    counts = Counts()
    for balls in games:
        facing: frozenset[int] | None = _FULL
        for ball in balls:
            counts.balls += 1
            after = ball.get("standing")
            after = None if after is None else frozenset(after)
            if facing is None or ball.get("foul"):
                pass  # a foul says nothing of the rates; unknown pins, nothing to classify
            elif len(facing) == 10:
                gutter = bool(ball.get("gutter_ball") or ball.get("gutter"))
                counts.gutter[0] += gutter
                counts.gutter[1] += 1
                if not gutter:
                    counts.strike[0] += ball.get("pins") == 10
                    counts.strike[1] += 1
                    if after and ball.get("pins") != 10:
                        split = after in SPLIT_CLASS or ball.get("split") is not None
                        counts.split[0] += split
                        counts.split[1] += 1
                        if not split:
                            counts.leave[0] += len(after) - 1
                            counts.leave[1] += 1
            elif not (ball.get("gutter_ball") or ball.get("gutter")):
                cleared = ball.get("pins") == len(facing)
                if len(facing) == 1:
                    counts.single[0] += cleared
                    counts.single[1] += 1
                else:
                    split = SPLIT_CLASS.get(facing) or ("wide" if ball.get("split_pickup")
                                                        else None)
                    counts.multi.append((len(facing), split, cleared))
            facing = _next_facing(ball, after, facing)
        score = _score(balls)
        if score is not None:
            counts.scores.append(score)
    return counts


def _next_facing(ball: Mapping[str, Any], after: frozenset[int] | None,
                 facing: frozenset[int] | None) -> frozenset[int] | None:
    """The pins the next ball faces: a fresh rack after a frame ends or a rack is cleared."""
    frame, number = ball.get("frame", 1), ball.get("ball", 1)
    if frame < 10 and (number == 2 or ball.get("mark") == "strike" or after == frozenset()):
        return _FULL
    if after == frozenset() or ball.get("mark") in ("strike", "spare"):
        return _FULL
    if ball.get("foul"):
        return facing
    return after


def _score(balls: Sequence[Mapping[str, Any]]) -> int | None:
    if not balls or not balls[-1].get("completes_game"):
        return None
    try:
        game = rebuild_game(list(balls))
        return game.score() if game.is_complete else None
    except BowlingError:
        return None


# Shrinkage --------------------------------------------------------------------------------


def _bernoulli_step(hits: float, probabilities: Iterable[float]) -> tuple[float, float]:
    """(hits - expected, information) of Bernoulli chances at ``probabilities``."""
    expected = information = 0.0
    for p in probabilities:
        expected += p
        information += p * (1 - p)
    return hits - expected, information


def _evidence(counts: Counts, rates: Rates) -> list[tuple[float, float]]:
    """Per offset, (hits - expected, information) of ``counts`` at ``rates``."""
    hit = 1 - rates.foul
    gutter = min(rates.gutter / hit, 0.999)
    strike = min(rates.strike / max(hit - rates.gutter, 1e-9), 0.999)
    leave_hits, leaves = counts.leave
    multi_hits = sum(cleared for _, _, cleared in counts.multi)
    return [
        _bernoulli_step(counts.strike[0], [strike] * counts.strike[1]),
        _bernoulli_step(counts.gutter[0], [gutter] * counts.gutter[1]),
        # Leave size: 8 pins that may stand, over-dispersed (a beta-binomial's variance is
        # twice the binomial's at the model's spread), so half the information.
        (leave_hits - 8 * leaves * rates.leave_p,
         4 * leaves * rates.leave_p * (1 - rates.leave_p)),
        _bernoulli_step(counts.split[0], [rates.split] * counts.split[1]),
        _bernoulli_step(counts.single[0], [rates.conversion_of(1, None)] * counts.single[1]),
        _bernoulli_step(multi_hits, [rates.conversion_of(size, split)
                                     for size, split, _ in counts.multi]),
    ]


def shrink_offsets(counts: Counts, skill: float, parent: tuple[float, ...],
                   precisions: Sequence[float]) -> tuple[float, ...]:
    """The offsets ``counts`` say, each shrunk toward ``parent`` with prior precision λ."""
    rates = Rates(skill, parent)
    return tuple(theta + residual / (information + precision)
                 for theta, (residual, information), precision
                 in zip(parent, _evidence(counts, rates), precisions, strict=True))


def shrink_average(scores: Sequence[int], prior_mean: float, prior_sd: float,
                   game_sd: float) -> float:
    """The bowler's true average: their games' mean, shrunk toward ``prior_mean``."""
    if not scores:
        return prior_mean
    weight = len(scores) / game_sd ** 2
    prior = 1 / prior_sd ** 2
    return (weight * statistics.fmean(scores) + prior * prior_mean) / (weight + prior)


def average_uncertainty(games: int, prior_sd: float, game_sd: float) -> float:
    """The standard deviation of a bowler's true average once ``games`` games are known
    (the posterior of :func:`shrink_average`): the prior's spread with none, about
    ``game_sd / sqrt(games)`` with many."""
    return 1 / math.sqrt(games / game_sd ** 2 + 1 / prior_sd ** 2)


def form_sd_known_from(average_sd: float, average: float,
                       offsets: tuple[float, ...] = NO_OFFSETS) -> float:
    """The spread of a game's skill for a bowler whose average is known to ±``average_sd``
    pins: the game's own form (:data:`FORM_SD`) and the doubt about the bowler's skill,
    added as variances (docs/odds.md, "Honest about thin knowledge").  A bowler known from
    two games is drawn from a wider spread than one known from twenty."""
    skill = skill_for_average(average, FORM_SD, offsets)
    step = 0.01
    pins_per_skill = (average_for(skill + step, FORM_SD, offsets)
                      - average_for(skill - step, FORM_SD, offsets)) / (2 * step)
    skill_sd = average_sd / max(pins_per_skill, 1.0)
    return round(math.sqrt(FORM_SD ** 2 + skill_sd ** 2), 4)


def _clamp_average(value: float) -> int:
    low, high = AVERAGES
    return round(min(high, max(low, value)))


# The centre -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CentreAverages:
    """What the centre's bowlers do: the prior every bowler's model starts from.

    Made by hand, it is a centre whose bowlers average ``average`` with a spread of
    ``spread`` pins (a bowler with no history is one of them, nobody knows which); made by
    :meth:`learn` from the centre's recorded games, it holds the centre's own bowlers.
    """

    average: int = 150
    spread: float = 35.0
    #: The centre's offsets from bowling's curves (log-odds), and leagues' from the centre's.
    offsets: tuple[float, ...] = NO_OFFSETS
    leagues: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    #: λ of each offset for a bowler (1/τ², τ: how much the centre's bowlers differ).
    precisions: tuple[float, ...] = tuple(1 / tau ** 2 for tau in DEFAULT_BOWLER_TAU)
    game_sd: float = DEFAULT_GAME_SD
    #: The centre's bowlers as learnt: who a bowler with no history may be.
    bowlers: tuple[BowlerProfile, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        low, high = AVERAGES
        if not low <= self.average <= high:
            raise ValueError(f"centre average {self.average} is outside {low}-{high}")

    def profile(self, name: str) -> BowlerProfile:
        """A bowler the centre has never seen, named ``name``: one of its bowlers."""
        if self.bowlers:
            return BowlerProfile.mixture(name, self.bowlers)
        members = tuple(
            BowlerProfile.for_average(name, _clamp_average(
                self.average + self.spread * _normal_quantile((i + 0.5) / _UNKNOWN_MEMBERS)),
                offsets=self.offsets)
            for i in range(_UNKNOWN_MEMBERS))
        return BowlerProfile.mixture(name, members)

    def league_offsets(self, league: str | None) -> tuple[float, ...]:
        return self.leagues.get(league, self.offsets) if league is not None else self.offsets

    @classmethod
    def learn(cls, history: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]], *,
              leagues: Mapping[str, str] | None = None, average: int = 150,
              spread: float = 35.0) -> CentreAverages:
        """The centre as its recorded games show it: ``history`` is each bowler's games
        (ledger ball records), ``leagues`` the league each bowler bowls in, where known.
        With no games it is ``CentreAverages(average, spread)``."""
        counts = {name: count_games(games) for name, games in history.items()}
        counts = {name: c for name, c in counts.items() if c.balls}
        if not counts:
            return cls(average=average, spread=spread)
        game_sd = _pooled_game_sd(counts.values())
        means = [statistics.fmean(c.scores) for c in counts.values() if c.scores]
        if len(means) >= 2:
            mean = statistics.fmean(means)
            games_each = statistics.fmean(len(c.scores) for c in counts.values() if c.scores)
            between = statistics.pvariance(means) - game_sd ** 2 / games_each
            spread = math.sqrt(max(between, 10.0 ** 2))
            average = _clamp_average(mean)
        skills = {name: skill_for_average(shrink_average(c.scores, average, spread, game_sd),
                                          FORM_SD) for name, c in counts.items()}
        # Level 1: the centre's pooled balls against the curves.
        offsets = NO_OFFSETS
        centre_precision = (1 / CENTRE_TAU ** 2,) * len(OFFSET_NAMES)
        for _ in range(2):  # two Newton steps: the pooled evidence is large
            total_res = [0.0] * len(OFFSET_NAMES)
            total_info = [0.0] * len(OFFSET_NAMES)
            for name, c in counts.items():
                for i, (res, info) in enumerate(_evidence(c, Rates(skills[name], offsets))):
                    total_res[i] += res
                    total_info[i] += info
            offsets = tuple(o + r / (i + p) for o, r, i, p
                            in zip(offsets, total_res, total_info, centre_precision,
                                   strict=True))
        precisions = _bowler_precisions(counts, skills, offsets)
        # Level 2: each league's pooled balls against the centre.
        league_offsets = {}
        for league in sorted(set((leagues or {}).values())):
            members = [name for name, league_of in (leagues or {}).items()
                       if league_of == league and name in counts]
            evidence = [_evidence(counts[name], Rates(skills[name], offsets))
                        for name in members]
            league_offsets[league] = tuple(
                o + sum(e[i][0] for e in evidence) / (sum(e[i][1] for e in evidence)
                                                      + 1 / LEAGUE_TAU ** 2)
                for i, o in enumerate(offsets))
        centre = cls(average=average, spread=spread, offsets=offsets, leagues=league_offsets,
                     precisions=precisions, game_sd=game_sd)
        bowlers = tuple(centre.learnt(name, c, league=(leagues or {}).get(name))
                        for name, c in sorted(counts.items()))
        return cls(average=average, spread=spread, offsets=offsets, leagues=league_offsets,
                   precisions=precisions, game_sd=game_sd, bowlers=bowlers)

    def learnt(self, name: str, counts: Counts, *, league: str | None = None,
               known_average: int | None = None) -> BowlerProfile:
        """Level 3: a bowler from their own counts (and a book or league average)."""
        prior_mean, prior_sd = float(self.average), self.spread
        if known_average is not None:
            prior_mean = float(known_average)
            prior_sd = self.game_sd / math.sqrt(KNOWN_AVERAGE_GAMES)
        average = shrink_average(counts.scores, prior_mean, prior_sd, self.game_sd)
        parent = self.league_offsets(league)
        skill = skill_for_average(average, FORM_SD, parent)
        offsets = tuple(round(o, 6) for o in shrink_offsets(counts, skill, parent,
                                                             self.precisions))
        # The average is what the games say; the offsets say how the bowler makes it.  How
        # sure the games are of it reaches the chances: the skill is drawn anew for each
        # game of a run, around the average, as widely as the games leave it in doubt.
        form_sd = form_sd_known_from(
            average_uncertainty(len(counts.scores), prior_sd, self.game_sd), average,
            offsets)
        skill = skill_for_average(average, form_sd, offsets)
        clamped = _clamp_average(average)
        return BowlerProfile(name=name, average=clamped,
                             handicap=max(0, int(0.9 * (220 - clamped))), skill=skill,
                             form_sd=form_sd, offsets=offsets)


def _pooled_game_sd(counts: Iterable[Counts]) -> float:
    """The standard deviation of a game around its bowler's own mean, pooled."""
    squares = degrees = 0.0
    for c in counts:
        if len(c.scores) >= 2:
            mean = statistics.fmean(c.scores)
            squares += sum((s - mean) ** 2 for s in c.scores)
            degrees += len(c.scores) - 1
    return math.sqrt(squares / degrees) if degrees >= 10 else DEFAULT_GAME_SD


def _bowler_precisions(counts: Mapping[str, Counts], skills: Mapping[str, float],
                       offsets: tuple[float, ...]) -> tuple[float, ...]:
    """λ = 1/τ² of each offset, τ² the bowlers' spread beyond their own noise (method of
    moments: the variance of each bowler's raw offset, less its sampling variance)."""
    if len(counts) < _MIN_BOWLERS:
        return tuple(1 / tau ** 2 for tau in DEFAULT_BOWLER_TAU)
    result = []
    for i, default in enumerate(DEFAULT_BOWLER_TAU):
        raw, noise = [], []
        for name, c in counts.items():
            residual, information = _evidence(c, Rates(skills[name], offsets))[i]
            if information >= 2.0:
                raw.append(residual / information)
                noise.append(1 / information)
        if len(raw) < _MIN_BOWLERS:
            result.append(1 / default ** 2)
            continue
        tau2 = statistics.fmean(r * r for r in raw) - statistics.fmean(noise)
        # Bounded: at least 0.15 (no centre's bowlers are all alike), at most 1.5.
        tau = min(1.5, max(0.15, math.sqrt(max(tau2, 0.0))))
        result.append(1 / tau ** 2)
    return tuple(result)


def _normal_quantile(q: float) -> float:
    return statistics.NormalDist().inv_cdf(q)


# What the engine calls --------------------------------------------------------------------


def learn_profile(name: str, balls: Iterable[Mapping[str, Any]],
                  centre: CentreAverages, average: int | None = None, *,
                  league: str | None = None,
                  history: Sequence[Sequence[Mapping[str, Any]]] = ()) -> BowlerProfile:
    """The ball model of ``name`` from the balls they bowled (``balls``, ledger ball
    records of one match, in order; ``history``, their games from other matches) and their
    known ``average`` (league or book) when there is one.  A bowler with neither balls nor
    average is one of the centre's bowlers, nobody knows which (a mixture).

    >>> learn_profile("CY", [], CentreAverages(), average=205).average
    205
    """
    games = [list(game) for game in history] + _split_games(list(balls))
    counts = count_games(games)
    if not counts.balls and average is None:
        return centre.profile(name)
    if not counts.scores and average is None:
        return _posterior_mixture(name, counts, centre)
    return centre.learnt(name, counts, league=league,
                         known_average=None if average is None else _clamp_average(average))


def _split_games(balls: list[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """Ball records of one or more games in a row, cut where a game completes."""
    games: list[list[Mapping[str, Any]]] = [[]]
    for ball in balls:
        games[-1].append(ball)
        if ball.get("completes_game"):
            games.append([])
    return [game for game in games if game]


def _posterior_mixture(name: str, counts: Counts, centre: CentreAverages) -> BowlerProfile:
    """A bowler seen for a few balls only: the centre's bowlers, each weighted by how likely
    it would have bowled those balls (Bayes' rule), as an equal-weight mixture drawn from."""
    prior = centre.profile(name).members
    logs = []
    for member in prior:
        rates = Rates(member.skill, member.offsets, member.foul_rate)
        log_likelihood = 0.0
        for (hits, chances), p in (
                (counts.gutter, min(rates.gutter / (1 - rates.foul), 0.999)),
                (counts.strike, min(rates.strike / max(1 - rates.foul - rates.gutter, 1e-9),
                                    0.999)),
                (counts.single, rates.conversion_of(1, None))):
            log_likelihood += (hits * math.log(max(p, 1e-9))
                               + (chances - hits) * math.log(max(1 - p, 1e-9)))
        hits, leaves = counts.leave
        log_likelihood += (hits * math.log(max(rates.leave_p, 1e-9))
                           + (8 * leaves - hits) * math.log(max(1 - rates.leave_p, 1e-9))) / 2
        logs.append(log_likelihood)
    top = max(logs)
    weights = [math.exp(value - top) for value in logs]
    # An equal-weight mixture of draws in proportion to the weights (a mixture's members
    # are equally likely): 4 copies of each member's expected share, at least one slot.
    total = sum(weights)
    slots = len(prior) * 4
    members = tuple(member for member, weight in zip(prior, weights, strict=True)
                    for _ in range(round(slots * weight / total)))
    return BowlerProfile.mixture(name, members or (prior[weights.index(max(weights))],))


def profiles_for(balls_by_bowler: Mapping[str, list[list[dict]]],
                 centre: CentreAverages,
                 averages: Mapping[str, int] | None = None, *,
                 leagues: Mapping[str, str] | None = None,
                 history: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]] | None = None,
                 ) -> dict[str, BowlerProfile]:
    """A model for every bowler of a match from its ``MatchState.balls`` (per bowler, per
    game), each bowler's games from other matches (``history``), their known average
    (``averages``) and league (``leagues``), all by name."""
    averages, leagues, history = averages or {}, leagues or {}, history or {}
    return {bowler: learn_profile(bowler, (ball for game in games for ball in game), centre,
                                  averages.get(bowler), league=leagues.get(bowler),
                                  history=history.get(bowler, ()))
            for bowler, games in balls_by_bowler.items()}
