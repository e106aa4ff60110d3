"""The live odds: honest (never read the hidden pile's order), exact at the end, a
probability distribution throughout, and played by the ledger's rules."""

from __future__ import annotations

import random

import pytest

from alley_poker.ledger import commands as c
from alley_poker.odds import BowlerProfile, CentreAverages, win_odds
from benchmarks._practice_match import PracticeMatch as PlayedMatch


def _with_pile(state, order):
    other = state.clone()
    other.pile = list(order)
    return other


@pytest.mark.parametrize("balls", [0, 14, 40])
def test_the_odds_are_the_same_however_the_hidden_pile_is_ordered(balls):
    state = PlayedMatch(seed=3, rules={"buy_in": True}).play(balls).state
    assert len(state.pile) > 20
    reference = win_odds(state, iterations=60, seed=5).as_json()
    for shuffle_seed in range(3):
        order = list(state.pile)
        random.Random(shuffle_seed).shuffle(order)
        assert order != state.pile
        assert win_odds(_with_pile(state, order), iterations=60, seed=5).as_json() == reference
    assert win_odds(_with_pile(state, reversed(state.pile)), iterations=60,
                    seed=5).as_json() == reference


def test_stacking_the_next_cards_does_not_move_the_odds():
    # A pile stacked so that the next strike deals a good joker: a leaking simulation would
    # favour whoever strikes next.
    # (the first seed from 4 whose good joker is still in the pile after six balls)
    match, joker = next((m, j) for m in (PlayedMatch(seed=s).play(6) for s in range(4, 60))
                        for j, p in m.state.powers.items()
                        if p == "good" and j in m.state.pile)
    stacked = _with_pile(match.state, [joker] + [x for x in match.state.pile if x != joker])
    assert (win_odds(stacked, iterations=40, seed=9).as_json()
            == win_odds(match.state, iterations=40, seed=9).as_json())


def test_a_finished_match_has_its_result_as_odds():
    match = PlayedMatch(seed=7).finish()
    result = match.state.result
    odds = win_odds(match.state)
    assert odds.exact and odds.iterations == 0
    for bowler in match.state.bowlers:
        won = bowler in result["winners"]
        assert odds.bowlers[bowler].win == (1 / len(result["winners"]) if won else 0.0)
        assert odds.bowlers[bowler].expected_cents == result["shares"].get(bowler, 0)
    assert sum(o.win for o in odds.bowlers.values()) == pytest.approx(1.0)


def test_a_tie_counts_as_the_share_won():
    # Settled as the hands stand before anyone holds a card: every hand ties.
    match = PlayedMatch(("Ann", "Bob"), seed=1)
    match.do(c.CommissionerSettleAsHandsStand(reason="power cut", actor="commissioner:pat"))
    odds = win_odds(match.state)
    assert {b: o.win for b, o in odds.bowlers.items()} == {"Ann": 0.5, "Bob": 0.5}
    assert {b: o.expected_cents for b, o in odds.bowlers.items()} == {"Ann": 100, "Bob": 100}


@pytest.mark.parametrize("balls", [0, 25, 55])
def test_the_odds_sum_to_one_and_the_expected_shares_to_at_least_the_pot(balls):
    state = PlayedMatch(("Ann", "Bob", "Cy", "Di"), seed=11).play(balls).state
    odds = win_odds(state, iterations=50, seed=2)
    assert sum(o.win for o in odds.bowlers.values()) == pytest.approx(1.0)
    assert all(0.0 <= o.win <= 1.0 for o in odds.bowlers.values())
    # Buys only add to the pot; the odd cent may go to the house.
    assert sum(o.expected_cents for o in odds.bowlers.values()) >= state.pot_cents - 1


def test_a_fairly_dealt_match_is_simulated_without_its_secret_seed():
    state = PlayedMatch(seed=5, fair=True).play(10).state
    assert state.fairness is not None
    odds = win_odds(state, iterations=30)
    assert sum(o.win for o in odds.bowlers.values()) == pytest.approx(1.0)
    assert state.fairness["seed"] is None  # the real match is untouched


def test_the_better_bowler_is_the_favourite():
    state = PlayedMatch(("Ann", "Bob"), seed=2, games=3).play(0).state
    profiles = {"Ann": BowlerProfile.for_average("Ann", 230),
                "Bob": BowlerProfile.for_average("Bob", 110)}
    odds = win_odds(state, iterations=150, profiles=profiles)
    assert odds.bowlers["Ann"].win > 0.6 > odds.bowlers["Bob"].win


def test_a_match_not_yet_started_or_void_has_no_odds():
    match = PlayedMatch(("Ann", "Bob"), seed=1)
    match.do(c.CommissionerVoidMatch(reason="fire alarm", actor="commissioner:pat"))
    assert win_odds(match.state) is None
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        win_odds(match.state, iterations=0)


def test_the_centre_average_must_be_a_bowling_average():
    with pytest.raises(ValueError, match="centre average 20 is outside 30-280"):
        CentreAverages(average=20)


@pytest.mark.parametrize("engine", ["fast", "ledger"])
def test_a_bowler_who_left_bowls_no_more_in_the_runs(engine):
    """Ann leaves holding two aces: keeping her hand she can still win, though she gets no
    more cards; folding it she cannot.  Every run plays the match to its end without her."""
    from tests.ledger.helpers import DESK, Match

    odds = {}
    for rule in ("keeps_hand", "folds"):
        match = Match(("Ann", "Bob", "Cy"), rules={"leaving_bowler": rule})
        match.stack("AS", "AH", "2C", "KD")
        match.balls("Ann", 10)
        match.balls("Bob", 9, 1)
        match.balls("Cy", 9, 0)
        match.do(c.CommissionerBowlerGone("Ann", reason="went home", actor=DESK))
        odds[rule] = win_odds(match.state, iterations=200, seed=1, engine=engine).bowlers
        assert sum(b.win for b in odds[rule].values()) == pytest.approx(1)
    # The ledger's runs never let a folded hand win; the fast engine's runs still offer her
    # a buy the ledger would not (alley_poker/odds/compact.py, LEFT_SERIES): a rare win.
    assert odds["folds"]["Ann"].win <= (0 if engine == "ledger" else 0.01)
    assert 0 < odds["keeps_hand"]["Ann"].win < 0.5
