"""Event records: the JSON shape the store keeps, and refusal of records that are not events."""

from __future__ import annotations

import json

import pytest

from alley_poker.ledger import EventFormatError, event_from_record, event_to_record
from tests.ledger.helpers import Match


def _records():
    match = Match()
    match.stack("GJ", "AS", "KS")
    match.ball("Ann", 10)
    match.ball("Ann", 0, gutter=True)
    return [event_to_record(e) for e in match.events], match


def test_records_are_json_and_round_trip():
    records, match = _records()
    assert json.loads(json.dumps(records)) == records
    assert [event_from_record(r) for r in records] == match.events
    first = records[0]
    assert set(first) == {"match_id", "seq", "type", "at", "data"}
    assert first["at"].endswith("Z") and first["match_id"] == "m1"
    drawn = next(r for r in records if r["type"] == "card_drawn")
    assert drawn["data"]["card"] == "JOKER-A"           # physical cards in the log


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.pop("data"), "lacks data"),
    (lambda r: r.update(type="card_teleported"), "unknown event type 'card_teleported'"),
    (lambda r: r.update(seq="3"), "seq an integer"),
    (lambda r: r.update(at="yesterday"), "bad timestamp 'yesterday'"),
    (lambda r: r.update(at="2026-01-02T19:00:00"), "has no time zone"),
    (lambda r: r["data"].pop("bowlers"), "missing ['bowlers']"),
    (lambda r: r["data"].update(colour="red"), "unexpected ['colour']"),
])
def test_bad_records_are_refused_naming_the_problem(change, message):
    records, _ = _records()
    record = json.loads(json.dumps(records[0]))
    change(record)
    with pytest.raises(EventFormatError) as info:
        event_from_record(record)
    assert message in str(info.value)
