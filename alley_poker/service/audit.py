"""The audit at the service layer: every stored event with when, which match, who and what.

Read straight from the event store's global feed (``events_since``), so it holds everything
the ledger ever accepted, corrections and undone actions included.  Entries are filtered by
match, actor, event type and bowler; ``since`` is the audit cursor (an entry's ``id``) read
forwards, ``before`` the cursor read backwards (newest first, as the desk reads it).  Each
entry has the raw ``summary`` (key=value words) and a ``description`` in plain words
(:mod:`alley_poker.service.audit_words`), and its time in UTC and in the centre's zone.  Neither
carries the draw pile's order: the audit is for who-did-what, not for peeking.

>>> summarize("card_drawn", {"bowler": "Ann", "card": "TD", "reason": "strike",
...                          "actor": "feed:t", "command": "RecordBall", "action": 5})
'bowler=Ann card=TD reason=strike'
>>> summarize("pile_shuffled", {"order": ["7H", "2C"], "why": "start"})
'why=start'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from alley_poker.ledger.events import COMMON_KEYS, withheld_keys
from alley_poker.service.audit_words import describe

#: Keys left out of an entry's summary: the ones every event carries (the audit shows them in
#: their own columns, or not at all), the pile's order (withheld, as from every screen) and a
#: copy of the whole rule book (too long to be summary material).
LEFT_OUT_OF_SUMMARY = COMMON_KEYS | withheld_keys() | frozenset({"rules"})
SUMMARY_LENGTH = 200
PAGE = 1000


@dataclass(frozen=True)
class AuditEntry:
    """One event of the audit trail, as the audit page and the API's audit answer show it."""

    id: int
    time: str
    match_id: str
    seq: int
    type: str
    actor: str
    command: str
    summary: str
    local_time: str
    description: str


@dataclass(frozen=True)
class AuditFilter:
    match_id: str | None = None
    actor: str | None = None
    type: str | None = None
    bowler: str | None = None

    def admits(self, record: dict[str, Any]) -> bool:
        data = record.get("data") or {}
        return ((self.match_id is None or record.get("match_id") == self.match_id)
                and (self.actor is None or data.get("actor") == self.actor)
                and (self.type is None or record.get("type") == self.type)
                and (self.bowler is None or self.bowler in _bowlers_named(data)))


def _bowlers_named(data: dict[str, Any]) -> set[str]:
    named = {data.get("bowler"), data.get("from_bowler")}
    named.update(data.get("bowlers") or ())
    return {name for name in named if isinstance(name, str)}


def summarize(event_type: str, data: dict[str, Any]) -> str:
    """The event's data as ``key=value`` words (bookkeeping, pile order and Nones left out)."""
    words = [f"{key}={_short(value)}" for key, value in data.items()
             if key not in LEFT_OUT_OF_SUMMARY and value is not None]
    text = " ".join(words)
    return text if len(text) <= SUMMARY_LENGTH else text[:SUMMARY_LENGTH - 1] + "…"


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(_short(item) for item in value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_short(v)}" for k, v in value.items()) + "}"
    return str(value)


def _paged(read_page: Callable[[Any], list[Any]], cursor: Any) -> Iterator[Any]:
    """Every event ``read_page`` gives, page after page, each page starting past the last
    event of the one before (by global id, upwards or downwards as the reader goes)."""
    while True:
        page = read_page(cursor)
        yield from page
        if len(page) < PAGE:
            return
        cursor = page[-1].id


def audit_entries(store: Any, *, where: AuditFilter | None = None, since: int = 0,
                  before: int | None = None, newest_first: bool = False,
                  limit: int | None = 200, zone: tzinfo | None = None) -> list[AuditEntry]:
    """Up to ``limit`` (None: all) entries of the store's centre: with an id above ``since``,
    oldest first; or, ``newest_first``, with an id below ``before`` (None: the newest)."""
    where = where or AuditFilter()
    centre = getattr(store, "centre", None)
    stored_events = (
        _paged(lambda cursor: store.events_before(cursor, limit=PAGE), before) if newest_first
        else _paged(lambda cursor: store.events_since(cursor, limit=PAGE), since))
    found: list[AuditEntry] = []
    for stored in stored_events:
        if centre is not None and stored.centre != centre:
            continue
        record = stored.record
        if not where.admits(record):
            continue
        data = record.get("data") or {}
        summary = summarize(record["type"], data)
        found.append(AuditEntry(
            id=stored.id, time=stored.recorded_at.isoformat(), match_id=record["match_id"],
            seq=record["seq"], type=record["type"], actor=str(data.get("actor", "")),
            command=str(data.get("command", "")), summary=summary,
            local_time=stored.recorded_at.astimezone(zone).isoformat(timespec="seconds"),
            description=describe(record["type"], data, summary)))
        if limit is not None and len(found) >= limit:
            break
    return found
