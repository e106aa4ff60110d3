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

It is fitted by the multinomial log-likelihood of the shares of the pot the bowlers took
(each match counting once, however many points it was predicted at) with a normal prior on
``log a`` worth :data:`PRIOR_MATCHES` matches at ``a = 1``: the data must outweigh it, so a
centre with no settled match gets exactly no correction and one with a handful nearly none.
The prior's precision is those matches' Fisher information at ``a = 1`` (the variance of
``log p`` under ``p``, per match), so it is as strong against confident predictions as
against vague ones.

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

#: The prior on ``log a``: as strong as this many matches' information at ``a = 1``.  Half
#: the correction the data ask for at about this many matches (a night or two of a centre);
#: most of it by eight nights.
PRIOR_MATCHES = 15.0
#: The powers a fit may reach: beyond them the data would have to be absurd.
POWER_BOUNDS = (0.25, 4.0)
#: Chances are kept this far from 0 and 1 in the fit (a prediction of 0 that came true
#: must not make the likelihood infinite).
_FLOOR = 1e-4


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
    """One match at one point: its bowlers' predicted log-chances and the shares they took,
    weighted so a match counts once."""

    logs: tuple[float, ...]
    outcomes: tuple[float, ...]
    weight: float


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
        logs = tuple(math.log(min(1 - _FLOOR, max(_FLOOR, p.predicted))) for p in rows)
        groups.append(_Group(logs, tuple(p.outcome for p in rows), 1 / points_of[match_id]))
    return groups, len(points_of)


def _derivatives(groups: Sequence[_Group], power: float) -> tuple[float, float]:
    """The first and second derivatives of the weighted log-likelihood in ``power``: the
    shares taken times ``log p`` less their expectation under the corrected chances, and
    minus the variance of ``log p`` under them (the likelihood is concave in the power)."""
    first = second = 0.0
    for g in groups:
        top = max(g.logs)
        raised = [math.exp((x - top) * power) for x in g.logs]
        norm = sum(raised)
        mean = sum(r * x for r, x in zip(raised, g.logs, strict=True)) / norm
        variance = sum(r * (x - mean) ** 2 for r, x in zip(raised, g.logs, strict=True)) / norm
        taken = sum(g.outcomes)
        first += g.weight * (sum(o * x for o, x in zip(g.outcomes, g.logs, strict=True))
                             - taken * mean)
        second -= g.weight * taken * variance
    return first, second


def _information(groups: Sequence[_Group]) -> float:
    """The Fisher information about ``log a`` at ``a = 1``, summed with the groups' weights:
    the variance of ``log p`` under the predicted chances."""
    total = 0.0
    for g in groups:
        chances = [math.exp(x) for x in g.logs]
        norm = sum(chances)
        mean = sum(c * x for c, x in zip(chances, g.logs, strict=True)) / norm
        total += g.weight * sum(c * (x - mean) ** 2 for c, x in zip(chances, g.logs,
                                                                    strict=True)) / norm
    return total


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
    per_match = _information(groups) / max(sum(g.weight for g in groups), 1e-9)
    precision = prior_matches * per_match
    # Newton's method on the power, the prior on its log: a handful of steps.
    low, high = POWER_BOUNDS
    power = 1.0
    for _ in range(30):
        first, second = _derivatives(groups, power)
        log_power = math.log(power)
        first -= precision * log_power / power
        second -= precision * (1 - log_power) / power ** 2
        if second >= 0:
            break
        step = -first / second
        power = min(high, max(low, power + max(-power / 2, min(power, step))))
        if abs(step) < 1e-6:
            break
    log_power = math.log(power)
    if abs(log_power) < 1e-4:
        log_power = 0.0
    return Correction(round(math.exp(log_power), 4), matches, nights)


# Out of sample: each night corrected by the nights before it --------------------------------


def rolling_corrections(predictions: Sequence[Prediction], *,
                        prior_matches: float = PRIOR_MATCHES) -> dict[str, Correction]:
    """For every night of ``predictions`` (their ``date``), the correction fitted on the
    earlier nights' predictions only: what the live odds of that night would have applied."""
    by_night: dict[str, list[Prediction]] = {}
    for p in predictions:
        by_night.setdefault(p.date, []).append(p)
    corrections = {}
    earlier: list[_Group] = []
    matches = 0
    for index, night in enumerate(sorted(by_night)):
        corrections[night] = _fit(earlier, matches, prior_matches, index)
        groups, count = _groups(by_night[night])
        earlier.extend(groups)
        matches += count
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
