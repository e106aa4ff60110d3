"""The hash chain at the core layer: a match's events hashed in order; a broken chain read.

Each event's hash is ``SHA-256(previous hash ‖ canonical record)``: the previous hash as its
32 raw bytes (32 zero bytes before a match's first event), the record as canonical JSON (keys
sorted, no spaces, UTF-8, see :func:`canonical`).  Changing, removing, adding or moving an
event breaks the chain at that event; the match's last hash (its *head*), printed on paper,
pins the whole log.

>>> first = {"match_id": "m1", "seq": 1, "type": "match_created", "at": "2026-03-06T19:00:00Z",
...          "data": {"bowlers": ["Ann", "Bob"]}}
>>> canonical(first)
b'{"at":"2026-03-06T19:00:00Z","data":{"bowlers":["Ann","Bob"]},"match_id":"m1","seq":1,\
"type":"match_created"}'
>>> link_hash(GENESIS, first)
'6fca7fd8dbcc9fad5625f1c39a7212ddc64efeb6a1fc65afc335bd3823d9c00e'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The "previous hash" of a match's first event.
GENESIS = "0" * 64


def canonical(record: Mapping[str, Any]) -> bytes:
    """The canonical encoding of a record: JSON, keys sorted by code point, ``,`` and ``:``
    without spaces, non-ASCII characters as UTF-8 (not escaped), no NaN or infinity."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def link_hash(prev_hash: str, record: Mapping[str, Any]) -> str:
    """The hash of ``record`` following an event whose hash is ``prev_hash`` (hex)."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical(record)).hexdigest()


def head(records: Sequence[Mapping[str, Any]]) -> str:
    """The chain head of a whole match log (its records in seq order)."""
    current = GENESIS
    for record in records:
        current = link_hash(current, record)
    return current


@dataclass(frozen=True)
class ChainLink:
    """One stored event as the audit reads it."""

    seq: int
    record: Mapping[str, Any]
    prev_hash: str | None
    hash: str | None


@dataclass(frozen=True)
class ChainBreak:
    """Where a match's chain breaks first: ``kind`` is ``edited``, ``deleted``, ``inserted``
    or ``reordered``; ``seq`` the event named; ``detail`` says what was found."""

    match_id: str
    seq: int
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"match {self.match_id} event #{self.seq}: {self.kind} ({self.detail})"


def first_break(match_id: str, links: Sequence[ChainLink]) -> ChainBreak | None:
    """The first place the stored chain of one match breaks, or None when it holds.

    >>> records = [{"match_id": "m1", "seq": n, "type": "t", "at": "x", "data": {}}
    ...            for n in (1, 2, 3)]
    >>> links, prev = [], GENESIS
    >>> for record in records:
    ...     links.append(ChainLink(record["seq"], record, prev, link_hash(prev, record)))
    ...     prev = links[-1].hash
    >>> first_break("m1", links) is None
    True
    >>> print(first_break("m1", [links[0], links[2]]))
    match m1 event #2: deleted (event #3 follows #1 but was chained after another event)
    """
    expected_prev, expected_seq = GENESIS, 1
    hashes_later = {}
    for index, link in enumerate(links):
        if link.hash:
            hashes_later.setdefault(link.hash, index)
    for index, link in enumerate(links):
        if link.hash is None or link.prev_hash is None:
            return ChainBreak(match_id, link.seq, "inserted",
                              "it carries no chain hash: it was not appended by the ledger")
        own_ok = link_hash(link.prev_hash, link.record) == link.hash and \
            link.record.get("seq") == link.seq
        linked = link.prev_hash == expected_prev
        following = links[index + 1] if index + 1 < len(links) else None
        if own_ok and linked and link.seq == expected_seq:
            expected_prev, expected_seq = link.hash, link.seq + 1
            continue
        if hashes_later.get(link.prev_hash, -1) > index:
            return ChainBreak(match_id, link.seq, "reordered",
                              "it was chained after an event that is now stored later")
        if link.seq > expected_seq and own_ok:
            return ChainBreak(match_id, expected_seq, "deleted",
                              f"event #{link.seq} follows #{expected_seq - 1} but was chained "
                              "after another event")
        if following is not None and following.prev_hash == expected_prev:
            return ChainBreak(match_id, link.seq, "inserted",
                              "the next stored event was chained directly after the previous "
                              "one")
        if not linked and own_ok:
            return ChainBreak(match_id, link.seq, "deleted",
                              "an event before it is missing: it was chained after an event "
                              "no longer stored")
        return ChainBreak(match_id, link.seq, "edited",
                          "its content no longer matches its hash")
    return None
