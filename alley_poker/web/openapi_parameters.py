"""How the OpenAPI document names schemas and turns a query model into its parameters
(shared by ``openapi`` and the route groups that add their own paths)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

#: Where a model's schema lives in the document.
REF = "#/components/schemas/{model}"


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """The query parameters a route validates with ``model``, one per field.

    >>> from alley_poker.web.queries import SettlementQuery
    >>> [(p["name"], p["schema"]) for p in query_parameters(SettlementQuery)]
    [('date', {'format': 'date', 'type': 'string'})]
    """
    schema = model.model_json_schema(ref_template=REF)
    parameters = []
    for name, field in schema["properties"].items():
        field = {key: value for key, value in field.items() if key != "title"}
        description = field.pop("description", "")
        # ``X | None`` only means "may be left out": a query string has no null to send.
        if "anyOf" in field:
            (given,) = [choice for choice in field.pop("anyOf") if choice != {"type": "null"}]
            field = {**given, **field}
        if "default" in field and field["default"] is None:
            del field["default"]
        parameters.append({"name": name, "in": "query",
                           "required": name in schema.get("required", ()),
                           "schema": field, "description": description})
    return parameters
