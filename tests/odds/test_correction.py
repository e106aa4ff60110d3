"""The self-correcting odds: the correction is a monotone map of a match's chances that sums
to 1, is exactly no correction with no settled match, fits an overconfident forecaster and
leaves an honest one alone, and a night is never corrected by itself or by what came after
it (docs/odds.md, "Self-correcting odds")."""

from __future__ import annotations

import random

from alley_poker.odds.calibration import Prediction
from alley_poker.odds.correction import (
    IDENTITY,
    Correction,
    before_and_after,
    correct_odds,
    fit_correction,
    rolling_corrections,
)
from alley_poker.service.odds_correction import CorrectionLearner
from benchmarks._generated_centre import generated_matches


def _forecasts(sharpen: float, matches: int, *, seed: int = 1, nights: int = 10,
               bowlers: int = 3) -> list[Prediction]:
    """Matches whose bowlers truly win with chances q, forecast as q sharpened (1: honest;
    above 1: overconfident, favourites overrated), spread over ``nights`` nights."""
    rng = random.Random(seed)
    predictions = []
    for index in range(matches):
        raw = [rng.random() ** 2 for _ in range(bowlers)]
        q = [r / sum(raw) for r in raw]
        shown = [x ** sharpen for x in q]
        shown = [x / sum(shown) for x in shown]
        winner = rng.choices(range(bowlers), weights=q)[0]
        night = f"2026-01-{1 + index * nights // matches:02d}"
        predictions += [Prediction(f"m{index}", "g1f0", f"B{i}", shown[i],
                                   1.0 if i == winner else 0.0, bowlers, night)
                        for i in range(bowlers)]
    return predictions


def test_with_no_settled_match_the_correction_is_none():
    assert fit_correction([]) == Correction(1.0, 0, 0)
    chances = {"Ann": 0.7, "Bob": 0.2, "Cy": 0.1}
    assert IDENTITY.apply(chances) == chances


def test_the_corrected_chances_keep_the_bowlers_order_and_sum_to_one():
    rng = random.Random(3)
    for _ in range(300):
        raw = [rng.random() for _ in range(rng.randint(2, 6))]
        chances = {f"B{i}": r / sum(raw) for i, r in enumerate(raw)}
        power = rng.choice([0.3, 0.6, 0.9, 1.3, 2.5])
        fixed = Correction(power).apply(chances, digits=12)
        assert abs(sum(fixed.values()) - 1) < 1e-9
        order = sorted(chances, key=chances.get)
        assert sorted(fixed, key=fixed.get) == order
        # Below 1 the favourite is less of a favourite; above 1, more.
        top = order[-1]
        assert (fixed[top] <= chances[top] + 1e-12) == (power < 1)
    assert Correction(0.5).apply({"A": 1.0, "B": 0.0}) == {"A": 1.0, "B": 0.0}


def test_it_learns_an_overconfident_forecaster_and_leaves_an_honest_one_alone():
    overconfident = fit_correction(_forecasts(2.0, 800))
    honest = fit_correction(_forecasts(1.0, 800, seed=2))
    # (Short of the true 0.5: the fit does not trust chances below a point.)
    assert 0.45 < overconfident.power < 0.75, overconfident
    assert 0.9 < honest.power < 1.1, honest
    # A handful of matches move it part of the way; one barely: the prior outweighs them.
    few = fit_correction(_forecasts(2.0, 6, seed=4))
    assert few.power > overconfident.power + 0.05, few
    assert fit_correction(_forecasts(2.0, 1, seed=4)).power > 0.9


def test_a_night_is_corrected_only_by_the_nights_before_it():
    predictions = _forecasts(2.0, 200, nights=10)
    corrections = rolling_corrections(predictions)
    nights = sorted(corrections)
    assert corrections[nights[0]] == Correction(1.0, 0, 0)  # the first night: nothing before
    middle = nights[5]
    # Whatever happened on that night and after it, its correction is the same.
    flipped = [p if p.date < middle else Prediction(p.match_id, p.point, p.bowler,
                                                    p.predicted, 1 - p.outcome, p.bowlers,
                                                    p.date)
               for p in predictions]
    assert rolling_corrections(flipped)[middle] == corrections[middle]
    assert rolling_corrections(flipped)[nights[6]] != corrections[nights[6]]


def test_out_of_sample_the_correction_brings_the_favourites_back_to_what_they_win():
    result = before_and_after(_forecasts(2.0, 1200, nights=16), learn_nights=8)
    assert result is not None
    assert result.before.worst_gap() > 0.05
    assert result.after.worst_gap() < result.before.worst_gap() / 2
    assert result.after.brier < result.before.brier
    assert "**After** (corrected)" in result.markdown()


def test_the_published_odds_are_corrected_with_their_expected_shares():
    odds = {"seq": 9, "iterations": 4000, "exact": False, "settled": True,
            "bowlers": {"Ann": {"win": 0.8, "expected_cents": 160},
                        "Bob": {"win": 0.2, "expected_cents": 40}}}
    fixed = correct_odds(odds, Correction(0.5))
    assert fixed["bowlers"]["Ann"]["win"] == 0.6667
    assert fixed["bowlers"]["Ann"]["expected_cents"] == 133
    assert sum(b["expected_cents"] for b in fixed["bowlers"].values()) == 200
    assert odds["bowlers"]["Ann"]["win"] == 0.8  # the odds given are left as they were


def test_the_live_correction_of_a_night_never_reads_that_night_or_later():
    # By construction: a learner that has seen every night corrects night N exactly as one
    # that has seen only the nights before N.
    matches = generated_matches(seed=4, nights=3, bowlers=6)
    nights = sorted({m.date for m in matches})
    everything, earlier = (CorrectionLearner(iterations=20, frames=(0,)) for _ in range(2))
    everything.refresh(matches)
    earlier.refresh([m for m in matches if m.date < nights[2]])
    assert everything.matches == len(matches)
    assert everything.correction_for(nights[2]) == earlier.correction_for(nights[2])
    assert everything.correction_for(nights[0]) == IDENTITY
