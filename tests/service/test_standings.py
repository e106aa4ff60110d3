"""The live league standings of a service process: built from the store at start, fed from
the bus, and always equal to the projection rebuilt from the log — after a night of league
matches played through the real AlleyService (SQLite and PostgreSQL), an undone result
among them."""

from __future__ import annotations

import random

import pytest

from alley_poker.league.standings import rebuild
from alley_poker.ledger import commands as c
from alley_poker.service.standings import LiveStandings, project_store
from tests.league.play import DESK, bowl_match

NIGHT = {"league_id": "tue", "night_id": "tue-2026-11-24", "night_date": "2026-11-24"}
PAIRS = {"tue-1-2": (1, 2), "tue-3-4": (3, 4), "tue-5-6": (5, 6)}
ROSTER = {name: 101 + i for i, name in enumerate(
    ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"])}


def _start(service, match_id, lanes, names):
    slots = {(lane, slot): names[2 * i + slot - 1]
             for i, lane in enumerate(lanes) for slot in (1, 2)}
    people = {name: ROSTER[name] for name in names}
    service.create_match(match_id, slots, games=1, actor=DESK,
                         league={**NIGHT, "people": people},
                         handicaps={name: 10 * (i % 3) for i, name in enumerate(names)})
    for name in names:
        service.execute(match_id, c.ConsentToAnte(name, actor=f"bowler:{name}"))
    service.execute(match_id, c.StartMatch(actor=DESK))


@pytest.mark.slow
def test_the_live_projection_equals_the_one_rebuilt_from_the_log(store_service):
    service = store_service
    rng = random.Random(15)
    execute, state_of = service.execute, service.state
    early = LiveStandings(service)                     # up before the night starts
    service.execute("practice", c.CreateMatch("practice", ["Ann", "Zed"], actor=DESK))
    (first, second, third) = PAIRS
    _start(service, first, PAIRS[first], ["Ann", "Bob", "Cy", "Dee"])
    _start(service, second, PAIRS[second], ["Eve", "Fay", "Gus", "Hal"])
    bowl_match(execute, state_of, first, rng)
    late = LiveStandings(service)                      # starts mid-night: store, then bus
    bowl_match(execute, state_of, second, rng)
    service.execute(first, c.CommissionerUndoResult(reason="misread hand", actor=DESK))
    _start(service, third, PAIRS[third], ["Ann", "Bob", "Eve", "Fay"])
    bowl_match(execute, state_of, third, rng, confirm=False)
    service.execute(third, c.CommissionerVoidMatch(reason="lanes down", actor=DESK))
    service.execute(first, c.CommissionerConfirmResult(reason="re-read", actor=DESK))

    rebuilt = early.rebuilt()
    everything = [row.record for row in service.repository.store.events_since(0, limit=10**6)]
    assert rebuilt == rebuild(everything)
    for live in (early, late):
        with live.reading() as projection:
            assert projection == rebuilt
            assert projection.match_ids("tue") == [first, second, third]
            money = projection.reconciliation("tue")
    assert money.balanced and money.in_play_cents == 0
    with early.reading() as projection:
        rows = projection.standings("tue")
        # Ann bowled the first match (settled after the undo) and the void third one.
        ann = next(row for row in rows if row.name == "Ann")
        assert ann.matches == 1 and ann.refunds_cents >= 100
        assert sum(row.net_cents for row in rows) + projection.house_cents("tue") == 0
    assert sorted(row.bowler_id for row in rows) == sorted(ROSTER.values())
    assert project_store(service.repository.store, page=7) == rebuilt   # paging
    early.close()
    late.close()
