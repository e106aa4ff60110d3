"""Season standings from the event log: matches played through the real ledger, the figures
read back against the ledger's own states, and money that reconciles to the cent through an
undone result, a void, a bowler removed, an undone desk buy and odd cents kept by the house."""

from __future__ import annotations

import random

import pytest

from alley_poker.league.standings import (
    ProjectionGap,
    Reconciliation,
    SeasonProjection,
    rebuild,
)
from alley_poker.ledger import commands as c
from alley_poker.ledger.endgame import rebuild_game
from tests.league.play import (
    DESK,
    FEED,
    LedgerTable,
    bowl_match,
    create_league_match,
    decide_all,
)

PEOPLE = {"Ann": 11, "Bob": 12, "Cy": 13}


def _season(seed: int = 3) -> LedgerTable:
    table = LedgerTable(seed)
    rng = random.Random(seed)
    create_league_match(table.execute, "n1-a", PEOPLE, games=3, handicaps={"Ann": 20})
    create_league_match(table.execute, "n1-b", {"Dee": 14, "Eve": 15}, games=3)
    bowl_match(table.execute, table.state, "n1-a", rng)
    bowl_match(table.execute, table.state, "n1-b", rng)
    create_league_match(table.execute, "n2-a", {"Ann": 11, "Dee": 14, "Eve": 15}, games=3,
                        night="2026-12-01")
    bowl_match(table.execute, table.state, "n2-a", rng)
    table.execute("other", c.CreateMatch("other", ["Ann", "Zed"], actor=DESK))  # no league
    return table


def test_a_season_reads_as_the_ledger_has_it():
    table = _season()
    projection = rebuild(table.records)
    assert projection.leagues() == ["tue"]
    assert projection.nights("tue") == [("tue-2026-11-24", "2026-11-24"),
                                        ("tue-2026-12-01", "2026-12-01")]
    rows = {row.bowler_id: row for row in projection.standings("tue")}
    assert sorted(rows) == [11, 12, 13, 14, 15]
    ann = rows[11]
    assert (ann.name, ann.nights, ann.matches, ann.games) == ("Ann", 2, 2, 6)
    # Independently: the scores, marks and money the ledger holds for Ann.
    states = [table.state("n1-a"), table.state("n2-a")]
    scores = [rebuild_game(g).score() for s in states for g in s.balls["Ann"]]
    balls = [b for s in states for g in s.balls["Ann"] for b in g]
    assert ann.pins == sum(scores) and ann.average == sum(scores) // 6
    assert ann.strikes == sum(b["mark"] == "strike" for b in balls)
    assert ann.spares == sum(b["mark"] == "spare" for b in balls)
    assert ann.gutters == sum(b["gutter_ball"] for b in balls)
    assert ann.net_cents == sum(s.won["Ann"] - s.paid["Ann"] for s in states)
    assert ann.antes_cents == 200
    assert ann.matches_won == sum("Ann" in s.result["winners"] for s in states)
    standing = projection.standings("tue")
    assert [(r.net_cents, r.matches_won) for r in standing] == sorted(
        ((r.net_cents, r.matches_won) for r in standing), reverse=True)
    assert sum(r.net_cents for r in standing) + projection.house_cents("tue") == 0
    assert projection.reconciliation("tue").balanced
    history = projection.history(11)
    assert [(line.match_id, line.handicap) for line in history] == [("n1-a", 20), ("n2-a", 0)]
    assert history[0].scores == tuple(scores[:3])
    assert "other" not in {line.match_id for line in history}


def test_fed_record_by_record_equals_rebuilt_and_duplicates_are_skipped():
    table = _season(5)
    live = SeasonProjection()
    for record in table.records:
        live.apply(record["match_id"], record)
        live.apply(record["match_id"], record)          # delivered twice: folded once
    assert live == rebuild(table.records)
    assert live.summary() == rebuild(table.records).summary()


