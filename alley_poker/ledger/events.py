"""Ledger events: the immutable facts a match's state is folded from, and their JSON records.

An event is one fact with a type, a per-match sequence number, a UTC timestamp and a data
table of JSON-safe values (cards as strings such as ``"AS"``/``"JOKER-A"``, money in integer
cents).  Every event's data names the ``actor`` (who caused it, for the audit trail), the
``command`` that produced it and ``action``: the seq of the first event of that command.

>>> from datetime import datetime, timezone
>>> event = Event("m1", 3, "hole_deepened", datetime(2026, 1, 2, 20, 0, tzinfo=timezone.utc),
...               {"bowler": "Ann", "why": "gutter", "actor": "feed:lane-3",
...                "command": "RecordBall", "action": 3})
>>> record = event_to_record(event)
>>> record["at"], record["data"]["bowler"]
('2026-01-02T20:00:00Z', 'Ann')
>>> event_from_record(record) == event
True
>>> event_from_record({**record, "type": "card_teleported"})
Traceback (most recent call last):
...
alley_poker.ledger.events.EventFormatError: event m1#3: unknown event type 'card_teleported'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


def key_table(keys: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """A log's event types and the data keys each carries, written a string a type."""
    return {name: frozenset(words.split()) for name, words in keys.items()}


#: Keys every event's data carries.
COMMON_KEYS = frozenset({"actor", "command", "action"})

#: Each event type and the data keys it carries besides :data:`COMMON_KEYS`.
EVENT_KEYS = key_table({
    # setup
    "match_created": "bowlers games ante_cents rules test_mode",
    "consent_recorded": "bowler ante_cents",
    "match_started": "pile powers antes",
    "bowler_added": "bowler ante_paid",
    "bowler_removed": "bowler refund_cents",
    # the desk marked a bowler not there: "removed" (had not bowled; bowler_removed
    # follows with the refund), "keeps_hand" or "folds" (the rule book's leaving_bowler)
    "bowler_gone": "bowler outcome reason",
    # provably fair dealing (docs/fairness.md)
    "deal_committed": "scheme commitment salt",
    "seed_revealed": "seed",
    # the pile and cards
    "pile_shuffled": "order why",
    "pile_stacked": "order",
    "card_drawn": "bowler card reason for_ball",
    "card_taken": "bowler from_bowler card via reason for_ball",
    "card_returned": "bowler card why",
    "jokers_swapped": "trigger disarmed powers",
    "draw_skipped": "bowler reason why for_ball",
    "hole_deepened": "bowler why",
    "hole_paid_off": "bowler reason for_ball",
    # balls
    "ball_recorded": "bowler game frame ball pins standing foul gutter split mark "
                     "gutter_ball split_pickup cards_due bonus completes_game "
                     "streak_before streak_after",
    "ball_corrected": "bowler game balls streak_after reason",
    "holland_daze": "bowler reason",
    # decisions
    "decision_opened": "id bowler kind deadline choices reason guess_allowed",
    "guess_made": "decision_id bowler side",
    "guess_resolved": "decision_id bowler side correct",
    "guess_voided": "decision_id bowler reason",
    "decision_closed": "decision_id bowler outcome choice",
    # reviews
    "review_raised": "id bowler game description difference remedy",
    "review_closed": "id outcome reason",
    # end of match and money
    "match_ending": "series lowest",
    "end_phase": "stage",
    "buy_paid": "bowler cents",
    "automatic_win": "bowler card",
    "showdown": "winners shares hands",
    "payout": "bowler cents",
    "match_settled": "reason",
    "result_undone": "reversed reason",
    "match_voided": "refunds reason",
    "action_undone": "undone_from undone_to restored reason",
})

#: Data keys an event type may carry besides :data:`EVENT_KEYS`: added after events of that
#: type were first stored, so a record without them is still valid and replays as before.
#: ``match_created`` of a league match names its league night and the bowlers' handicaps.
#: ``decision_closed`` by a desk action that names its own reason (settling as the hands
#: stand, a bowler gone) carries that reason.
OPTIONAL_KEYS: dict[str, frozenset[str]] = {
    "match_created": frozenset({"league", "handicaps"}),
    "decision_closed": frozenset({"reason"}),
}


#: Data keys that hold the draw pile's order, per event type.  They never leave the server
#: and no report shows them: whoever knows the pile knows the next card.
WITHHELD_KEYS: dict[str, frozenset[str]] = {
    "pile_shuffled": frozenset({"order"}),
    "pile_stacked": frozenset({"order"}),
    "match_started": frozenset({"pile"}),
}


