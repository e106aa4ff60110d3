"""Query-string schemas (pydantic): every query parameter a route reads is a field here.

A failed parameter answers like a failed body field (422 ``validation_failed`` naming it) by
way of :func:`alley_poker.web.errors.validation_error`; the OpenAPI document lists each
model's fields as the route's query parameters.  Parameters a model does not name are
ignored, as browsers and proxies add their own (``_=`` cache-busters).

>>> EventsQuery.model_validate({"since": "4", "limit": ""})
EventsQuery(since=4, limit=100)
>>> SettlementQuery.model_validate({"date": "2026-02-30"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for SettlementQuery
date
  Value error, must be a day as YYYY-MM-DD ...
>>> sorted(PinsQuery.model_validate({"standing": "7-10"}).standing)
[7, 10]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Annotated, Any, Literal, TypeVar

from flask import request
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from alley_poker.bowling.pins import PINS, parse_leave
from alley_poker.web.errors import ApiError, validation_error

MAX_EVENTS = 1000
MAX_AUDIT = 5000

Query = TypeVar("Query", bound=BaseModel)


def _iso_day(value: Any) -> Any:
    # Only the one spelling: pydantic alone would also take a Unix time such as "1700000000".
    if not isinstance(value, str):
        return value
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return date.fromisoformat(value)
        except ValueError:  # 2026-02-30
            pass
    raise ValueError("must be a day as YYYY-MM-DD")


def _leave(value: Any) -> Any:
    return parse_leave(value) if isinstance(value, str) else value


Day = Annotated[date, BeforeValidator(_iso_day)]
#: Pins as bowlers write them (``7-10``, ``none``); a BowlingError is a ValueError.
Leave = Annotated[frozenset[int], BeforeValidator(_leave)]


class QueryParameters(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ApiQuery(QueryParameters):
    """An API query string: a parameter left empty (``?date=``) is as if not given."""

    @model_validator(mode="before")
    @classmethod
    def _empty_is_absent(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {name: value for name, value in data.items() if value != ""}
        return data


class EventsQuery(ApiQuery):
    since: Annotated[int, Field(ge=0, le=2**31, description="events after this seq")] = 0
    limit: Annotated[int, Field(ge=1, le=MAX_EVENTS,
                                description="at most this many (default 100)")] = 100


class HeldQuery(ApiQuery):
    match_id: str | None = Field(default=None, description="only this match's held balls")
    state: Literal["open", "resolved"] = Field(default="open", description=(
        "open: the balls waiting for the desk, oldest first; resolved: their audit trail, "
        "who resolved each, how, when and why, the latest first (at most 1,000)"))


class HeldAuditQuery(ApiQuery):
    match_id: str | None = Field(default=None, description="only balls held for this match")


class SettlementQuery(ApiQuery):
    date: Day | None = Field(default=None, description=(
        "only matches created on this UTC day (YYYY-MM-DD)"))


class AuditQuery(ApiQuery):
    match_id: str | None = Field(default=None, description="one match")
    actor: str | None = Field(default=None, description="who acted, e.g. commissioner:tablet")
    type: str | None = Field(default=None, description="event type, e.g. ball_recorded")
    bowler: str | None = Field(default=None, description="events naming this bowler")
    since: Annotated[int, Field(ge=0, le=2**62, description="entries after this audit id")] = 0
    order: Literal["oldest", "newest"] = Field(default="oldest", description=(
        "oldest first (read on with since) or newest first (read on with before)"))
    before: Annotated[int | None, Field(ge=1, le=2**62, description=(
        "with order=newest: entries before this audit id"))] = None
    limit: Annotated[int, Field(ge=1, le=MAX_AUDIT,
                                description="at most this many (default 200; the CSV: all)")] = 200


class RosterQuery(ApiQuery):
    include_retired: bool = Field(default=False, description=(
        "true: retired bowlers too (they keep their history)"))


class PinsQuery(QueryParameters):
    """The tablet's pin diagram.  Here an empty ``standing=`` is a leave: no pin standing."""

    before: Leave = Field(default=PINS, description="pins standing before the ball (a rack)")
    standing: Leave = Field(description="pins standing after it, such as 7-10")
    full_rack: bool | None = Field(
        default=None, description="whether the ball is the first at a fresh rack (only such a "
        "ball leaves a split); default: when ten pins face it")


def validated_query(model: type[Query], *, status: int = 422,
                    code: str = "validation_failed") -> Query:
    """The request's query string validated by ``model``; an ApiError naming the parameter."""
    try:
        return model.model_validate(request.args.to_dict())
    except ValidationError as invalid:
        problem = validation_error(invalid)
        raise ApiError(status, code, problem.message, problem.field) from None