def test_a_record_that_skips_ahead_is_a_gap_the_caller_fills():
    table = _season(6)
    records = [r for r in table.records if r["match_id"] == "n1-a"]
    projection = SeasonProjection()
    projection.apply("n1-a", records[0])
    with pytest.raises(ProjectionGap, match="record #3 does not follow #1") as gap:
        projection.apply("n1-a", records[2])
    assert (gap.value.have, gap.value.got) == (1, 3)
    for record in records[1:]:
        projection.apply("n1-a", record)
    assert projection.knows("n1-a") == records[-1]["seq"]


def test_an_undone_result_leaves_the_pot_in_play_and_re_settling_restores_it():
    table = LedgerTable(8)
    create_league_match(table.execute, "m", PEOPLE, games=1)
    bowl_match(table.execute, table.state, "m", random.Random(8))
    settled = rebuild(table.records).standings("tue")
    table.execute("m", c.CommissionerUndoResult(reason="wrong hand read", actor=DESK))
    undone = rebuild(table.records)
    assert all(row.money_won_cents == 0 and row.matches_won == 0
               for row in undone.standings("tue"))
    paid = sum(table.state("m").paid.values())       # antes and any buys: back in the pot
    assert paid >= 300 and undone.reconciliation("tue").in_play_cents == paid
    assert undone.reconciliation("tue").balanced
    table.execute("m", c.CommissionerConfirmResult(actor=DESK))
    assert rebuild(table.records).standings("tue") == settled


def test_a_voided_match_refunds_everything_and_counts_for_nobody():
    table = LedgerTable(9)
    create_league_match(table.execute, "m", PEOPLE, games=1)
    bowl_match(table.execute, table.state, "m", random.Random(9), confirm=False)
    table.execute("m", c.CommissionerVoidMatch(reason="lane broke", actor=DESK))
    projection = rebuild(table.records)
    for row in projection.standings("tue"):
        assert (row.net_cents, row.matches, row.games, row.nights) == (0, 0, 0, 0)
        assert row.refunds_cents == row.antes_cents + row.buys_cents >= 100
    assert projection.reconciliation("tue") == Reconciliation(0, 0, 0, 0)


def test_a_bowler_removed_before_the_first_ball_gets_the_ante_back():
    table = LedgerTable(10)
    create_league_match(table.execute, "m", PEOPLE, games=1)
    table.execute("m", c.CommissionerRemoveBowler("Cy", reason="went home", actor=DESK))
    bowl_match(table.execute, table.state, "m", random.Random(10))
    projection = rebuild(table.records)
    cy = next(row for row in projection.standings("tue") if row.bowler_id == 13)
    assert (cy.antes_cents, cy.refunds_cents, cy.net_cents, cy.matches) == (100, 100, 0, 0)
    assert [line.status for line in projection.history(13)] == ["removed"]
    assert sum(r.net_cents for r in projection.standings("tue")) == 0
    assert projection.reconciliation("tue").balanced


