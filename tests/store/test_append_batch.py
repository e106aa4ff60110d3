"""Group commit: several matches' appends in one transaction, each judged on its own."""

from __future__ import annotations

from alley_poker.store import ConcurrencyConflict, RecordError
from tests.store.test_event_store import record, row_count


def test_a_batch_stores_every_good_append_and_refuses_only_the_stale_one(store):
    store.append("m2", [record("m2", 1)], expected_seq=0)
    outcomes = store.append_batch([
        ("m1", [record("m1", 1), record("m1", 2)], 0),
        ("m2", [record("m2", 1, pins=7)], 0),    # stale: another writer already stored seq 1
        ("m3", [record("m3", 1)], 0),
    ])
    assert outcomes[0] == 2 and outcomes[2] == 1
    assert isinstance(outcomes[1], ConcurrencyConflict)
    assert [r["seq"] for r in store.load("m1")] == [1, 2]
    assert [r["seq"] for r in store.load("m2")] == [1]          # nothing added to m2
    assert [r["seq"] for r in store.load("m3")] == [1]


def test_a_bad_record_is_refused_in_its_place_and_the_others_are_kept(store):
    before = row_count(store)
    outcomes = store.append_batch([
        ("m1", [record("m1", 1)], 0),
        ("m2", [record("m2", 1, when=float("nan"))], 0),   # not JSON: refused by name
    ])
    assert outcomes[0] == 1
    assert isinstance(outcomes[1], RecordError)
    assert row_count(store) == before + 1
    assert store.load("m2") == []


def test_two_appends_to_one_match_in_a_batch_must_follow_each_other(store):
    outcomes = store.append_batch([
        ("m1", [record("m1", 1)], 0),
        ("m1", [record("m1", 2)], 1),
        ("m1", [record("m1", 2)], 1),    # a second writer that also saw seq 1
    ])
    assert outcomes[:2] == [1, 2]
    assert isinstance(outcomes[2], ConcurrencyConflict)
    assert [r["seq"] for r in store.load("m1")] == [1, 2]
