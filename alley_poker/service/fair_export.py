"""A match's export (its whole log, commitment, seed and chain head) and its fairness line.

The export is what ``alley-poker verify`` and any independent verifier read (format in
docs/fairness.md).  It is published only once the match is settled or void: before that
the log holds the draw pile's order, which no bowler may know.
"""

from __future__ import annotations

from typing import Any

from alley_poker.fairness.verify import EXPORT_FORMAT, EXPORT_VERSION
from alley_poker.ledger.state import MatchState
from alley_poker.store.chain import chain_head

FINISHED = ("settled", "void")


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
    """The export of a settled or void match; :class:`ExportRefused` otherwise."""
    state = service.state(match_id)
    if state.status == "new":
        raise ExportRefused(f"no match {match_id!r}")
    if state.status not in FINISHED:
        raise ExportRefused(f"match {match_id} is {state.status}: its export (and its seed) is "
                            "published when it is settled or voided")
    store = service.repository.store
    records = store.load(match_id)
    fair = fairness_line(state, chain_head(store, match_id))
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "match_id": match_id,
            "centre": store.centre, "status": state.status,
            "fairness": {key: fair[key] for key in ("scheme", "commitment", "salt", "seed")},
            "chain_head": fair["chain_head"], "events": records}
