"""The league routes' part of the OpenAPI document (``/api/v1/leagues...``, seat requests).

>>> from alley_poker.web.openapi import openapi_document
>>> paths = openapi_document()["paths"]
>>> sorted(paths["/api/v1/leagues/{league_id}/roster"]["post"]["responses"])
['201', '400', '401', '403', '404', '413', '422']
"""

from __future__ import annotations

from typing import Any, get_type_hints

from pydantic import BaseModel, create_model

from alley_poker.league import Bowler
from alley_poker.web import league_schemas as s
from alley_poker.web import queries as q
from alley_poker.web.openapi_parameters import query_parameters


class LeagueView(BaseModel):
    league_id: str
    name: str
    rule_book: str
    ante_cents: int
    weekday: int
    weekday_name: str
    start_time: str
    time_zone: str
    lane_pairs: list[list[int]]
    games: int
    handicap_percent: int
    handicap_basis: int
    handicap: str
    lowest_draw_by: str
    tonight: str


class LeagueList(BaseModel):
    leagues: list[LeagueView]


#: A bowler as the roster shows them: the roster's :class:`~alley_poker.league.Bowler`, every
#: field given, and tonight's ``handicap`` (pins per game).
RosterBowler = create_model(
    "RosterBowler", **{name: (kind, ...) for name, kind in get_type_hints(Bowler).items()},
    handicap=(int, ...))


class RosterList(BaseModel):
    bowlers: list[RosterBowler]


class RosterImported(BaseModel):
    imported: int
    bowlers: list[RosterBowler]


class NightMatch(BaseModel):
    match_id: str
    status: str
    lanes: list[int]
    bowlers: list[str]
    pot_cents: int


class NightView(BaseModel):
    night_id: str
    night_date: str
    checked_in: list[int]
    started_at: str | None
    started_by: str | None
    matches: list[NightMatch]


class NightList(BaseModel):
    time_zone: str
    tonight: str
    nights: list[NightView]


class StartedMatch(BaseModel):
    match_id: str
    lanes: list[int]
    kiosk: str
    bowlers: list[str]


class NightStartedView(BaseModel):
    night_id: str
    night_date: str
    matches: list[StartedMatch]


class StandingsReport(BaseModel):
    league_id: str
    time_zone: str
    standings: list[dict[str, Any]]
    by_wins: list[int]
    net_cents: int
    guests_net_cents: int
    house_cents: int
    in_play_cents: int
    reconciles: bool


class BowlerHistory(BaseModel):
    bowler_id: int
    name: str
    time_zone: str
    totals: dict[str, Any] | None
    matches: list[dict[str, Any]]


class SeatRequestView(BaseModel):
    id: int
    match_id: str
    lane: int
    slot: int
    scorer_name: str
    raised_at: str | None
    choices: list[str]
    match_status: str
    can_seat: bool


class SeatRequestList(BaseModel):
    seat_requests: list[SeatRequestView]


class SeatPicked(BaseModel):
    done: bool
    message: str
    id: int


def add_league_paths(doc: Any, base: str, path, security: list) -> None:
    """Add every league route to ``doc`` (an ``openapi._Builder``)."""
    league_id = [{**path("league_id", {"type": "string", "minLength": 1}), "example": "tue"}]
    bowler_id = [{**path("bowler_id", {"type": "integer", "minimum": 0}), "example": 1}]
    night_date = [{**path("night_date", {"type": "string"}), "example": "2026-11-24"}]
    request_id = [{**path("request_id", {"type": "integer", "minimum": 0}), "example": 1}]
    leagues = f"{base}/leagues"
    league = f"{leagues}/{{league_id}}"
    csv = {"type": "string"}

    doc.add(leagues, "get", "The centre's leagues", response=LeagueList, security=security)
    doc.add(leagues, "post", "Make a league", response=LeagueView, status="201",
            body=s.CreateLeagueBody, errors=("409",), security=security)
    doc.add(league, "get", "A league's settings", response=LeagueView, errors=("404",),
            security=security, parameters=league_id)
    doc.add(league, "put", "Change a league's settings (the fields given)",
            response=LeagueView, body=s.UpdateLeagueBody, errors=("404",), security=security,
            parameters=league_id)
    doc.add(f"{league}/bowlers", "get", "The league's roster (active bowlers unless asked)",
            response=RosterList, errors=("404", "422"), security=security,
            parameters=[*league_id, *query_parameters(q.RosterQuery)])
    doc.add(f"{league}/bowlers", "post", "Add a bowler to the roster", response=RosterBowler,
            status="201", body=s.AddBowlerBody, errors=("404",), security=security,
            parameters=league_id)
    doc.add(f"{league}/bowlers/{{bowler_id}}", "patch",
            "Edit a bowler; active false retires them, true re-activates them",
            response=RosterBowler, body=s.EditBowlerBody, errors=("404",), security=security,
            parameters=[*league_id, *bowler_id])
    doc.add(f"{league}/roster", "post", "Import a roster CSV: all rows or none (400 lists "
            "every bad row as error.rows: line, reason)", response=RosterImported,
            status="201", body=s.RosterImportBody, errors=("404",), security=security,
            parameters=league_id)
    doc.add(f"{league}/nights", "get", "The league's nights, times in its time zone",
            response=NightList, errors=("404",), security=security, parameters=league_id)
    doc.add(f"{league}/nights", "post", "Check in tonight's bowlers and start every match",
            response=NightStartedView, status="201", body=s.StartNightBody,
            errors=("404", "409"), security=security, parameters=league_id)
    doc.add(f"{league}/nights/{{night_date}}/sheet", "get",
            "A night's sheet: every match, pot, winners, payouts, refunds, totals, and each "
            "match's chain head (chain_heads)",
            response={"type": "object"}, errors=("404",), security=security,
            parameters=[*league_id, *night_date])
    doc.add(f"{league}/nights/{{night_date}}.csv", "get", "A night as CSV",
            response=csv, errors=("404",), security=security,
            parameters=[*league_id, *night_date], media="text/csv")
    doc.add_report(f"{league}/standings", "Season standings and the money's reconciliation",
                   "Season standings as CSV", response=StandingsReport, errors=("404",),
                   security=security, parameters=league_id)
    doc.add(f"{league}/roster.csv", "get", "The roster as CSV", response=csv,
            errors=("404",), security=security, parameters=league_id, media="text/csv")
    doc.add(f"{league}/bowlers/{{bowler_id}}/history", "get",
            "A bowler's season totals and every match they bowled", response=BowlerHistory,
            errors=("404",), security=security, parameters=[*league_id, *bowler_id])
    doc.add(f"{base}/seat-requests", "get",
            "Scorer names no bowler matched, waiting for the desk to pick",
            response=SeatRequestList, security=security)
    doc.add(f"{base}/seat-requests/{{request_id}}/pick", "post",
            "Say who a scorer's name is: seat them, apply their held balls",
            response=SeatPicked, body=s.PickSeatBody, errors=("404", "409"),
            security=security, parameters=request_id)
    doc.add(f"{base}/seat-requests/{{request_id}}/dismiss", "post",
            "Close a seat request without seating anyone (its match is over)",
            response=SeatPicked, errors=("404", "409"), security=security,
            parameters=request_id)
