"""Properties of a whole night: for any entries (two bracket games, one rolling over into the
other, and pots), withdrawals and games, every entry is in a bracket, rolled over or refunded;
once everything is paid the money reconciles to the cent (entries = payouts + refunds +
organiser's share); and the night's log checks out, its draw re-done from the revealed seed."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.side_games import (
    Draw,
    MarkAbsent,
    PayBracket,
    PayPot,
    PotSettings,
    RecordRollOff,
    RevealSeed,
    SetSideGame,
    WithdrawEntry,
    verify_side_night,
)
from alley_poker.side_games.night_events import table
from tests.side_games.nights import Night, handicap_brackets

bowlers = st.integers(1, 30)


@st.composite
def nights(draw):
    return {
        "scratch": draw(st.dictionaries(bowlers, st.integers(1, 6), max_size=24)),
        "reverse": draw(st.dictionaries(bowlers, st.integers(1, 4), max_size=20)),
        "high": draw(st.lists(bowlers, max_size=15, unique=True)),
        "strikes": draw(st.lists(bowlers, max_size=15, unique=True)),
        "withdraw": draw(st.lists(bowlers, max_size=4)),
        "sevens": draw(st.booleans()),
        "organiser": draw(st.sampled_from([0, 500])),
        "seed": draw(st.binary(min_size=32, max_size=32)),
        "games": draw(st.integers(0, 2**32)),
    }


def play(plan) -> Night:
    night = Night()
    payouts = (3000, 1000) if not plan["organiser"] else (2500, 1000)
    night.do(SetSideGame("scratch", handicap_brackets(
        scoring="scratch", seven_bowler_brackets=plan["sevens"], rollover_to="reverse",
        organiser_cents=plan["organiser"], payouts_cents=payouts, entries_per_bowler=6)))
    night.do(SetSideGame("reverse", handicap_brackets(games=(3, 2, 1), tie_rule="split")))
    night.do(SetSideGame("high", PotSettings(kind="high_series", scoring="handicap",
                                             games=(1, 2, 3), entry_cents=200,
                                             places_percent=(60, 40), organiser_percent=10)))
    night.do(SetSideGame("strikes", PotSettings(kind="strikes", scoring="scratch",
                                                games=(1, 2, 3), entry_cents=100)))
    night.enter("scratch", plan["scratch"])
    night.enter("reverse", plan["reverse"])
    night.enter("high", dict.fromkeys(plan["high"], 1))
    night.enter("strikes", dict.fromkeys(plan["strikes"], 1))
    for bowler in plan["withdraw"]:
        if night.night.book("scratch").entries.get(bowler):
            night.do(WithdrawEntry("scratch", bowler, 1))
    night.do(Draw(plan["seed"]))
    assert night.night.money().balanced              # before a game: all of it in play
    rnd = random.Random(plan["games"])
    for bowler in range(1, 31):
        for game in (1, 2, 3):
            strikes = rnd.randint(0, 3)
            if rnd.random() < 0.05:
                night.do(MarkAbsent(bowler, game))
                continue
            night.score(bowler, game, rnd.choice([150, 160, 170, 170 + strikes]),
                        handicap=rnd.choice([0, 10]), strikes=strikes)
    return settle(night, plan["seed"])


def settle(night: Night, seed: bytes) -> Night:
    # Settle every roll-off round by round (a roll-off can open the next round's tie).
    while True:
        open_ties = [(g, o.number, m) for g in night.night.bracket_games()
                     for o in night.night.brackets(g) for m in o.matches
                     if m.status == "roll_off"]
        if not open_ties:
            break
        game, number, m = open_ties[0]
        night.do(RecordRollOff(game, number, m.key[1], m.key[2], m.sides[1]))
    for game in night.night.bracket_games():
        for outcome in night.night.brackets(game):
            night.do(PayBracket(game, outcome.number))
    for game in ("high", "strikes"):
        if night.night.book(game).entries:
            night.do(PayPot(game))
    night.do(RevealSeed(seed))
    return night


@settings(max_examples=25, deadline=None)
@given(nights())
def test_every_entry_is_placed_rolled_or_refunded_and_the_money_reconciles(plan):
    night = play(plan)
    state = night.night
    # Every entry: in a bracket, rolled into the next game, or refunded.
    for game in ("scratch", "reverse"):
        book = state.book(game)
        made = next(e for e in night.events if e.type == "draw_made" and e["game"] == game)
        seats: dict[int, int] = {}
        for bracket in book.drawn:
            for bowler in bracket.bowlers:
                seats[bowler] = seats.get(bowler, 0) + 1
        rolled, refunded = table(made["rolled"]), table(made["refunded"])
        for bowler, count in book.entries.items():
            assert seats.get(bowler, 0) + rolled.get(bowler, 0) \
                + refunded.get(bowler, 0) == count
    money = state.money()
    assert money.in_play_cents == 0
    assert money.entries_cents == money.payouts_cents + money.refunds_cents \
        + money.organiser_cents
    assert money.balanced
    assert sum(b.net_cents for b in money.bowlers) == -money.organiser_cents
    check = verify_side_night(night.records)
    assert check.ok, check.problems
    assert check.draws_checked == 2
