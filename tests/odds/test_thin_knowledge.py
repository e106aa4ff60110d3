"""Honest about thin knowledge: a bowler known from two games is not known from twenty.  The
doubt about their skill reaches the chances (each game of a run is bowled at a skill drawn as
widely as their games leave it in doubt), so a favourite by average with little history is
less of a favourite, and a bowler known from no game at all is as uncertain as a newcomer's
mixture of the centre's bowlers (docs/odds.md, "Honest about thin knowledge")."""

from __future__ import annotations

import statistics

import pytest

from alley_poker.odds import win_odds
from alley_poker.odds.ball_model import FORM_SD, BowlerProfile
from alley_poker.odds.profiles import (
    CentreAverages,
    Counts,
    average_uncertainty,
    form_sd_known_from,
)
from tests.odds.test_odds_history import _new_match

CENTRE = CentreAverages(average=150, spread=35.0)


def _known_from(games: int, mean: int) -> BowlerProfile:
    return CENTRE.learnt("FAV", Counts(scores=[mean] * games))


def test_the_doubt_about_a_bowler_narrows_with_the_games_known():
    spreads = [_known_from(games, 200).form_sd for games in (1, 2, 5, 20, 100)]
    assert spreads == sorted(spreads, reverse=True)
    assert spreads[0] > 1.4 * FORM_SD and spreads[-1] < 1.05 * FORM_SD
    # The same average, whatever the spread: the skill is solved over the wider form.
    for games in (2, 20):
        assert abs(_known_from(games, 200).average - _known_from(games, 200).average) <= 1


def test_a_bowler_known_from_no_game_is_as_uncertain_as_a_newcomer():
    # The limit of thin knowledge is the newcomer's: one of the centre's bowlers, nobody
    # knows which.  The spread of the mixture's skills and the doubt of a bowler known from
    # no game agree (the mixture's nine quantiles a little narrower than the normal).
    newcomer = CENTRE.profile("NEW")
    mixture = statistics.pstdev(m.skill for m in newcomer.members)
    doubt = (form_sd_known_from(average_uncertainty(0, CENTRE.spread, CENTRE.game_sd),
                                150) ** 2 - FORM_SD ** 2) ** 0.5
    assert 0.8 * doubt < mixture < 1.05 * doubt, (mixture, doubt)


@pytest.mark.slow
def test_a_favourite_known_from_one_game_is_less_of_a_favourite_than_if_known_for_sure():
    state = _new_match(["FAV", "REG"])
    regular = BowlerProfile(**{**_known_from(40, 150).__dict__, "name": "REG"})
    thin = _known_from(1, 250)  # one 250 game: shrunk to about 211, give or take 22 pins
    as_sure = BowlerProfile(name="FAV", average=thin.average, handicap=thin.handicap,
                            skill=BowlerProfile.for_average("FAV", thin.average).skill)

    def chance(favourite: BowlerProfile) -> float:
        odds = win_odds(state, iterations=20_000, seed=5,
                        profiles={"FAV": favourite, "REG": regular})
        return odds.bowlers["FAV"].win

    sure, doubted = chance(as_sure), chance(thin)
    assert sure > 0.78
    # 1.3 points here, at a quarter of a point's standard error each: the cards dilute
    # what the bowling says.
    assert doubted < sure - 0.006, (doubted, sure)
