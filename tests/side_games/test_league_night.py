"""The issue's league night in the domain alone: 3 games, 14 bowlers, 9 brackets' worth of
entries bought with one bracket unfilled, high game and a strike pot, fed finished bowling
games with the league's handicap; everything paid, the money to the cent, the log checked."""

from __future__ import annotations

import random

from alley_poker.bowling import Game
from alley_poker.league.handicap import HandicapRule
from alley_poker.side_games import (
    Draw,
    GameScore,
    PayBracket,
    PayPot,
    PotSettings,
    RecordRollOff,
    RecordScore,
    RevealSeed,
    SetSideGame,
    verify_side_night,
)
from tests.side_games.nights import SEED, Night, handicap_brackets


def random_game(rnd: random.Random, skill: float) -> Game:
    """A legal game: each ball knocks down a share of what stands, better with skill."""
    rolls: list[int] = []
    game = Game()
    while not game.is_complete:
        standing = game.standing_count
        pins = standing if rnd.random() < skill * 0.6 else rnd.randint(0, standing)
        game.roll(pins)
        rolls.append(pins)
    return Game.from_rolls(rolls)


def test_a_league_night_of_brackets_high_game_and_a_strike_pot():
    rnd = random.Random(41)
    averages = {b: 130 + 6 * b for b in range(1, 15)}
    rule = HandicapRule()                                   # 90% of 220
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets()))
    night.do(SetSideGame("high-game", PotSettings(kind="high_game", scoring="handicap",
                                                  games=(1, 2, 3), entry_cents=200,
                                                  places_percent=(70, 30))))
    night.do(SetSideGame("strikes", PotSettings(kind="strikes", scoring="scratch",
                                                games=(1, 2, 3), entry_cents=100)))
    night.enter("hdcp", {b: (6 if b <= 10 else 2) for b in range(1, 15)})   # 68 of 72
    night.enter("high-game", dict.fromkeys(range(1, 15), 1))
    night.enter("strikes", dict.fromkeys(range(3, 15), 1))
    preview = night.night.draw_preview("hdcp")
    assert (preview.brackets, preview.sevens, preview.left_over) == (9, 4, 0)
    night.do(Draw(SEED))
    assert len(night.night.book("hdcp").drawn) == 9
    for game_number in (1, 2, 3):
        for bowler, average in averages.items():
            score = GameScore.of(random_game(rnd, average / 300),
                                 rule.for_average(average))
            night.do(RecordScore(bowler, game_number, score.scratch, score.handicap,
                                 score.strikes), actor="feed:lanes-1-8")
        # Between games: the kiosk's still-alive list, a bowler's "you face…".
        alive = night.night.still_alive()
        if game_number < 3:
            assert alive and all(len(games) <= 6 for games in alive.values())
    while ties := [(o.number, m) for o in night.night.brackets("hdcp") for m in o.matches
                   if m.status == "roll_off"]:       # the desk rolls off each tie, in turn
        number, match = ties[0]
        night.do(RecordRollOff("hdcp", number, match.round, match.key[2], match.sides[0]))
    for outcome in night.night.brackets("hdcp"):
        assert outcome.finished
        night.do(PayBracket("hdcp", outcome.number))
    night.do(PayPot("high-game"))
    night.do(PayPot("strikes"))
    night.do(RevealSeed(SEED))
    money = night.night.money()
    assert money.balanced and money.in_play_cents == 0 and money.refunds_cents == 0
    assert money.entries_cents == 68 * 500 + 14 * 200 + 12 * 100
    assert money.payouts_cents == money.entries_cents       # nothing to the organiser
    assert verify_side_night(night.records).ok
