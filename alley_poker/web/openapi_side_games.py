"""The side-game routes' part of the OpenAPI document (brackets and pots of a league night).

>>> from alley_poker.web.openapi import openapi_document
>>> paths = openapi_document()["paths"]
>>> night = "/api/v1/leagues/{league_id}/nights/{night_date}/side-games"
>>> sorted(paths[night + "/entries"]["post"]["responses"])
['200', '400', '401', '403', '404', '409', '413', '422']
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from alley_poker.web import side_game_schemas as s


class SideMoneyLine(BaseModel):
    bowler: int
    name: str | None
    paid_cents: int
    won_cents: int
    refunded_cents: int
    net_cents: int


class SideMoney(BaseModel):
    entries_cents: int
    payouts_cents: int
    refunds_cents: int
    organiser_cents: int
    in_play_cents: int
    balanced: bool
    bowlers: list[SideMoneyLine]


class SideDraw(BaseModel):
    sealed: bool
    commitment: str | None
    salt: str | None
    committed_at: str | None
    seed: str | None


class SideNightView(BaseModel):
    """The desk's night: each game's settings, entries, preview (before the draw), brackets
    (every match: sides, names, status, winner, how; payouts) or pot (standings, waiting
    on, payouts), the draw's seal, the money and the paid results the games now change."""

    night_id: str
    league_id: str
    night_date: str
    games_a_night: int
    seq: int
    draw: SideDraw
    games: list[dict[str, Any]]
    money: SideMoney
    pending_changes: list[dict[str, Any]]


class PhoneBracket(BaseModel):
    game: str
    bracket: int
    alive: bool
    next_game: int | None
    next_round: int | None
    opponent: str | None
    won_cents: int


class PhoneSideGames(BaseModel):
    bowler: str
    night_id: str | None
    side_games: dict[str, Any] | None


class AliveRow(BaseModel):
    name: str
    brackets: list[dict[str, Any]]


class LaneSideGames(BaseModel):
    lanes: list[int]
    night_id: str | None
    drawn: bool
    alive: list[AliveRow]


def add_side_game_paths(doc: Any, base: str, path, security: list,
                        commissioner_session: list) -> None:
    """Add every side-game route to ``doc`` (an ``openapi._Builder``)."""
    night = [{**path("league_id", {"type": "string", "minLength": 1}), "example": "tue"},
             {**path("night_date", {"type": "string"}), "example": "2026-11-24"}]
    url = f"{base}/leagues/{{league_id}}/nights/{{night_date}}/side-games"
    refusals = ("404", "409")
    doc.add(url, "post", "Open a league night's side games (brackets, pots)",
            response=SideNightView, status="201", body=s.EmptyBody,
            errors=refusals, security=security, parameters=night)
    doc.add(url, "get", "The night's side games: settings, entries, the draw preview, every "
            "bracket's tree, the pots, the money, pending changes", response=SideNightView,
            errors=("404",), security=security, parameters=night)
    doc.add(f"{url}/games/{{game}}", "put",
            "Set (or, before its first entry, change) a side game: a bracket game or a pot",
            response=SideNightView, body=s.SideGameBody, errors=refusals, security=security,
            parameters=[*night, path("game")])
    for tail, body, summary in (
            ("entries", s.EntryBody, "Record a bowler's entries and what they paid"),
            ("withdrawals", s.WithdrawBody, "Withdraw entries before the draw (refunded)"),
            ("draw", s.EmptyBody, "Seal and make the draw (the night's first ball "
             "does it when the desk has not)"),
            ("reveal", s.EmptyBody, "Reveal the draw's seed (the night's close does it)"),
            ("absences", s.AbsenceBody, "Mark a bowler absent for a game"),
            ("roll-offs", s.RollOffBody, "Record who won a tied match's roll-off"),
            ("payments", s.PaymentBody, "Pay a decided bracket, or a pot"),
            ("changes", s.ChangeBody, "Confirm (accept) or keep a paid result the games "
             "changed")):
        doc.add(f"{url}/{tail}", "post", summary, response=SideNightView, body=body,
                errors=refusals, security=security, parameters=night)
    doc.add(f"{url}/money", "get", "The night's side money per bowler and in total",
            response=SideMoney, errors=("404",), security=security, parameters=night)
    doc.add(f"{url}/export", "get", "The night's side-game export (alley-poker verify)",
            response={"type": "object"}, errors=("404",), security=security,
            parameters=night)
    doc.add(f"{base}/side-nights/{{night_id}}/export", "get",
            "A bracket night's export for anyone, once its seed is revealed (public, as a "
            "settled match's; /verify checks it)", response={"type": "object"},
            errors=("404", "409"),
            parameters=[{**path("night_id"), "example": "tue-2026-11-24"}])
    for tail in ("money.csv", "brackets.csv"):
        doc.add(f"{url}/{tail}", "get", f"The night's side games: {tail}",
                response={"type": "string"}, errors=("404",), security=security,
                parameters=night, media="text/csv")
    doc.add(f"{base}/phone/side-games", "get",
            "The phone's bowler's brackets: alive or out, who they face next, what they won",
            response=PhoneSideGames, errors=("401", "429"),
            security=[{"phoneSession": []}])
    doc.add(f"{base}/lanes/{{lane_pair}}/side-games", "get",
            "Who on these lanes is still alive in which brackets (public: no money)",
            response=LaneSideGames, errors=("404",),
            parameters=[{**path("lane_pair"), "example": "3-4"}])
