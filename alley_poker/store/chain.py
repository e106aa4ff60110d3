"""The hash chain at the store layer: sealing appends in the database, heads, the audit walk.

Every append continues its match's chain (:func:`last_link` reads the last seq and hash in
the same read the optimistic-concurrency check needs; :func:`seal` fills the new rows);
:func:`audit` walks every match's stored chain and names the first event that breaks it.
The hashing itself is pure: :mod:`alley_poker.fairness.chain`.

>>> from alley_poker.store.event_store import EventStore
>>> store = EventStore.open("sqlite://")
>>> for seq in (1, 2):
...     _ = store.append("m1", [{"match_id": "m1", "seq": seq, "type": "t", "at": "x",
...                              "data": {"n": seq}}], expected_seq=seq - 1)
>>> head = chain_head(store, "m1")
>>> head == fair_chain.head(store.load("m1"))
True
>>> report = audit(store.engine)
>>> report.ok, report.matches, report.events
(True, 1, 2)
>>> with store.engine.begin() as connection:
...     _ = connection.exec_driver_sql(
...         "UPDATE events SET data = replace(data, '\\"n\\":1', '\\"n\\":7') WHERE seq = 1")
>>> print(audit(store.engine).breaks[0])
match m1 event #1: edited (its content no longer matches its hash)
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, select

from alley_poker.fairness import chain as fair_chain
from alley_poker.fairness.chain import GENESIS, ChainBreak, ChainLink, first_break
from alley_poker.store.schema import chain_starts, events

_LAST_LINK = (select(events.c.seq, events.c.hash)
              .where(events.c.centre == bindparam("centre"),
                     events.c.match_id == bindparam("match_id"))
              .order_by(events.c.seq.desc()).limit(1))


def last_link(connection: Connection, centre: str, match_id: str) -> tuple[int, str]:
    """The match's last seq (0 for none) and the hash the next event chains after."""
    row = connection.execute(_LAST_LINK, {"centre": centre, "match_id": match_id}).first()
    if row is None:
        return 0, GENESIS
    return row.seq, row.hash or GENESIS


def seal(rows: Sequence[dict[str, Any]], prev_hash: str) -> str:
    """Fill ``prev_hash`` and ``hash`` of one match's new rows (in seq order); the new head."""
    for row in rows:
        record = {"match_id": row["match_id"], "seq": row["seq"], "type": row["type"],
                  **row["data"]}
        row["prev_hash"] = prev_hash
        row["hash"] = prev_hash = fair_chain.link_hash(prev_hash, record)
    return prev_hash


def chain_head(store: Any, match_id: str) -> str | None:
    """The hash of the match's last stored event (what the settlement view and the night
    sheet print), or None for a match with no events."""
    with store.engine.connect() as connection:
        seq, head = last_link(connection, store.centre, match_id)
    return head if seq else None


@dataclass
class AuditReport:
    """What :func:`audit` found: each broken match's first break, and what the chain covers."""

    matches: int = 0
    events: int = 0
    breaks: list[ChainBreak] = field(default_factory=list)
    heads: dict[tuple[str, str], str] = field(default_factory=dict)
    started_at: datetime | None = None
    sealed_events: int = 0

    @property
    def ok(self) -> bool:
        return not self.breaks


def audit(engine: Engine, *, centre: str | None = None) -> AuditReport:
    """Walk every match's chain (of ``centre``, or of every centre) in seq order."""
    report = AuditReport()
    query = select(events.c.centre, events.c.match_id, events.c.seq, events.c.type,
                   events.c.data, events.c.prev_hash, events.c.hash)
    if centre is not None:
        query = query.where(events.c.centre == centre)
    query = query.order_by(events.c.centre, events.c.match_id, events.c.seq)
    with engine.connect() as connection:
        start = connection.execute(select(chain_starts).order_by(chain_starts.c.id)).first()
        if start is not None:
            report.started_at, report.sealed_events = start.started_at, start.sealed_events
        current: tuple[str, str] | None = None
        links: list[ChainLink] = []
        for row in connection.execute(query):
            key = (row.centre, row.match_id)
            if key != current:
                _finish(report, current, links)
                current, links = key, []
            # A row edited into something that is not a record still hashes (as the body it
            # now holds), so the walk names it as edited instead of failing.
            body = row.data if isinstance(row.data, dict) else {"data": row.data}
            record = {"match_id": row.match_id, "seq": row.seq, "type": row.type, **body}
            links.append(ChainLink(row.seq, record, row.prev_hash, row.hash))
            report.events += 1
        _finish(report, current, links)
    return report


def _finish(report: AuditReport, key: tuple[str, str] | None, links: list[ChainLink]) -> None:
    if key is None:
        return
    report.matches += 1
    found = first_break(key[1], links)
    if found is not None:
        report.breaks.append(found)
    elif links:
        report.heads[key] = links[-1].hash or GENESIS
