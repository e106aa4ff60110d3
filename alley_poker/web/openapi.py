"""The OpenAPI 3.1 document of ``/api/v1``, generated from the pydantic schemas (request
bodies, responses and query strings alike).

>>> doc = openapi_document()
>>> doc["openapi"], "/api/v1/matches" in doc["paths"]
('3.1.0', True)
>>> "RecordBallBody" in doc["components"]["schemas"]
True
>>> match_view = doc["paths"]["/api/v1/matches/{match_id}"]["get"]["responses"]["200"]
>>> match_view["content"]["application/json"]["schema"]
{'$ref': '#/components/schemas/MatchView'}
>>> from alley_poker.web.schemas import COMMAND_BODIES
>>> len([path for path in doc["paths"] if "/commands/" in path]) == len(COMMAND_BODIES)
True
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from alley_poker.web import api_responses as r
from alley_poker.web import queries as q
from alley_poker.web import schemas as s
from alley_poker.web.match_view_schema import MatchView
from alley_poker.web.odds_record_page import OddsRecordView
from alley_poker.web.openapi_leagues import add_league_paths
from alley_poker.web.openapi_parameters import REF, query_parameters
from alley_poker.web.openapi_phone import add_phone_paths
from alley_poker.web.openapi_side_games import add_side_game_paths
from alley_poker.web.story_schema import MatchStory

#: What each error status means on this API (the body is always ErrorResponse).
ERRORS = {
    "400": "the body is not a JSON object (not JSON, or nested too deeply to read)",
    "401": "not signed in as the commissioner, or a bad API token; on the phone's routes: "
           "no phone session, or its link was turned off or its night closed",
    "403": "missing or wrong CSRF token, or a token where the tablet is needed; a phone "
           "answering for another bowler or match",
    "404": "no such match, command, token, kiosk waiting with that code, league, bowler, "
           "night, seat request or phone link",
    "409": "refused by the ledger's rules, the match is past the body's expected_seq "
           "(stale_version), the lanes are taken, or the league, night or seat request "
           "exists or was decided already",
    "413": "the body is larger than the server accepts (64 KB)",
    "422": "the body or a query parameter failed validation, or names a lane the centre "
           "does not have (unknown_lane)",
    "429": "too many requests from this phone link; wait a moment",
}
COMMISSIONER = [{"commissionerSession": [], "csrfToken": []}, {"apiToken": []}]
COMMISSIONER_SESSION = [{"commissionerSession": [], "csrfToken": []}]


class _Builder:
    def __init__(self) -> None:
        self.components: dict[str, Any] = {}
        self.paths: dict[str, Any] = {}

    def ref(self, model: type[BaseModel]) -> dict[str, Any]:
        if model.__name__ not in self.components:
            schema = model.model_json_schema(ref_template=REF)
            for name, definition in schema.pop("$defs", {}).items():
                self.components[name] = definition
            self.components[model.__name__] = schema
        return {"$ref": REF.format(model=model.__name__)}

    def add(self, path: str, method: str, summary: str, *,
            response: type[BaseModel] | dict[str, Any] | None,
            status: str = "200", body: type[BaseModel] | None = None,
            errors: tuple[str, ...] = (), security: list | None = None,
            parameters: list[dict[str, Any]] | None = None,
            media: str = "application/json") -> None:
        responses: dict[str, Any] = {}
        if response is None:
            responses[status] = {"description": summary}
        else:
            schema = response if isinstance(response, dict) else self.ref(response)
            responses[status] = {"description": summary, "content": {media: {"schema": schema}}}
        error = self.ref(r.ErrorResponse)
        if security is not None:
            errors = (*errors, "401", "403")
        if body is not None:
            errors = (*errors, "400", "413", "422")
        for code in sorted(set(errors)):
            responses[code] = {"description": ERRORS[code],
                               "content": {"application/json": {"schema": error}}}
        operation: dict[str, Any] = {"summary": summary, "responses": responses,
                                     "parameters": parameters or []}
        if security is not None:
            operation["security"] = security
        if body is not None:
            operation["requestBody"] = {"required": True, "content": {
                "application/json": {"schema": self.ref(body)}}}
        self.paths.setdefault(path, {})[method] = operation

    def add_report(self, path: str, summary: str, csv_summary: str, *,
                   response: type[BaseModel], errors: tuple[str, ...], security: list,
                   parameters: list[dict[str, Any]]) -> None:
        """A report read at ``path`` and its CSV twin at ``path.csv``: alike in errors,
        security and parameters."""
        self.add(path, "get", summary, response=response, errors=errors, security=security,
                 parameters=parameters)
        self.add(f"{path}.csv", "get", csv_summary, response={"type": "string"},
                 errors=errors, security=security, parameters=parameters, media="text/csv")


def _path(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True,
            "schema": schema or {"type": "string"}}


def openapi_document() -> dict[str, Any]:
    """The whole document (a fresh dict each call)."""
    doc = _Builder()
    match_id = [{**_path("match_id", {"type": "string", "minLength": 1}), "example": "m1"}]
    base = "/api/v1"
    match = f"{base}/matches/{{match_id}}"

    doc.add(f"{base}/lanes", "get", "Every lane: its pair, matches and scorer slots",
            response=r.LaneList)
    pair = [{**_path("lane_pair", {"type": "string", "pattern": "^[0-9]+(-[0-9]+)?$"}),
             "example": "1-2"}]
    doc.add(f"{base}/lanes/{{lane_pair}}/screen", "get",
            "What a lane pair's kiosk shows: its matches and the result settled there last",
            response=r.LaneScreen, errors=("404",), parameters=pair)
    doc.add(f"{base}/matches", "get", "Every match of this centre", response=r.MatchList)
    doc.add(f"{base}/matches", "post", "Create a match on lane slots",
            response=MatchView, status="201", body=s.CreateMatchBody, errors=("409",),
            security=COMMISSIONER)
    doc.add(match, "get", "The public state of a match (never the draw pile's order)",
            response=MatchView, errors=("404",), parameters=match_id)
    doc.add(f"{match}/lanes", "get", "The match's lane slots", response=r.MatchLanes,
            errors=("404",), parameters=match_id)
    doc.add(f"{match}/lanes", "put", "Move the match's bowlers between lane slots",
            response=r.MatchLanes, body=s.ReassignLanesBody, errors=("404", "409"),
            security=COMMISSIONER, parameters=match_id)
    doc.add(f"{match}/undo", "get", "What the desk's undo would take back now, in words",
            response=r.Undoable, errors=("404",), security=COMMISSIONER, parameters=match_id)
    doc.add(f"{base}/held", "get", "Feed balls held for the desk (not placed in the ledger)",
            response=r.HeldList, security=COMMISSIONER, errors=("422",),
            parameters=query_parameters(q.HeldQuery))
    held = [{**_path("item_id", {"type": "integer", "minimum": 1}), "example": 1}]
    doc.add(f"{base}/held/{{item_id}}/apply", "post", "Offer a held ball to the ledger again",
            response=r.DeskDone, body=s.ApplyHeldBody, errors=("404", "409"), security=COMMISSIONER,
            parameters=held)
    doc.add(f"{base}/held/{{item_id}}/discard", "post", "Discard a held ball, with a reason",
            response=r.DeskDone, body=s.DiscardHeldBody, errors=("404", "409"),
            security=COMMISSIONER, parameters=held)
    doc.add(f"{base}/held/discard", "post",
            "Discard many held balls with one reason: all of them, or none",
            response=r.HeldDiscarded, body=s.DiscardManyHeldBody,
            errors=("404", "409"), security=COMMISSIONER)
    doc.add(f"{match}/resync", "post", "Bring a bowler in step with the scorer's sheet",
            response=r.DeskDone, body=s.ResyncBody, errors=("404", "409"),
            security=COMMISSIONER, parameters=match_id)
    doc.add(f"{match}/bowlers", "get", "The bowlers: seat, lane slot, game, money",
            response=r.BowlerList, errors=("404",), parameters=match_id)
    doc.add(f"{match}/hands", "get", "Every bowler's cards and best hand in words",
            response=r.HandList, errors=("404",), parameters=match_id)
    doc.add(f"{match}/pending", "get", "Open decisions with deadline and choices",
            response=r.PendingList, errors=("404",), parameters=match_id)
    doc.add(f"{match}/reviews", "get", "Review items open for the commissioner",
            response=r.ReviewList, errors=("404",), parameters=match_id)
    doc.add(f"{match}/events", "get", "Public events after a sequence number, in order",
            response=r.EventPage, errors=("404", "422"),
            parameters=[*match_id, *query_parameters(q.EventsQuery)])
    doc.add(f"{match}/export", "get", "A settled or void match's whole log, revealed seed and "
            "chain head, for anyone to verify (docs/fairness.md)", response=r.MatchExport,
            errors=("404", "409"), parameters=match_id)
    doc.add(f"{match}/story", "get", "A settled or void match's story: every card movement "
            "with the ball or ruling that caused it, in plain words", response=MatchStory,
            errors=("404", "409"), parameters=match_id)
    doc.add(f"{base}/feeds", "get", "Health of every scoreboard feed", response=r.FeedList)
    doc.add(f"{base}/odds/record", "get", "The live odds' record on the centre's settled "
            "matches: chance given against share won per tenth, Brier against 1/n "
            "(docs/odds.md)", response=OddsRecordView)

    for kind, body in s.COMMAND_BODIES.items():
        doc.add(f"{match}/commands/{kind}", "post",
                (body.__doc__ or kind).strip().splitlines()[0], response=r.CommandAccepted,
                body=body, errors=("404", "409"), security=COMMISSIONER, parameters=match_id)

    doc.add_report(f"{base}/settlement", "The night: per bowler paid, won and net",
                   "The settlement as CSV (header row first)", response=r.SettlementReport,
                   errors=("422",), security=COMMISSIONER,
                   parameters=query_parameters(q.SettlementQuery))
    doc.add_report(f"{base}/audit", "Every stored event: time, match, seq, type, actor",
                   "The audit log as CSV (header row first)", response=r.AuditPage,
                   errors=("422",), security=COMMISSIONER,
                   parameters=query_parameters(q.AuditQuery))

    doc.add(f"{base}/audit/held", "get", "What was done with held balls, the latest first: "
            "one line per command (a bulk discard is one line), read from the held-ball log",
            response=r.HeldAuditPage, errors=("422",), security=COMMISSIONER,
            parameters=query_parameters(q.HeldAuditQuery))

    doc.add(f"{base}/tokens", "get", "The centre's API tokens (never their secrets)",
            response=r.TokenList, security=COMMISSIONER_SESSION)
    doc.add(f"{base}/tokens", "post", "Make an API token (its secret is shown only now)",
            response=r.TokenCreated, status="201", body=s.CreateTokenBody,
            security=COMMISSIONER_SESSION)
    doc.add(f"{base}/tokens/{{token_id}}", "delete", "Revoke an API token", response=None,
            status="204", errors=("404",), security=COMMISSIONER_SESSION,
            parameters=[_path("token_id", {"type": "integer"})])
    doc.add(f"{base}/kiosks", "get", "The kiosks paired to send bowlers' decisions",
            response=r.KioskList, security=COMMISSIONER_SESSION)
    doc.add(f"{base}/kiosks/pair", "post", "Pair the kiosk showing this code (its lanes only)",
            response=r.KioskView, body=s.PairKioskBody, errors=("404",),
            security=COMMISSIONER_SESSION)
    doc.add(f"{base}/kiosks/{{device_id}}", "delete", "Revoke a paired kiosk at once",
            response=None, status="204", errors=("404",), security=COMMISSIONER_SESSION,
            parameters=[_path("device_id", {"type": "integer"})])
    add_league_paths(doc, base, _path, COMMISSIONER)
    add_phone_paths(doc, base, _path, COMMISSIONER_SESSION)
    add_side_game_paths(doc, base, _path, COMMISSIONER, COMMISSIONER_SESSION)
    doc.add(f"{base}/openapi.json", "get", "This document", response={"type": "object"})

    return {
        "openapi": "3.1.0",
        "info": {"title": "Alley Poker", "version": "1",
                 "description": "Bowling Poker at the alley: see docs/api.md."},
        "paths": doc.paths,
        "components": {
            "schemas": doc.components,
            "securitySchemes": {
                "commissionerSession": {"type": "apiKey", "in": "cookie", "name": "session"},
                "csrfToken": {"type": "apiKey", "in": "header", "name": "X-CSRFToken"},
                "apiToken": {"type": "http", "scheme": "bearer"},
                "phoneSession": {"type": "apiKey", "in": "cookie", "name": "alley_phone"},
            },
        },
    }
