"""The fast engine's ball tables draw from exactly the ball model's distribution.

For forms across the range of skills (and a bowler with offsets of their own), at a full
rack and at leaves of every kind: the chance of every outcome the tables give, read off
their running totals, against the model's chances worked out from its parts (rates, leave
tables, conversions; to 1e-12); balls drawn from the tables against balls drawn by
``BowlerProfile.ball`` itself, a two-sample chi-square per form and rack; the whole-frame
table against its two balls' chances; and seats' scripts bowled frame by frame against
scripts bowled ball by ball.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from math import comb

import pytest

from alley_poker.ledger.rules import RuleBook
from alley_poker.odds import ball_tables, seat_scripts
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.ball_tables import (
    _KIND_LEAVES,
    OPEN,
    SPARE,
    STRIKE,
    _miss_leaves,
    ball_table,
)
from alley_poker.odds.compact import FULL_RACK, MASK_PINS, PIN_MASK, Position
from alley_poker.odds.leaves import _FIRST_BALL_CLUSTERS, SPLITS

FORMS = [BowlerProfile.for_average("A", 40), BowlerProfile.for_average("B", 150),
         BowlerProfile.for_average("C", 250),
         BowlerProfile.for_average("D", 170, offsets=(0.3, -0.2, 0.1, 0.4, -0.3, 0.2))]
RACKS = [frozenset(range(1, 11)), frozenset({10}), frozenset({7, 10}), frozenset({3, 10}),
         frozenset({2, 4, 5, 8}), frozenset({1, 2, 3, 4, 5, 6, 7, 8, 9})]


def _form(profile, seed=3):
    return profile.for_game(random.Random(seed))


def _differences(totals, scale=1.0):
    previous = 0.0
    for total in totals:
        yield scale * (total - previous) / totals[-1]
        previous = total


def table_chances(table, mask) -> dict[tuple, float]:
    """Each outcome's chance as the table's running totals give it."""
    chances: Counter = Counter()
    chances[0, mask, True, False] += table.foul
    if mask == FULL_RACK:
        chances[0, mask, False, True] += table.gutter - table.foul
        chances[10, 0, False, False] += table.strike - table.gutter
        edges = [table.strike, *table.kinds[:-1], 1.0]
        for kind, (leaves, totals) in enumerate(_KIND_LEAVES):
            share = edges[kind + 1] - edges[kind]
            for leave, chance in zip(leaves, _differences(totals, share), strict=True):
                chances[10 - leave.bit_count(), leave, False, False] += chance
        return chances
    gutter, clear = table._later(mask)
    chances[0, mask, False, True] += gutter - table.foul
    chances[mask.bit_count(), 0, False, False] += clear - gutter
    leaves, totals = _miss_leaves(mask)
    for leave, chance in zip(leaves, _differences(totals, 1 - clear), strict=True):
        chances[mask.bit_count() - leave.bit_count(), leave, False, False] += chance
    return chances


def model_chances(form, standing) -> dict[tuple, float]:
    """Each outcome's chance worked out from the model's parts, as ``ball`` reads them."""
    rates = form._rates
    mask = PIN_MASK[standing]
    chances: Counter = Counter()
    chances[0, mask, True, False] += rates.foul
    if len(standing) == 10:
        chances[0, mask, False, True] += rates.gutter
        chances[10, 0, False, False] += rates.strike
        leave = 1 - rates.foul - rates.gutter - rates.strike
        total = sum(weight for _, weight in SPLITS)
        for pins, weight in SPLITS:
            chances[10 - len(pins), PIN_MASK[pins], False, False] += (
                leave * rates.split * weight / total)
        for size, share in enumerate(rates.leave_sizes, start=1):
            leaves, totals = _FIRST_BALL_CLUSTERS[size]
            for pins, chance in zip(leaves, _differences(totals), strict=True):
                chances[10 - len(pins), PIN_MASK[pins], False, False] += (
                    leave * (1 - rates.split) * share / sum(rates.leave_sizes) * chance)
        return chances
    chances[0, mask, False, True] += rates.gutter2
    hit = 1 - rates.foul - rates.gutter2
    clear = form.conversion_rate(standing)
    chances[len(standing), 0, False, False] += hit * clear
    n = len(standing)
    weight = 2 * n - 1
    for fallen in range(n):
        for left in _subsets(mask, n - fallen):
            chances[fallen, left, False, False] += (
                hit * (1 - clear) * (1 if fallen == 0 else 2) / weight / comb(n, n - fallen))
    return chances


def _subsets(mask: int, size: int):
    return [sub for sub in range(1, mask + 1) if sub & mask == sub and sub.bit_count() == size]


@pytest.mark.parametrize("profile", FORMS, ids=lambda p: p.name)
@pytest.mark.parametrize("standing", RACKS, ids=lambda s: "-".join(map(str, sorted(s))))
def test_the_tables_chances_are_the_models(profile, standing):
    form = _form(profile)
    want = model_chances(form, standing)
    got = table_chances(ball_table(form), PIN_MASK[standing])
    assert abs(sum(got.values()) - 1) < 1e-12
    assert set(got) == {outcome for outcome, chance in want.items() if chance > 0}
    for outcome, chance in want.items():
        assert got[outcome] == pytest.approx(chance, abs=1e-12), outcome


def _chi2_p(a: Counter, b: Counter) -> float:
    """Two-sample chi-square homogeneity p-value, outcomes seen fewer than 10 times in all
    pooled (Wilson-Hilferty's normal approximation)."""
    n_a, n_b = sum(a.values()), sum(b.values())
    rows, rare = [], [0, 0]
    for outcome in set(a) | set(b):
        if a[outcome] + b[outcome] < 10:
            rare[0] += a[outcome]
            rare[1] += b[outcome]
        else:
            rows.append((a[outcome], b[outcome]))
    if sum(rare) >= 10:
        rows.append(tuple(rare))
    statistic = 0.0
    for x, y in rows:
        pooled = (x + y) / (n_a + n_b)
        statistic += ((x - n_a * pooled) ** 2 / (n_a * pooled)
                      + (y - n_b * pooled) ** 2 / (n_b * pooled))
    df = len(rows) - 1
    if df <= 0:
        return 1.0
    z = ((statistic / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize("profile", FORMS[1:3], ids=lambda p: p.name)
@pytest.mark.parametrize("standing", RACKS[:3] + RACKS[4:5], ids=lambda s: str(len(s)))
def test_balls_from_the_tables_are_balls_from_the_model(profile, standing):
    form = _form(profile)
    table = ball_table(form)
    mask = PIN_MASK[standing]
    balls = 30_000
    model_rng, table_rng = random.Random(11), random.Random(12)
    model: Counter = Counter()
    for _ in range(balls):
        pins, leave, foul, gutter = form.ball(standing, model_rng)
        model[pins, PIN_MASK[leave], foul, gutter] += 1
    tables: Counter = Counter(table.ball(mask, table_rng.random) for _ in range(balls))
    # 8 comparisons: a false alarm once in 10,000 such runs of the test in all.
    assert _chi2_p(model, tables) > 1e-4 / 8


def test_other_models_have_no_tables():
    assert ball_table(BowlerProfile.for_average("A", 150)) is not None  # a default form
    mixture = BowlerProfile.mixture("M", tuple(FORMS[:2]))
    assert ball_table(mixture) is None
    assert ball_table(object()) is None
    assert ball_tables.ball_table(_form(mixture)) is not None
    assert MASK_PINS[FULL_RACK] == RACKS[0]


@pytest.mark.parametrize("profile", FORMS, ids=lambda p: p.name)
def test_a_whole_frame_is_its_two_balls(profile):
    table = ball_table(_form(profile))
    want: Counter = Counter()
    for (pins, after, foul, gutter), chance in table_chances(table, FULL_RACK).items():
        if pins == 10 and not foul:
            want[STRIKE, 10, 0, False, False] += chance
            continue
        for (second, left, foul2, gutter2), chance2 in table_chances(table, after).items():
            kind = SPARE if left == 0 and not foul2 else OPEN
            want[kind, pins, second, gutter, gutter2] += chance * chance2
    outcomes, totals = table.frames()
    got = {outcome: chance for outcome, chance
           in zip(outcomes, _differences([*totals[:-1], 1.0]), strict=True) if chance > 0}
    assert set(got) == {outcome for outcome, chance in want.items() if chance > 0}
    for outcome, chance in want.items():
        assert got.get(outcome, 0.0) == pytest.approx(chance, abs=1e-12), outcome


@pytest.mark.parametrize("book", [{}, {"gutter_detection": "full_rack",
                                       "streak_spans_games": True, "spare_cards": 0}])
def test_scripts_bowled_frame_by_frame_are_scripts_bowled_ball_by_ball(book, monkeypatch):
    fresh = Position(0, 1, 1, True, FULL_RACK, 10, False, 0, (), 0, None)
    rules = seat_scripts.ScriptRules.of(RuleBook.default().with_overrides(book), games=2)
    profile = BowlerProfile.for_average("Ann", 120)

    def features(frames: bool, seed: int) -> Counter:
        monkeypatch.setattr(seat_scripts, "FRAME_TABLES", frames)
        rng = random.Random(seed)
        seen: Counter = Counter()
        for _ in range(6000):
            events, series = seat_scripts.seat_script(fresh, 1, profile, rng, rules)
            seen["series", series // 20] += 1
            seen["cards", sum((event >> 2) & 15 for event in events)] += 1
            seen["gutters", sum(event & 1 for event in events)] += 1
            seen["strikes", sum(event >> 1 & 1 for event in events)] += 1
        return seen

    by_ball, by_frame = features(False, 21), features(True, 22)
    for feature in ("series", "cards", "gutters", "strikes"):
        a = Counter({key: n for key, n in by_ball.items() if key[0] == feature})
        b = Counter({key: n for key, n in by_frame.items() if key[0] == feature})
        assert _chi2_p(a, b) > 1e-4 / 8, feature
