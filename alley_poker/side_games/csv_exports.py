"""CSV exports of a night's side games, written as the league's other exports are (money in
dollars, names neutralised by :mod:`alley_poker.csv_cells`): the money per bowler, and every
bracket's matches (who faced whom, on which game, who went through and how).

>>> from alley_poker.side_games.money import night_money
>>> money = night_money({1: 1000, 2: 1000}, {1: 1500}, {}, organiser_cents=500,
...                     in_play_cents=0)
>>> print(side_money_csv(money, {1: "Ann", 2: "=Bob"}).replace("\\r", ""))
bowler_id,name,paid,won,refunded,net
1,Ann,10.00,15.00,0.00,5.00
2,'=Bob,10.00,0.00,0.00,-10.00
TOTAL,organiser 5.00; in play 0.00,20.00,15.00,0.00,
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alley_poker.csv_cells import csv_text
from alley_poker.league.exports import dollars
from alley_poker.side_games.money import NightMoney
from alley_poker.side_games.night import SideNight

SIDE_MONEY_HEADER = ("bowler_id", "name", "paid", "won", "refunded", "net")
BRACKETS_HEADER = ("game", "bracket", "round", "match", "counted_game", "bowler_a", "bowler_b",
                   "status", "winner", "how")


def side_money_csv(money: NightMoney, names: Mapping[int, str]) -> str:
    """One row per bowler with side money, then a TOTAL row (the organiser's share and what
    is still in play in its name column)."""
    rows: list[list[Any]] = [
        [line.bowler, names.get(line.bowler, ""), dollars(line.paid_cents),
         dollars(line.won_cents), dollars(line.refunded_cents), dollars(line.net_cents)]
        for line in money.bowlers]
    rows.append(["TOTAL", f"organiser {dollars(money.organiser_cents)}; in play "
                 f"{dollars(money.in_play_cents)}", dollars(money.entries_cents),
                 dollars(money.payouts_cents), dollars(money.refunds_cents), ""])
    return csv_text(SIDE_MONEY_HEADER, rows)


def brackets_csv(night: SideNight, names: Mapping[int, str]) -> str:
    """Every match of every drawn bracket, round one first ("bye" for the bye; a side not
    known yet is blank)."""
    def who(bowler: int | None, round_number: int) -> str:
        if bowler is None:
            return "bye" if round_number == 1 else ""
        return names.get(bowler, str(bowler))

    rows = [[game, outcome.number, m.round, m.key[2] + 1, m.game,
             who(m.sides[0], m.round), who(m.sides[1], m.round), m.status,
             "" if m.winner is None else who(m.winner, m.round), m.how]
            for game in night.bracket_games() for outcome in night.brackets(game)
            for m in outcome.matches]
    return csv_text(BRACKETS_HEADER, rows)
