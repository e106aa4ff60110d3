"""The event store on SQLite and PostgreSQL: appends, loads, refusals and the global feed."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alley_poker.store import (
    ConcurrencyConflict,
    EventStore,
    RecordError,
    StoreError,
    StoreUnavailable,
)
from alley_poker.store.schema import events


def record(match_id: str, seq: int, event_type: str = "BallRecorded", **data) -> dict:
    return {
        "match_id": match_id,
        "seq": seq,
        "type": event_type,
        "at": f"2024-05-01T19:{seq // 60:02d}:{seq % 60:02d}+00:00",
        "data": data,
    }


def row_count(store: EventStore) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(sa.select(sa.func.count()).select_from(events))


def test_records_come_back_exactly_as_appended(store):
    awkward = [
        record(
            "m-ünï",
            1,
            "MatchCreated",
            bowlers=["Zoë", "Łukasz", "李雷", "🎳 Bowlero"],
            ante_cents=100,
            big=2**63 + 12345,
            bigger=10**30,
            negative=-(2**70),
            nested=[[["AS", "KH"], []], [{"deep": [1, [2, [3, None]]]}]],
            flags={"test_mode": True, "voided": False, "note": None},
            ratio=0.1,
            text='quotes " and \\ backslash\nnew line\ttab \u0000 nul',
        ),
        record("m-ünï", 2, "CardsDealt", cards=["JOKER-A", "10H"], to="Zoë"),
        {"match_id": "m-ünï", "seq": 3, "type": "Bare", "data": {}, "actor": "commissioner:pat"},
    ]
    assert store.append("m-ünï", awkward, expected_seq=0) == 3

    loaded = store.load("m-ünï")

    assert loaded == awkward
    assert list(loaded[0]) == ["match_id", "seq", "type", "at", "data"]
    assert type(loaded[0]["data"]["big"]) is int and type(loaded[0]["data"]["ratio"]) is float
    assert store.load("m-ünï", after_seq=2) == awkward[2:]
    assert store.load("m-ünï", after_seq=3) == []
    assert store.load("no-such-match") == []


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=25,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payloads=st.lists(st.dictionaries(st.text(), JSON_VALUES, max_size=6), min_size=1,
                         max_size=4))
@pytest.mark.slow
def test_any_json_payload_round_trips(store, payloads):
    match_id = f"prop-{len(store.match_ids())}"
    records = [
        {"match_id": match_id, "seq": seq, "type": "Anything", "at": "2024-05-01T19:00:00Z",
         "data": payload}
        for seq, payload in enumerate(payloads, start=1)
    ]
    store.append(match_id, records, expected_seq=0)
    assert store.load(match_id) == records


def test_appends_continue_the_log_and_loads_reopen(store_url):
    with EventStore.open(store_url) as store:
        store.append("m1", [record("m1", 1), record("m1", 2)], expected_seq=0)
        store.append("m1", [record("m1", 3)], expected_seq=2)
        store.append("m2", [record("m2", 1)], expected_seq=0)
    with EventStore.open(store_url) as reopened:  # a restart: the schema is already at head
        assert [r["seq"] for r in reopened.load("m1")] == [1, 2, 3]
        assert reopened.last_seq("m1") == 3
        assert reopened.last_seq("m2") == 1
        assert reopened.last_seq("m3") == 0
        assert reopened.match_ids() == ["m1", "m2"]


def test_a_stale_expected_seq_is_refused_and_the_log_is_untouched(store):
    store.append("m1", [record("m1", 1), record("m1", 2)], expected_seq=0)
    before = store.load("m1")

    with pytest.raises(ConcurrencyConflict) as refused:
        store.append("m1", [record("m1", 2, "Late")], expected_seq=1)
    assert (refused.value.expected_seq, refused.value.actual_seq) == (1, 2)
    assert "log is at seq 2" in str(refused.value)

    with pytest.raises(ConcurrencyConflict):  # ahead of the log is just as wrong
        store.append("m1", [record("m1", 5)], expected_seq=4)
    with pytest.raises(ConcurrencyConflict):  # a second "create" of an existing match
        store.append("m1", [record("m1", 1, "MatchCreated")], expected_seq=0)

    assert store.load("m1") == before
    assert row_count(store) == 2


@pytest.mark.parametrize(
    ("bad_record", "complaint"),
    [
        ("not a dict", "must be a dict"),
        (record("other", 3), "record is for match 'other'"),
        (record("m1", 4), "carries seq 4"),
        ({**record("m1", 3), "type": ""}, "event type must be a non-empty string"),
        ({**record("m1", 3), "type": "X" * 65}, "at most 64 characters"),
        (record("m1", 3, cards=("AS", "KH")), "would not load back unchanged"),
        (record("m1", 3, by_lane={3: "Ann"}), "would not load back unchanged"),
        (record("m1", 3, cards={"AS"}), "not plain JSON"),
        (record("m1", 3, pot=math.nan), "not plain JSON"),
        (record("m1", 3, at=datetime(2024, 5, 1, tzinfo=UTC)), "not plain JSON"),
        (record("m1", 3, name="\ud800"), "not plain JSON"),
    ],
)
def test_a_bad_record_is_refused_by_name_and_nothing_of_its_batch_is_written(
    store, bad_record, complaint
):
    store.append("m1", [record("m1", 1)], expected_seq=0)
    batch = [record("m1", 2, "GoodOne"), bad_record]

    with pytest.raises(RecordError, match="match 'm1' seq 3") as refused:
        store.append("m1", batch, expected_seq=1)

    assert complaint in str(refused.value)
    assert [r["seq"] for r in store.load("m1")] == [1]
    assert row_count(store) == 1


@pytest.mark.parametrize(
    ("match_id", "expected_seq", "complaint"),
    [
        ("", 0, "match id must be a non-empty string"),
        ("m" * 65, 0, "match id must be"),
        (None, 0, "match id must be"),
        ("m1", -1, "expected_seq must be a whole number"),
        ("m1", "0", "expected_seq must be a whole number"),
    ],
)
def test_bad_append_arguments_are_refused(store, match_id, expected_seq, complaint):
    with pytest.raises(RecordError, match=complaint):
        store.append(match_id, [record("m1", 1)], expected_seq=expected_seq)
    assert row_count(store) == 0
    assert store.match_ids() == []


def test_an_empty_append_writes_nothing(store):
    assert store.append("m1", [], expected_seq=0) == 0
    assert store.match_ids() == []


def assert_the_database_refuses_event(store, match_id: str, type_: str) -> None:
    """An event row written straight into the table, past the store's checks, is refused
    by the database's own constraints."""
    row = {"match_id": match_id, "seq": 1, "type": type_, "data": {},
           "recorded_at": datetime.now(UTC), "centre": "default"}
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as connection:
        connection.execute(sa.insert(events).values(**row))


