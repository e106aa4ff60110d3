"""The centre's own settled matches correct the odds: a power of the chances, fitted on the
centre's earlier nights and shrunk to no correction while it has few matches
(docs/odds.md, "Self-correcting odds").

The failure it fits is the one a simulation makes when the spread of a game's form or of a
bowler's skill is under-stated: favourites overrated, underdogs underrated.  The map is one
number, a power ``a`` of each bowler's chance, renormalised over the match's bowlers::

    corrected(p_i) = p_i ** a / sum_j p_j ** a

``a < 1`` moves every chance toward the others (the favourite less of a favourite), ``a >
1`` away; ``a = 1`` is no correction.  It keeps the order of the bowlers (it is monotone in
each chance), the sum (1), a certainty (0 and 1 stay) and two equal chances equal; with two
bowlers it is temperature scaling of the log-odds.  One parameter, because a centre learns it
from a few dozen matches: a map with a knot per bin (isotonic) would chase each bin's noise.

It is fitted by the Brier score of the shares of the pot the bowlers took (each match
counting once, however many points it was predicted at; a proper score that, unlike the
log-likelihood, a 0.1 % chance that came true cannot dominate), with a prior for ``a = 1``
worth :data:`PRIOR_MATCHES` matches (the same predictions, coming true exactly as often
as predicted): the data must outweigh it, so a centre with no settled match gets exactly
no correction and one with a handful little.  Only the latest
:data:`WINDOW_NIGHTS` nights count: the correction follows the centre as it is.

A night is only ever corrected by the nights before it (:func:`rolling_corrections`): a
match never by itself or by anything bowled the same night.

>>> Correction(0.5).apply({"A": 0.8, "B": 0.2})
{'A': 0.6667, 'B': 0.3333}
>>> fit_correction([]).power
1.0
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from alley_poker.odds.calibration import Prediction, Report

#: The prior for no correction, in matches on which the model was right.  One upset moves
#: the power by about a twentieth; eight nights of a centre (70-100 matches) get about
#: two thirds of what they ask; 15 let one upset pull it to 0.8 (docs/odds.md).
PRIOR_MATCHES = 40.0
#: The correction follows the centre as it is: fitted on the latest this many nights (the
#: first nights' bowlers were known from little; a centre changes).
WINDOW_NIGHTS = 20
#: The powers a fit may reach: beyond them the data would have to be absurd.
POWER_BOUNDS = (0.25, 4.0)
@dataclass(frozen=True)
class Correction:
    """A power of the chances (``power``: 1 is none), and what it was fitted on."""

    power: float = 1.0
    matches: int = 0
    nights: int = 0

    @property
    def is_identity(self) -> bool:
        return self.power == 1.0

    def apply(self, chances: Mapping[str, float], digits: int = 4) -> dict[str, float]:
        """The corrected chances of one match's bowlers (they sum to 1, as ``chances`` do)."""
        if self.is_identity or not chances:
            return dict(chances)
        return {name: round(value, digits)
                for name, value in zip(chances, _powered(list(chances.values()), self.power),
                                       strict=True)}

    def as_json(self) -> dict:
        return {"power": round(self.power, 4), "matches": self.matches, "nights": self.nights}


IDENTITY = Correction()


def _powered(chances: Sequence[float], power: float) -> list[float]:
    raised = [max(p, 0.0) ** power for p in chances]
    total = sum(raised)
    if total <= 0:
        return list(chances)
    return [r / total for r in raised]


# Fitting ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Group:
    """One match at one point: its bowlers' predicted chances and the shares they took,
    weighted so a match counts once."""

    chances: tuple[float, ...]
    outcomes: tuple[float, ...]
    weight: float

    def brier(self, power: float) -> float:
        return sum((q - o) ** 2 for q, o in zip(_powered(self.chances, power), self.outcomes,
                                                strict=True))


def _groups(predictions: Iterable[Prediction]) -> tuple[list[_Group], int]:
    by_point: dict[tuple[str, str], list[Prediction]] = {}
    for p in predictions:
        by_point.setdefault((p.match_id, p.point), []).append(p)
    points_of: dict[str, int] = {}
    for match_id, _ in by_point:
        points_of[match_id] = points_of.get(match_id, 0) + 1
    groups = []
    for (match_id, _), rows in by_point.items():
        if len(rows) < 2 or all(p.predicted in (0.0, 1.0) for p in rows):
            continue  # a decided match says nothing of the power
        groups.append(_Group(tuple(p.predicted for p in rows), tuple(p.outcome for p in rows),
                             1 / points_of[match_id]))
    return groups, len(points_of)


def _brier(groups: Sequence[_Group], log_power: float) -> float:
    power = math.exp(log_power)
    return sum(g.weight * g.brier(power) for g in groups)


def fit_correction(predictions: Sequence[Prediction], *, prior_matches: float = PRIOR_MATCHES,
                   nights: int | None = None) -> Correction:
    """The power that best fits ``predictions`` (settled matches' predicted chances and the
    shares the bowlers took), shrunk toward 1 by a prior worth ``prior_matches`` matches."""
    groups, matches = _groups(predictions)
    return _fit(groups, matches, prior_matches,
                len({p.date for p in predictions}) if nights is None else nights)


