"""A match's export (its whole log, commitment, seed and chain head) and its fairness line.

The export is what ``alley-poker verify`` and any independent verifier read (format in
docs/fairness.md).  It is published only once the match is settled or void: before that
the log holds the draw pile's order, which no bowler may know.
"""

from __future__ import annotations

from typing import Any

from alley_poker.ledger import EventFormatError, InvariantViolation, event_from_record
from alley_poker.ledger.inputs import InputError, action_inputs
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.state import MatchState
from alley_poker.store.chain import chain_head
from alley_poker.verifier.verify import EXPORT_FORMAT, EXPORT_VERSION


class ExportRefused(ValueError):
    """The match cannot be exported (unknown, or still in play); the message says why."""


def fairness_line(state: MatchState, head: str | None) -> dict[str, Any]:
    """One match's fairness facts: commitment, salt, the seed once revealed, chain head."""
    fair = state.fairness or {}
    return {"match_id": state.match_id, "status": state.status,
            "scheme": fair.get("scheme"), "commitment": fair.get("commitment"),
            "salt": fair.get("salt"), "seed": fair.get("seed"), "chain_head": head}


def match_fairness(service: Any, match_id: str) -> dict[str, Any]:
    """:func:`fairness_line` of a stored match (the settlement view's and night sheet's)."""
    return fairness_line(service.state(match_id),
                         chain_head(service.repository.store, match_id))


def match_export(service: Any, match_id: str) -> dict[str, Any]:
    """The export of a settled or void match; :class:`ExportRefused` otherwise.

    A log that no longer rebuilds into a sound match (edited in the database) is still
    exported, read from its records alone, so that it can be checked from outside; if its
    inputs cannot be read either it is exported as version 1 (without ``inputs``), and
    ``verify`` names the event that breaks.
    """
    store = service.repository.store
    try:
        state = service.state(match_id)
    except (InvariantViolation, EventFormatError):
        state = None
    records = store.load(match_id)
    status = state.status if state is not None else _status_of(records)
    if status == "new":
        raise ExportRefused(f"no match {match_id!r}")
    if status not in FINISHED:
        raise ExportRefused(f"match {match_id} is {status}: its export (and its seed) is "
                            "published when it is settled or voided")
    fair = (fairness_line(state, None) if state is not None
            else _fairness_of(match_id, status, records))
    export = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "match_id": match_id,
              "centre": store.centre, "status": status,
              "fairness": {key: fair[key] for key in ("scheme", "commitment", "salt", "seed")},
              "chain_head": chain_head(store, match_id), "inputs": None, "events": records}
    try:
        export["inputs"] = action_inputs(match_id, [event_from_record(r) for r in records])
    except (InputError, InvariantViolation, EventFormatError, KeyError, TypeError,
            ValueError, AttributeError, IndexError):
        export["version"] = 1
        del export["inputs"]
    return export


def _status_of(records: list[dict[str, Any]]) -> str:
    """A match's status read from its records alone (for a log that does not rebuild)."""
    status = "new"
    for record in records:
        kind = record.get("type")
        if kind == "match_created":
            status = "open"
        elif kind == "match_started":
            status = "playing"
        elif kind in ("match_settled", "match_voided"):
            status = "settled" if kind == "match_settled" else "void"
        elif kind == "result_undone":
            status = "playing"
    return status


def _fairness_of(match_id: str, status: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {"match_id": match_id, "status": status, "scheme": None,
                             "commitment": None, "salt": None, "seed": None}
    for record in records:
        data = record.get("data") if isinstance(record.get("data"), dict) else {}
        if record.get("type") == "deal_committed":
            found.update({key: data.get(key) for key in ("scheme", "commitment", "salt")})
        elif record.get("type") == "seed_revealed":
            found["seed"] = data.get("seed")
    return found
