"""A night's side-game events: the facts its brackets, pots and money are folded from, and
their JSON records, shaped as the ledger's (alley_poker/ledger/events.py).

A night's log is its own sequence (``seq`` from 1), apart from the matches' logs.  Every
event's data names the ``actor`` (who caused it, for the audit trail).  Money is in integer
cents; a table keyed by bowler is a list of ``[bowler id, value]`` pairs (JSON objects only
have text keys).

>>> from datetime import datetime, UTC
>>> event = SideEvent("tue-2026-11-24", 4, "entry_recorded",
...                   datetime(2026, 11, 24, 19, 5, tzinfo=UTC),
...                   {"game": "hdcp", "bowler": 7, "entries": 3, "paid_cents": 1500,
...                    "actor": "commissioner:pat"})
>>> record = event_to_record(event)
>>> record["at"], record["data"]["paid_cents"]
('2026-11-24T19:05:00Z', 1500)
>>> event_from_record(record) == event
True
>>> event_from_record({**record, "data": {"game": "hdcp", "actor": "commissioner:pat"}})
Traceback (most recent call last):
...
alley_poker.side_games.night_events.SideEventFormatError: event tue-2026-11-24#4: entry_recorded \
data keys wrong; missing ['bowler', 'entries', 'paid_cents']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from alley_poker.ledger.events import (
    EventFormatError,
    LogEvent,
    checked_record,
    key_table,
    log_record,
)

#: Each event type and the data keys it carries besides ``actor``.
SIDE_EVENT_KEYS = key_table({
    "side_night_opened": "league_id night_date games",
    "side_game_set": "game settings",
    "entry_recorded": "game bowler entries paid_cents",
    "entry_withdrawn": "game bowler entries refund_cents",
    # the sealed draw (docs/fairness.md, docs/league.md "Side games")
    "draw_committed": "scheme commitment salt",
    "draw_made": "game brackets rolled_to rolled refunded",
    "seed_revealed": "seed",
    # the games the scorer sent (a later one for the same bowler and game corrects it)
    "score_recorded": "bowler game scratch handicap strikes absent",
    "roll_off_recorded": "game bracket round match winner",
    # money paid out, and the desk's answer when the games change a paid result
    "bracket_paid": "game bracket payouts organiser_cents",
    "pot_paid": "game payouts organiser_cents refunds as_they_stand",
    "paid_result_changed": "game bracket before payouts organiser_cents refunds reason",
    "paid_result_kept": "game bracket against reason",
})


class SideEventFormatError(EventFormatError):
    """A stored record that is not a valid side-game event (the message says which, why)."""


@dataclass(frozen=True, slots=True)
class SideEvent(LogEvent):
    """One fact in a night's side-game log (``data`` is JSON-safe; treat it as read-only)."""

    night_id: str
    seq: int
    type: str
    at: datetime
    data: dict[str, Any]


def pairs(table: Mapping[int, int]) -> list[list[int]]:
    """A bowler-keyed table as the events carry it: ``[[bowler, value], ...]`` by bowler."""
    return [[bowler, value] for bowler, value in sorted(table.items())]


def table(pair_list: Iterable[Iterable[int]]) -> dict[int, int]:
    """The table :func:`pairs` wrote."""
    return {int(bowler): int(value) for bowler, value in pair_list}


def event_to_record(event: SideEvent) -> dict[str, Any]:
    """The JSON-safe record: ``{"night_id", "seq", "type", "at", "data"}``."""
    return log_record("night_id", event.night_id, event.seq, event.type, event.at, event.data)


def event_from_record(record: Mapping[str, Any]) -> SideEvent:
    """Rebuild an event from its record, checking its shape (type, keys, timestamp)."""
    return SideEvent(*checked_record(record, id_key="night_id", keys=SIDE_EVENT_KEYS,
                                     common=frozenset({"actor"}), optional={},
                                     error=SideEventFormatError))