def _fit(groups: Sequence[_Group], matches: int, prior_matches: float,
         nights: int) -> Correction:
    if not groups:
        return Correction(1.0, matches, nights)
    # The prior: ``prior_matches`` matches on which the model was right, made of the
    # predictions themselves with the shares taken equal to the chances predicted (their
    # Brier score is least at a = 1).  A pseudo-sample, not a curvature at a = 1, because
    # the score is bounded: one upset would otherwise pull a quadratic prior to the bounds.
    total = sum(g.weight for g in groups)
    believed = [_Group(g.chances, g.chances, g.weight * prior_matches / total) for g in groups]

    def objective(log_power: float) -> float:
        return _brier(groups, log_power) + _brier(believed, log_power)

    low, high = (math.log(b) for b in POWER_BOUNDS)
    log_power = _golden_minimum(objective, low, high)
    if abs(log_power) < 1e-3:
        log_power = 0.0
    return Correction(round(math.exp(log_power), 4), matches, nights)


def _golden_minimum(f, low: float, high: float, tolerance: float = 1e-3) -> float:
    """The minimum of a unimodal ``f`` on [low, high] (golden-section search)."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tolerance:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)
    return (a + b) / 2


# Out of sample: each night corrected by the nights before it --------------------------------


def rolling_corrections(predictions: Sequence[Prediction], *,
                        prior_matches: float = PRIOR_MATCHES,
                        window: int = WINDOW_NIGHTS) -> dict[str, Correction]:
    """For every night of ``predictions`` (their ``date``), the correction fitted on the
    latest ``window`` earlier nights' predictions only: what the live odds of that night
    would have applied."""
    by_night: dict[str, list[Prediction]] = {}
    for p in predictions:
        by_night.setdefault(p.date, []).append(p)
    corrections = {}
    earlier: list[tuple[list[_Group], int]] = []
    for night in sorted(by_night):
        kept = earlier[-window:]
        corrections[night] = _fit([g for groups, _ in kept for g in groups],
                                  sum(count for _, count in kept), prior_matches, len(kept))
        earlier.append(_groups(by_night[night]))
    return corrections


def corrected(predictions: Sequence[Prediction],
              corrections: Mapping[str, Correction]) -> list[Prediction]:
    """``predictions`` with each match's chances at each point corrected by its night's
    correction."""
    by_point: dict[tuple[str, str], list[Prediction]] = {}
    for p in predictions:
        by_point.setdefault((p.match_id, p.point), []).append(p)
    result = []
    for rows in by_point.values():
        correction = corrections.get(rows[0].date, IDENTITY)
        chances = _powered([p.predicted for p in rows], correction.power)
        result.extend(Prediction(p.match_id, p.point, p.bowler, chance, p.outcome, p.bowlers,
                                 p.date) for p, chance in zip(rows, chances, strict=True))
    return result


@dataclass(frozen=True)
class BeforeAfter:
    """The reliability of the odds as predicted and as corrected, on the nights whose
    correction had at least ``learn_nights`` earlier nights to learn from."""

    before: Report
    after: Report
    corrections: Mapping[str, Correction]
    learn_nights: int

    def markdown(self) -> str:
        judged = sorted(n for n, c in self.corrections.items() if c.nights >= self.learn_nights)
        powers = ", ".join(f"{self.corrections[n].power:.2f}" for n in judged)
        return "\n".join([
            f"Judged: {len(judged)} nights ({judged[0]} to {judged[-1]}), each corrected by "
            f"its earlier nights only (at least {self.learn_nights}).",
            f"The power applied, night by night: {powers}.", "",
            "**Before** (the model's own chances):", "", self.before.markdown(), "",
            "**After** (corrected):", "", self.after.markdown()])

    def as_json(self) -> dict:
        return {"learn_nights": self.learn_nights,
                "corrections": {n: c.as_json() for n, c in sorted(self.corrections.items())},
                "before": self.before.as_json(), "after": self.after.as_json()}


def before_and_after(predictions: Sequence[Prediction], *, learn_nights: int = 8,
                     prior_matches: float = PRIOR_MATCHES) -> BeforeAfter | None:
    """Out of sample: each night's predictions corrected by the nights before it, judged on
    the nights with ``learn_nights`` or more before them (None if there are none)."""
    corrections = rolling_corrections(predictions, prior_matches=prior_matches)
    judged = [p for p in predictions if corrections[p.date].nights >= learn_nights]
    if not judged:
        return None
    return BeforeAfter(Report.of(judged), Report.of(corrected(judged, corrections)),
                       corrections, learn_nights)


def correct_odds(odds: dict, correction: Correction) -> dict:
    """Published odds (``bowlers``: ``win`` and ``expected_cents`` each) with the chances
    corrected, and each bowler's expected share of the pot moved with their chance (the
    pot's total kept: a share is mostly the chance of taking the pot)."""
    bowlers = odds["bowlers"]
    wins = correction.apply({name: b["win"] for name, b in bowlers.items()})
    moved = {name: b["expected_cents"] * (wins[name] / b["win"] if b["win"] > 0 else 1.0)
             for name, b in bowlers.items()}
    total, kept = sum(moved.values()), sum(b["expected_cents"] for b in bowlers.values())
    scale = kept / total if total > 0 else 1.0
    return {**odds, "bowlers": {name: {**b, "win": wins[name],
                                       "expected_cents": round(moved[name] * scale)}
                                for name, b in bowlers.items()}}
