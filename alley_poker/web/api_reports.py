"""The commissioner's reports: the night's settlement and the audit log, as JSON and CSV.

Money and who-did-what are not for the settee: both need the commissioner (session or API
token).  CSV downloads carry a header row and open in any spreadsheet (one writer for every
export, :mod:`alley_poker.csv_cells`: formula-looking text stays text).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from flask import Blueprint, Response, jsonify

from alley_poker.csv_cells import csv_text, for_download
from alley_poker.service.audit import AuditFilter, audit_entries
from alley_poker.service.fair_export import match_fairness
from alley_poker.service.held_audit import held_resolutions
from alley_poker.service.settlement import night_settlement
from alley_poker.web.api_request import API_PREFIX, alley
from alley_poker.web.auth import commissioner_required
from alley_poker.web.centre_access import current_centre
from alley_poker.web.queries import (
    AuditQuery,
    HeldAuditQuery,
    SettlementQuery,
    validated_query,
)

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("api_reports", __name__, url_prefix=API_PREFIX)

SETTLEMENT_COLUMNS = ("bowler", "paid_cents", "won_cents", "net_cents", "matches")
AUDIT_COLUMNS = ("id", "time", "match_id", "seq", "type", "actor", "command", "summary",
                 "local_time", "description")


def _settlement() -> dict[str, Any]:
    night = validated_query(SettlementQuery).date
    report = night_settlement(alley(), on=night).as_dict()
    deals = [match_fairness(alley(), match["match_id"]) for match in report["matches"]]
    return {"date": night.isoformat() if night else None, **report, "fair_deals": deals}


def _audit(query: AuditQuery, *, complete: bool = False) -> list[dict[str, Any]]:
    """The entries ``query`` asks for; ``complete``: every one unless a limit was given."""
    where = AuditFilter(match_id=query.match_id, actor=query.actor, type=query.type,
                        bowler=query.bowler)
    store = alley().repository.store
    limit = None if complete and "limit" not in query.model_fields_set else query.limit
    entries = audit_entries(store, where=where, since=query.since, before=query.before,
                            newest_first=query.order == "newest", limit=limit,
                            zone=current_centre().config.centre.zone)
    return [asdict(entry) for entry in entries]


def _cell(value: Any) -> Any:
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return value


def csv_file(filename: str, text: str) -> Response:
    """A CSV download (UTF-8 with a byte-order mark: :mod:`alley_poker.csv_cells`)."""
    return Response(for_download(text), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})


def csv_download(filename: str, columns: Sequence[str],
                 rows: Iterable[dict[str, Any]]) -> Response:
    return csv_file(filename, csv_text(
        columns, ([_cell(row[column]) for column in columns] for row in rows)))


@api.get("/settlement")
@commissioner_required
def settlement():
    return jsonify(_settlement())


@api.get("/settlement.csv")
@commissioner_required
def settlement_csv():
    report = _settlement()
    name = f"settlement-{report['date'] or 'all'}.csv"
    return csv_download(name, SETTLEMENT_COLUMNS, report["bowlers"])


@api.get("/audit")
@commissioner_required
def audit():
    query = validated_query(AuditQuery)
    entries = _audit(query)
    zone = str(current_centre().config.centre.zone)
    if query.order == "newest":
        # The cursor for the next (older) page; None when this page reached the first entry.
        more = len(entries) == query.limit
        return jsonify({"entries": entries, "next_before": entries[-1]["id"] if more else None,
                        "time_zone": zone})
    return jsonify({"entries": entries, "time_zone": zone,
                    "next_since": entries[-1]["id"] if entries else query.since})


@api.get("/audit.csv")
@commissioner_required
def audit_csv():
    return csv_download("audit.csv", AUDIT_COLUMNS,
                        _audit(validated_query(AuditQuery), complete=True))


@api.get("/audit/held")
@commissioner_required
def audit_held():
    """The held balls' audit lines (held_audit): who did what with them, when and why."""
    query = validated_query(HeldAuditQuery)
    zone = current_centre().config.centre.zone
    return jsonify({"lines": held_resolutions(alley().held, match_id=query.match_id,
                                              zone=zone),
                    "time_zone": str(zone)})
