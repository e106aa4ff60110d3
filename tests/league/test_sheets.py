"""The night sheet and the CSV exports: every match of the night with its money, totals that
balance, dollars, and times in the league's zone (a night that crosses midnight)."""

from __future__ import annotations

import csv
import io
import random
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from alley_poker.league.exports import night_csv, roster_csv, standings_csv
from alley_poker.league.night_sheet import night_sheet
from alley_poker.league.standings import rebuild
from alley_poker.ledger import commands as c
from tests.league.play import DESK, FEED, LedgerTable, bowl_match, create_league_match

PEOPLE = {"Ann": 11, "Bob": 12, "Cy": 13}


def _night() -> LedgerTable:
    table = LedgerTable(21)
    table.now = datetime(2026, 11, 25, 5, 50, tzinfo=UTC)   # 23:50 in Chicago, Nov 24
    create_league_match(table.execute, "a", PEOPLE, games=1, ante_cents=101, test_mode=True,
                        rules={"odd_cents": "house", "lowest_score_draw": False,
                               "buy_in": False})
    table.execute("a", c.StackPile(["AS", "AH"], actor=DESK))
    for bowler, first in (("Ann", (9, 1)), ("Bob", (9, 1)), ("Cy", (9, 0))):
        for pins in (*first, *[9, 0] * 9):
            table.execute("a", c.RecordBall(bowler, None, pins, actor=FEED))
    table.now += timedelta(minutes=20)                        # the desk confirms after midnight
    table.execute("a", c.CommissionerConfirmResult(actor=DESK))
    create_league_match(table.execute, "b", {"Dee": 14, "Eve": 15}, games=1)
    bowl_match(table.execute, table.state, "b", random.Random(2), confirm=False)
    table.execute("b", c.CommissionerVoidMatch(reason="lane down", actor=DESK))
    return table


def test_the_night_sheet_has_every_match_and_balances():
    projection = rebuild(_night().records)
    sheet = night_sheet(projection, "tue", "tue-2026-11-24", lanes={"a": (1, 2)})
    assert [m.match_id for m in sheet.matches] == ["a", "b"]
    first, second = sheet.matches
    assert first.lanes == (1, 2) and second.lanes == ()
    assert (first.pot_cents, first.paid_out_cents, first.house_cents) == (303, 302, 1)
    assert first.winners == ("Ann", "Bob")
    assert [line.hand for line in first.lines][:2] == ["High card, ace"] * 2
    assert second.status == "void" and second.refunded_cents == second.pot_cents >= 200
    assert (sheet.antes_cents, sheet.house_cents, sheet.in_play_cents) == (503, 1, 0)
    assert sheet.balanced
    with pytest.raises(KeyError, match="no match on night 'tue-2026-12-01'"):
        night_sheet(projection, "tue", "tue-2026-12-01")


def test_the_night_csv_writes_dollars_and_league_local_times():
    projection = rebuild(_night().records)
    sheet = night_sheet(projection, "tue", "tue-2026-11-24", lanes={"a": (1, 2)})
    rows = list(csv.DictReader(io.StringIO(night_csv(sheet, "America/Chicago"))))
    ann = rows[0]
    assert (ann["seat"], ann["ante"], ann["won"], ann["net"], ann["winner"]) == (
        "Ann", "1.01", "1.51", "0.50", "yes")
    assert ann["lanes"] == "1-2"
    assert ann["started"] == "2026-11-24 23:50 CST"          # before midnight, local
    assert ann["settled"].startswith("2026-11-25 00:")        # after it
    assert rows[-1]["match_id"] == "TOTAL" and rows[-1]["ante"] == "5.03"
    assert "house 0.01" in rows[-1]["hand"]
    london = list(csv.DictReader(io.StringIO(night_csv(sheet, "Europe/London"))))
    assert london[0]["started"] == "2026-11-25 05:50 GMT"


def test_the_standings_csv_sums_to_zero_with_the_house_row():
    projection = rebuild(_night().records)
    text = standings_csv(projection.standings("tue"), house_cents=projection.house_cents("tue"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["name"] for r in rows[:2]] == ["Ann", "Bob"] and rows[-1]["name"] == "HOUSE"
    cents = sum(round(float(r["net"]) * 100) for r in rows)
    assert cents == 0
    assert rows[0]["place"] == "1" and rows[0]["best_hand"] == "High card, ace"


def test_the_roster_csv_is_in_the_import_format():
    bowlers = [SimpleNamespace(name="Ann Smith", scorer_name="ANN", average=172,
                               handicap_basis="book", team="Pins, Inc.", active=True),
               SimpleNamespace(name="Bob", scorer_name="BOB", average=None,
                               handicap_basis="league", team=None, active=False)]
    rows = list(csv.reader(io.StringIO(roster_csv(bowlers))))
    assert rows[0][:5] == ["name", "scorer_name", "average", "handicap_basis", "team"]
    assert rows[1] == ["Ann Smith", "ANN", "172", "book", "Pins, Inc.", "yes"]
    assert rows[2] == ["Bob", "BOB", "", "league", "", "no"]
