"""Property: for random league matches (simulated bowlers, random decisions, random endings
— settled, undone and re-settled, left undone, voided), the money reconciles to the cent and
the projection fed record by record equals the one rebuilt from the whole log."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.league.standings import SeasonProjection, rebuild
from alley_poker.ledger import commands as c
from tests.league.play import DESK, LedgerTable, bowl_match, create_league_match

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]
ENDINGS = st.sampled_from(["settle", "undo", "undo_and_resettle", "void", "void_unsettled"])


@st.composite
def league_matches(draw):
    count = draw(st.integers(1, 3))
    return [(draw(st.integers(2, 5)), draw(st.integers(1, 2)), draw(ENDINGS),
             draw(st.sampled_from(["first_seated", "house"])),
             draw(st.integers(100, 137)), draw(st.integers(0, 2**16)))
            for _ in range(count)]


@settings(max_examples=12, deadline=None)
@given(league_matches())
def test_money_reconciles_and_the_rebuilt_projection_equals_the_live_one(matches):
    table = LedgerTable(0)
    live = SeasonProjection()
    fed = 0                              # records fed to ``live`` so far, as they happen
    for number, (size, games, ending, odd_cents, ante, seed) in enumerate(matches):
        match_id = f"m{number}"
        people = {name: 1 + NAMES.index(name) for name in NAMES[:size]}
        create_league_match(table.execute, match_id, people, games=games, ante_cents=ante,
                            rules={"odd_cents": odd_cents},
                            handicaps={name: seed % 40 for name in people})
        bowl_match(table.execute, table.state, match_id, random.Random(seed),
                   confirm=ending != "void_unsettled")
        if ending in ("undo", "undo_and_resettle", "void"):
            table.execute(match_id, c.CommissionerUndoResult(actor=DESK))
        if ending == "undo_and_resettle":
            table.execute(match_id, c.CommissionerConfirmResult(actor=DESK))
        if ending in ("void", "void_unsettled"):
            table.execute(match_id, c.CommissionerVoidMatch(actor=DESK))
        for record in table.records[fed:]:
            live.apply(record["match_id"], record)
        fed = len(table.records)
    rebuilt = rebuild(table.records)
    assert rebuilt == live
    money = rebuilt.reconciliation("tue")
    in_play = sum(s.pot_cents for s in table.states.values() if s.status not in
                  ("settled", "void"))
    assert money.in_play_cents == in_play
    nets = sum(row.net_cents for row in rebuilt.standings("tue"))
    assert nets + rebuilt.house_cents("tue") + money.in_play_cents == 0
    if in_play == 0:
        assert nets + rebuilt.house_cents("tue") == 0
    paid_in = sum(row.antes_cents + row.buys_cents - row.refunds_cents
                  for row in rebuilt.standings("tue"))
    paid_out = sum(row.money_won_cents for row in rebuilt.standings("tue"))
    assert paid_in - paid_out == rebuilt.house_cents("tue") + money.in_play_cents