def _open_game(table: LedgerTable, match_id: str, bowler: str, first: tuple[int, ...]) -> None:
    for pins in (*first, *([9, 0] * (10 - (len(first) + 1) // 2))):
        table.execute(match_id, c.RecordBall(bowler, None, pins, actor=FEED))


def test_odd_cents_the_house_keeps_are_shown_as_the_house_share():
    table = LedgerTable(11)
    create_league_match(table.execute, "m", PEOPLE, games=1, ante_cents=101, test_mode=True,
                        rules={"odd_cents": "house", "lowest_score_draw": False,
                               "buy_in": False})
    table.execute("m", c.StackPile(["AS", "AH"], actor=DESK))
    _open_game(table, "m", "Ann", (9, 1))             # a spare: AS
    _open_game(table, "m", "Bob", (9, 1))             # a spare: AH — ace high ties
    _open_game(table, "m", "Cy", (9, 0))
    table.execute("m", c.CommissionerConfirmResult(actor=DESK))
    projection = rebuild(table.records)
    nets = {row.bowler_id: row.net_cents for row in projection.standings("tue")}
    assert nets == {11: 50, 12: 50, 13: -101}          # 303 split: 151 each, 1 cent over
    assert projection.house_cents("tue") == 1
    assert sum(nets.values()) + projection.house_cents("tue") == 0


def test_a_desk_buy_taken_back_by_undo_is_not_counted():
    table = LedgerTable(12)
    create_league_match(table.execute, "m", {"Ann": 11, "Bob": 12}, games=1,
                        rules={"lowest_score_draw": False})
    _open_game(table, "m", "Ann", (9, 0))
    _open_game(table, "m", "Bob", (9, 0))
    table.execute("m", c.DecideBuy("Ann", True, actor=DESK))
    assert max(r.buys_cents for r in rebuild(table.records).standings("tue")) == 100
    table.execute("m", c.CommissionerUndoLastAction(reason="Ann said no", actor=DESK))
    for bowler in ("Ann", "Bob"):
        table.execute("m", c.DecideBuy(bowler, False, actor=f"bowler:{bowler}"))
    table.execute("m", c.CommissionerConfirmResult(actor=DESK))
    projection = rebuild(table.records)
    assert [r.buys_cents for r in projection.standings("tue")] == [0, 0]
    assert sum(r.net_cents for r in projection.standings("tue")) == 0


def test_a_seat_the_tag_does_not_name_is_a_guest():
    table = LedgerTable(13)
    create_league_match(table.execute, "m", {"Ann": 11, "Bob": 12}, games=1, start=False)
    table.execute("m", c.CommissionerAddBowler("Sub", reason="a sub", actor=DESK))
    for name in ("Ann", "Bob", "Sub"):
        table.execute("m", c.ConsentToAnte(name, actor=f"bowler:{name}"))
    table.execute("m", c.StartMatch(actor=DESK))
    bowl_match(table.execute, table.state, "m", random.Random(13))
    projection = rebuild(table.records)
    assert [r.bowler_id for r in projection.standings("tue")] in ([11, 12], [12, 11])
    money = projection.reconciliation("tue")
    sub = table.state("m")
    assert money.guests_net_cents == sub.won["Sub"] - sub.paid["Sub"]
    assert money.balanced


def test_a_no_show_and_a_bowler_who_left_reconcile_in_the_standings():
    """Cy never came (marked not here after the others bowled: refunded); Ann left after three
    frames keeping her hand; Bob finished.  The season's money still balances to the cent."""
    table = LedgerTable(12)
    create_league_match(table.execute, "m", PEOPLE, games=1)
    for _frame in range(3):
        for bowler in ("Ann", "Bob"):
            for pins in (9, 0):
                table.execute("m", c.RecordBall(bowler, None, pins, actor=FEED))
    table.execute("m", c.CommissionerBowlerGone("Cy", reason="never came", actor=DESK))
    table.execute("m", c.CommissionerBowlerGone("Ann", reason="went home", actor=DESK))
    while table.state("m").status == "playing":
        for pins in (9, 0):
            table.execute("m", c.RecordBall("Bob", None, pins, actor=FEED))
    decide_all(table.execute, table.state, "m", random.Random(12))
    table.execute("m", c.CommissionerConfirmResult(actor=DESK))
    assert table.state("m").status == "settled"
    projection = rebuild(table.records)
    rows = {row.bowler_id: row for row in projection.standings("tue")}
    assert (rows[13].antes_cents, rows[13].refunds_cents, rows[13].net_cents) == (100, 100, 0)
    assert rows[11].antes_cents == 100 and rows[11].games == 0, "Ann's game was not finished"
    assert rows[12].games == 1
    assert sum(row.net_cents for row in rows.values()) == 0
    assert projection.reconciliation("tue").balanced
