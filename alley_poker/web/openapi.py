"""The OpenAPI 3.1 document of ``/api/v1``, generated from the pydantic schemas.

>>> doc = openapi_document()
>>> doc["openapi"], sorted(doc["paths"])[0]
('3.1.0', '/api/v1/matches')
>>> "RecordBallBody" in doc["components"]["schemas"]
True
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from alley_poker.web.schemas import (
    COMMAND_BODIES,
    CommandAccepted,
    ErrorResponse,
    MatchList,
)

REF = "#/components/schemas/{model}"


def _schema_of(model: type[BaseModel], components: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template=REF)
    for name, definition in schema.pop("$defs", {}).items():
        components[name] = definition
    components[model.__name__] = schema
    return {"$ref": REF.format(model=model.__name__)}


def _json(ref: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref}}}


def openapi_document() -> dict[str, Any]:
    """The whole document (a fresh dict each call)."""
    components: dict[str, Any] = {}
    error = _schema_of(ErrorResponse, components)
    match_id = {"name": "match_id", "in": "path", "required": True, "schema": {"type": "string"}}
    paths: dict[str, Any] = {
        "/api/v1/matches": {"get": {
            "summary": "Every match the store knows",
            "responses": {"200": _json(_schema_of(MatchList, components), "the matches")},
        }},
        "/api/v1/matches/{match_id}": {"get": {
            "summary": "The public state of a match (never the draw pile's order)",
            "parameters": [match_id],
            "responses": {"200": _json({"type": "object"}, "the public state"),
                          "404": _json(error, "no such match")},
        }},
    }
    accepted = _schema_of(CommandAccepted, components)
    for kind, body in COMMAND_BODIES.items():
        paths[f"/api/v1/matches/{{match_id}}/commands/{kind}"] = {"post": {
            "summary": (body.__doc__ or kind).strip().splitlines()[0],
            "parameters": [match_id, {"name": "X-CSRFToken", "in": "header", "required": True,
                                      "schema": {"type": "string"}}],
            "security": [{"commissionerSession": []}],
            "requestBody": {"required": True,
                            "content": {"application/json": {
                                "schema": _schema_of(body, components)}}},
            "responses": {
                "200": _json(accepted, "the events the command produced"),
                "400": _json(error, "the body is not a JSON object"),
                "401": _json(error, "not signed in as the commissioner"),
                "403": _json(error, "missing or wrong CSRF token"),
                "404": _json(error, "no such match"),
                "409": _json(error, "refused by the ledger's rules"),
                "422": _json(error, "the body failed validation"),
            },
        }}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Alley Poker", "version": "1"},
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"commissionerSession": {
                "type": "apiKey", "in": "cookie", "name": "session"}},
        },
    }
