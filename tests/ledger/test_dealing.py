"""Dealing for marks: streak sequences, the tenth frame, the first strike of each game."""

from __future__ import annotations

import pytest

from tests.ledger.helpers import Match


def dealt(match: Match, bowler: str) -> list[int]:
    """Cards due per mark ball, in order (bonus included)."""
    return [b["cards_due"] + b["bonus"] for game in match.state.balls[bowler] for b in game
            if b["mark"]]


@pytest.mark.parametrize(("rolls", "cards"), [
    ([10, 10, 10, 10], [2, 3, 3, 3]),                      # strikes 2, 3, 3, ...
    ([9, 1, 9, 1, 9, 1, 9, 1], [1, 2, 3, 3]),               # spares 1, 2, 3, 3, ...
    ([10, 9, 1, 10], [2, 1, 2]),                            # each kind ends the other's streak
    ([10, 9, 0, 10], [2, 2]),                               # an open frame ends the streak
    ([9, 1, 0, 0, 9, 1], [1, 1]),
    ([9, 0] * 9 + [9, 1, 10], [1, 2]),                      # tenth: spare, then a strike
    ([9, 0] * 9 + [10, 7, 3], [2, 1]),                      # tenth: strike, then a spare
    ([10] * 12, [2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]),      # 300: XXX in the tenth
])
def test_streak_sequences(rolls, cards):
    match = Match(rules={"first_strike_bonus": 0})
    match.balls("Ann", *rolls)
    assert dealt(match, "Ann") == cards
    assert len(match.state.hands["Ann"]) == sum(cards)


def test_streak_cap_is_configurable():
    match = Match(rules={"first_strike_bonus": 0, "streak_cap": 5})
    match.balls("Ann", *[10] * 6)
    assert dealt(match, "Ann") == [2, 3, 4, 5, 5, 5]


def test_first_strike_bonus_is_per_game_per_match_and_beyond_the_cap():
    match = Match(games=2, rules={"first_strike_bonus": 2})
    match.balls("Ann", 10, 10)
    match.balls("Bob", 10)
    assert dealt(match, "Ann") == [4, 3] and dealt(match, "Bob") == [2]
    assert match.state.first_strike == {1: "Ann"}


def test_gutter_and_mark_events_name_the_actor_and_ball():
    match = Match()
    events = match.ball("Ann", 10)
    ball, *draws = events
    assert ball.type == "ball_recorded" and ball.data["mark"] == "strike"
    assert ball.data["actor"] == "feed:lane-3" and ball.data["command"] == "RecordBall"
    assert [e.data["reason"] for e in draws] == ["strike", "strike", "first strike of the game"]
    assert all(e.data["for_ball"] == [1, 0] for e in draws)
    assert all(e.data["action"] == ball.seq for e in events)