def withheld_keys(event_type: str | None = None) -> frozenset[str]:
    """The keys of ``event_type``'s data that are withheld (None: of any event type).

    >>> sorted(withheld_keys("match_started")), sorted(withheld_keys("ball_recorded"))
    (['pile'], [])
    >>> sorted(withheld_keys())
    ['order', 'pile']
    >>> all(keys <= EVENT_KEYS[kind] for kind, keys in WITHHELD_KEYS.items())
    True
    """
    if event_type is None:
        return frozenset().union(*WITHHELD_KEYS.values())
    return WITHHELD_KEYS.get(event_type, frozenset())


class EventFormatError(ValueError):
    """A stored record that is not a valid ledger event (the message says which and why)."""


class LogEvent:
    """What the events of every log share, a match's (:class:`Event`) or a night's side
    games' (``alley_poker.side_games.SideEvent``): their data read by key."""

    __slots__ = ()
    data: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


@dataclass(frozen=True, slots=True)
class Event(LogEvent):
    """One fact in a match's log.  ``data`` is JSON-safe and must be treated as read-only."""

    match_id: str
    seq: int
    type: str
    at: datetime
    data: dict[str, Any]


def event_to_record(event: Event) -> dict[str, Any]:
    """The JSON-safe record of an event: ``{"match_id", "seq", "type", "at", "data"}``."""
    return log_record("match_id", event.match_id, event.seq, event.type, event.at, event.data)


def log_record(id_key: str, log_id: str, seq: int, kind: str, at: datetime,
               data: dict[str, Any]) -> dict[str, Any]:
    """The JSON-safe record of an event of a log (the parts :func:`checked_record` returns):
    the log's id under ``id_key`` (a match's, a night's), its UTC time written with a Z."""
    return {id_key: log_id, "seq": seq, "type": kind,
            "at": at.astimezone(UTC).isoformat().replace("+00:00", "Z"), "data": data}


def event_from_record(record: Mapping[str, Any]) -> Event:
    """Rebuild an event from its record, checking its shape (type, keys, timestamp)."""
    return Event(*checked_record(record, id_key="match_id", keys=EVENT_KEYS,
                                 common=COMMON_KEYS, optional=OPTIONAL_KEYS,
                                 error=EventFormatError))


def checked_record(record: object, *, id_key: str, keys: Mapping[str, frozenset[str]],
                   common: frozenset[str], optional: Mapping[str, frozenset[str]],
                   error: type[ValueError]) -> tuple[str, int, str, datetime, dict[str, Any]]:
    """A stored record's ``(id, seq, type, at, data)`` once its shape is checked: the log's
    id under ``id_key`` (a match's, a night's), a known type whose data has exactly its
    ``keys`` and the ``common`` ones (and maybe its ``optional`` ones), an aware timestamp.
    ``error`` (a ValueError) names what is wrong."""
    if not isinstance(record, Mapping):
        raise error(f"event record must be a mapping, got {type(record).__name__}")
    missing = {id_key, "seq", "type", "at", "data"} - set(record)
    if missing:
        raise error(f"event record lacks {', '.join(sorted(missing))}")
    log_id, seq, kind = record[id_key], record["seq"], record["type"]
    where = f"event {log_id}#{seq}"
    if not isinstance(log_id, str) or not isinstance(seq, int) or isinstance(seq, bool):
        raise error(f"{where}: {id_key} must be text and seq an integer")
    if not isinstance(kind, str) or kind not in keys:
        raise error(f"{where}: unknown event type {kind!r}")
    data = record["data"]
    if not isinstance(data, Mapping):
        raise error(f"{where}: data must be a mapping")
    expected = keys[kind] | common
    allowed = expected | optional.get(kind, frozenset())
    if not expected <= set(data) <= allowed:
        extra, lacking = set(data) - allowed, expected - set(data)
        raise error(
            f"{where}: {kind} data keys wrong"
            + (f"; unexpected {sorted(extra)}" if extra else "")
            + (f"; missing {sorted(lacking)}" if lacking else "")
        )
    at = record["at"]
    try:
        when = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))
    except ValueError:
        raise error(f"{where}: bad timestamp {at!r}") from None
    if when.tzinfo is None:
        raise error(f"{where}: timestamp {at!r} has no time zone")
    return log_id, seq, kind, when.astimezone(UTC), dict(data)
