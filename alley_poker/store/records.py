"""What a record must be to be stored, and the row it is stored as.

A record is the JSON-safe dict the ledger's ``event_to_record`` makes.  Its ``match_id``,
``seq`` and ``type`` go into columns; everything else is its ``data``, kept as strict JSON
that must load back exactly as given (the store hands records back unchanged).

>>> from datetime import UTC, datetime
>>> at = datetime(2024, 5, 1, 19, 0, tzinfo=UTC)
>>> to_row("default", "m1", 1, {"match_id": "m1", "seq": 1, "type": "t", "data": {}}, at)["data"]
{'data': {}}
>>> to_row("default", "m1", 1, {"match_id": "m1", "seq": 1, "type": "t", "n": (1, 2)}, at)
Traceback (most recent call last):
...
alley_poker.store.store_errors.RecordError: match 'm1' seq 1: record would not load back unchanged \
(tuples, non-string keys or other values JSON turns into something else); convert them first
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from functools import partial
from typing import Any

from alley_poker.store.store_errors import RecordError

#: The longest match id / event type the schema holds (``String(64)`` columns).
MAX_NAME_LENGTH = 64

# The columns a record's own keys map to; everything else in a record lives in ``data``.
_COLUMN_KEYS = ("match_id", "seq", "type")

#: Strict JSON: NaN/Infinity are not JSON and PostgreSQL would refuse them; non-ASCII text
#: is kept readable in the database rather than escaped.  The engines store ``data`` with it.
dump_json = partial(json.dumps, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def to_row(centre: str, match_id: str, seq: int, record: Mapping[str, Any],
           recorded_at: datetime) -> dict[str, Any]:
    """The ``events`` row for ``record``, the match's event number ``seq``; a
    :class:`RecordError` when the record does not belong there or is not plain JSON."""
    where = f"match {match_id!r} seq {seq}"
    if not isinstance(record, Mapping):
        raise RecordError(f"{where}: a record must be a dict, got {type(record).__name__}")
    if record.get("match_id") != match_id:
        raise RecordError(f"{where}: record is for match {record.get('match_id')!r}")
    if record.get("seq") != seq:
        raise RecordError(
            f"{where}: record carries seq {record.get('seq')!r}; "
            "records must continue the log without gaps"
        )
    event_type = record.get("type")
    check_name(f"{where}: event type", event_type)
    body = {key: value for key, value in record.items() if key not in _COLUMN_KEYS}
    _check_json_round_trip(where, body)
    return {
        "match_id": match_id,
        "seq": seq,
        "type": event_type,
        "data": body,
        "recorded_at": recorded_at,
        "centre": centre,
    }


def from_row(match_id: str, seq: int, event_type: str, body: Any) -> dict[str, Any]:
    """The record a stored row holds (the inverse of :func:`to_row`)."""
    # A body edited in the database into something else than an object is handed on as the
    # record's data: reading it then names the event instead of failing here.
    return {"match_id": match_id, "seq": seq, "type": event_type,
            **(body if isinstance(body, dict) else {"data": body})}


def check_name(what: str, value: object) -> None:
    """Refuse a match id or event type the schema's columns cannot hold."""
    if not isinstance(value, str) or not value or len(value) > MAX_NAME_LENGTH:
        raise RecordError(
            f"{what} must be a non-empty string of at most {MAX_NAME_LENGTH} characters, "
            f"got {value!r}"
        )


def check_expected_seq(expected_seq: object) -> None:
    """Refuse an ``expected_seq`` that is not a whole number ≥ 0."""
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or expected_seq < 0:
        raise RecordError(f"expected_seq must be a whole number ≥ 0, got {expected_seq!r}")


def _check_json_round_trip(where: str, body: dict[str, Any]) -> None:
    """Refuse anything that would not come back from the database exactly as given."""
    try:
        dumped = dump_json(body)
        dumped.encode("utf-8")  # a lone surrogate cannot be stored as UTF-8
    except (TypeError, ValueError) as error:  # a set, a datetime, NaN, ...
        raise RecordError(f"{where}: record is not plain JSON: {error}") from None
    reloaded = json.loads(dumped)
    if reloaded != body or not _same_json_types(reloaded, body):
        raise RecordError(
            f"{where}: record would not load back unchanged (tuples, non-string keys or "
            "other values JSON turns into something else); convert them first"
        )


def _same_json_types(reloaded: Any, original: Any) -> bool:
    # ``==`` calls (1, 2) and [1, 2] different but 1 and 1.0 (and True and 1) equal; a
    # float that comes back as a float is fine, an int that came back as a float is not.
    if type(reloaded) is not type(original):
        return False
    if isinstance(original, dict):
        return all(_same_json_types(reloaded[key], value) for key, value in original.items())
    if isinstance(original, list):
        return all(map(_same_json_types, reloaded, original))
    return True
