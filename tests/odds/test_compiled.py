"""The compiled fast engine (alley_poker/odds/_card_play.c) against the Python it was written
from: the same hand values, the same card lost, and on every recorded state the very same
odds, run for run (the balls and the cards of both draw the same random numbers), so the
differential test that holds the Python to the ledger holds the C to it too.

The module is built by ``pip install -e .`` (./dev setup); without a C compiler the odds
play in Python, so these tests skip there (and fail under CI, which must test the C).
"""

from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.odds import compiled
from alley_poker.odds import fast as fast_engine
from alley_poker.odds.compact import JOKER_A, JOKER_B, HandJudge, compile_start
from alley_poker.odds.fast import WarmRuns, fast_win_odds
from benchmarks._practice_match import PracticeMatch
from tests.conftest import skip_or_fail
from tests.odds.differential_states import covering_states, recorded_states


@pytest.fixture(autouse=True)
def _built():
    if not compiled.AVAILABLE:
        skip_or_fail("alley_poker.odds._card_play is not built (pip install -e . builds it; "
                     "it needs a C compiler)")


JUDGES = [HandJudge(wild_may_duplicate=copies, max_wilds_vs_naturals=capped, morgan=True)
          for copies in (True, False) for capped in (False, True)]


@settings(max_examples=400, deadline=None)
@given(cards=st.lists(st.integers(0, 53), unique=True, max_size=24),
       good=st.sampled_from((JOKER_A, JOKER_B)), judge=st.sampled_from(JUDGES))
def test_the_compiled_judge_values_hands_and_picks_the_card_lost_as_the_python_one(
        cards, good, judge):
    assert compiled.hand_value(cards, good, judge) == judge.key(cards, good)
    if cards:
        assert compiled.automatic_loss(cards, good, judge) == judge.automatic_loss(cards, good)


def _both_ways(monkeypatch, on: bool) -> None:
    monkeypatch.setattr(fast_engine, "COMPILED_CARDS", on)
    monkeypatch.setattr(fast_engine, "COMPILED_BALLS", on)


def same_odds_both_ways(monkeypatch, states) -> int:
    """Assert both engines give each of ``states`` the very same odds; how many they played
    out (not enumerated)."""
    played = 0
    for index, (state, _tags) in enumerate(states):
        _both_ways(monkeypatch, True)
        in_c = fast_win_odds(state, iterations=150, seed=index)
        _both_ways(monkeypatch, False)
        in_python = fast_win_odds(state, iterations=150, seed=index)
        assert in_c == in_python, index
        played += not in_python.enumerated
    return played


def test_on_states_of_every_rare_rule_the_compiled_engine_gives_the_python_engines_odds(
        monkeypatch):
    # The quick tier's stand-in for the test below (a state of each rare rule).
    assert same_odds_both_ways(monkeypatch, covering_states(48, 14)) >= 7


@pytest.mark.slow
def test_on_every_recorded_state_the_compiled_engine_gives_the_python_engines_odds(
        monkeypatch):
    # The quick tier's longest test when it was there (272 states, 12 s of CPU).
    assert same_odds_both_ways(monkeypatch, recorded_states(60)) >= 150  # most still bowled


def test_warm_runs_and_every_ball_of_a_match_give_the_same_odds_both_ways(monkeypatch):
    # A three-game match ball by ball, each state warm from the one before, as the pool
    # plays them: the kept scripts are the compiled ones' and the Python's alike.
    odds = {}
    for on in (True, False):
        _both_ways(monkeypatch, on)
        match = PracticeMatch(("Ann", "Bob", "Cy"), games=3, seed=9,
                              averages={"Ann": 120, "Bob": 170, "Cy": 215})
        warm = WarmRuns()
        odds[on] = []
        for balls in range(0, 180, 7):
            match.play(balls)
            odds[on].append(fast_win_odds(match.state, iterations=120, seed=balls,
                                          warm=warm))
    assert odds[True] == odds[False]


def test_bad_batches_are_refused_with_the_reason(monkeypatch):
    match = PracticeMatch(("Ann", "Bob"), seed=3).play(4)
    start = compile_start(match.state)
    words = compiled.start_words(start, fast_engine._judge(match.state.rules))
    one_run = array("I", (50, 0, 60, 0))       # two seats: series, no events
    wins, cents = compiled.play_runs(words, one_run, 1, random.Random(1))
    assert sum(wins) == 1 and sum(cents) == start.pot_cents
    with pytest.raises(ValueError, match="cut short"):
        compiled.play_runs(words, one_run[:3], 1, random.Random(1))
    with pytest.raises(ValueError, match="more than the count"):
        compiled.play_runs(words, one_run + one_run, 1, random.Random(1))
    with pytest.raises(ValueError, match="cut short"):
        compiled.play_runs(words[:5], one_run, 1, random.Random(1))
    not_a_card = array("i", words)
    not_a_card[9] = 99                        # the pile's first card
    with pytest.raises(ValueError, match="no card"):
        compiled.play_runs(not_a_card, one_run, 1, random.Random(1))