def test_the_database_itself_refuses_a_duplicate_seq(store):
    # The unique (match_id, seq) constraint is the last defence if the seq check is bypassed.
    store.append("m1", [record("m1", 1)], expected_seq=0)
    assert_the_database_refuses_event(store, "m1", "Duplicate")
    assert [r["type"] for r in store.load("m1")] == ["BallRecorded"]


def test_events_of_an_unknown_match_are_refused_by_the_foreign_key(store):
    assert_the_database_refuses_event(store, "ghost", "Orphan")


def test_events_since_pages_through_every_match_in_append_order(store):
    before = datetime.now(UTC) - timedelta(seconds=1)
    store.append("a", [record("a", 1), record("a", 2)], expected_seq=0)
    store.append("b", [record("b", 1)], expected_seq=0)
    store.append("a", [record("a", 3)], expected_seq=2)

    first_page = store.events_since(0, limit=3)
    rest = store.events_since(first_page[-1].id, limit=3)

    feed = first_page + rest
    assert [(e.record["match_id"], e.record["seq"]) for e in feed] == [
        ("a", 1), ("a", 2), ("b", 1), ("a", 3),
    ]
    assert len(rest) == 1
    assert [e.id for e in feed] == sorted({e.id for e in feed})
    assert feed[2].record == record("b", 1)
    assert all(e.centre == "default" for e in feed)
    assert all(before <= e.recorded_at <= datetime.now(UTC) for e in feed)
    assert all(e.recorded_at.tzinfo is not None for e in feed)
    assert store.events_since(feed[-1].id) == []


def test_a_store_sees_only_its_own_centres_matches(store_url):
    with EventStore.open(store_url, centre="north") as north:
        north.append("n1", [record("n1", 1)], expected_seq=0)
    with EventStore.open(store_url) as default:
        default.append("d1", [record("d1", 1)], expected_seq=0)
        assert default.match_ids() == ["d1"]
        assert default.match_ids(centre="north") == ["n1"]
        assert default.load("n1") == [] and default.last_seq("n1") == 0
        assert {e.centre for e in default.events_since()} == {"default"}


def test_two_centres_may_both_have_a_match_of_the_same_id(store_url):
    with (EventStore.open(store_url, centre="north") as north,
          EventStore.open(store_url, centre="south") as south):
        north.append("m1", [record("m1", 1), record("m1", 2)], expected_seq=0)
        south.append("m1", [record("m1", 1)], expected_seq=0)
        assert (north.last_seq("m1"), south.last_seq("m1")) == (2, 1)
        assert len(north.load("m1")) == 2 and len(south.load("m1")) == 1
        with pytest.raises(ConcurrencyConflict):
            south.append("m1", [record("m1", 1)], expected_seq=0)
        assert south.last_seq("m1") == 1


def test_sqlite_is_durable_on_acknowledgement(sqlite_url):
    with EventStore.open(sqlite_url) as store, store.engine.connect() as connection:
        pragma = connection.exec_driver_sql
        assert pragma("PRAGMA journal_mode").scalar() == "wal"
        assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
        assert pragma("PRAGMA foreign_keys").scalar() == 1
        assert pragma("PRAGMA busy_timeout").scalar() >= 1000


def test_a_sqlite_file_in_a_missing_directory_is_created(tmp_path):
    path = tmp_path / "var" / "deep" / "alley.sqlite3"
    with EventStore.open(f"sqlite:///{path}") as store:
        store.append("m1", [record("m1", 1)], expected_seq=0)
    assert path.exists()


@pytest.mark.parametrize(
    ("url", "complaint"),
    [
        ("mysql://somewhere/alley", "unsupported database"),
        ("not a url at all", "not a database URL"),
    ],
)
def test_an_unusable_url_is_refused_with_the_reason(url, complaint):
    with pytest.raises(StoreError, match=complaint):
        EventStore.open(url)


def test_an_unreachable_postgresql_is_reported_without_the_password():
    with pytest.raises(StoreUnavailable, match="cannot open the database") as refused:
        EventStore.open("postgresql+psycopg://alley:s3cret@127.0.0.1:1/alley?connect_timeout=2")
    assert "s3cret" not in str(refused.value)
    assert "127.0.0.1:1" in str(refused.value)
