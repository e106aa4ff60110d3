"""A match as a bowler names it: its league and lanes ("Thursday Night Poker · lanes 1-2"),
or its lanes alone ("Lanes 1-2") for a match outside a league; never its id.

The phone's header and the screens use it so that an internal match id
(``thu-night-2026-11-26-1-2``) is never what a bowler reads.
"""

from __future__ import annotations

from typing import Any

from alley_poker.league import LeagueNotFound
from alley_poker.service import AlleyService
from alley_poker.web.centre_access import current_centre


def lanes_of(service: AlleyService, match_id: str) -> tuple[int, ...]:
    """The lanes the match is on, or was on when it finished (empty when unknown)."""
    assignment = service.lanes.assignment(match_id)
    if assignment is not None:
        return tuple(assignment.lanes)
    if service.assignments is not None:
        slots = service.assignments.last_held().get(match_id, {})
        return tuple(sorted({lane for lane, _slot in slots}))
    return ()


def lanes_words(lanes: tuple[int, ...]) -> str:
    """``(1, 2)`` as "lanes 1-2", ``(4,)`` as "lane 4", nothing as ""."""
    if not lanes:
        return ""
    if len(lanes) == 1:
        return f"lane {lanes[0]}"
    return f"lanes {lanes[0]}-{lanes[-1]}" if list(lanes) == list(range(lanes[0], lanes[-1] + 1)) \
        else "lanes " + ", ".join(str(lane) for lane in lanes)


def league_name(match_league: dict[str, Any] | None) -> str | None:
    """The name of the league a match's tag names, when the league store knows it."""
    if not match_league:
        return None
    desk = current_centre().league_desk
    if desk is None:
        return None
    try:
        return desk.store.league(match_league["league_id"]).name
    except LeagueNotFound:  # a league since removed: no name
        return None


def match_title(service: AlleyService, match_id: str) -> str:
    """"Thursday Night Poker · lanes 1-2" for a league match, "Lanes 1-2" otherwise."""
    where = lanes_words(lanes_of(service, match_id))
    name = league_name(service.state(match_id).league)
    if name:
        return f"{name} · {where}" if where else name
    return where[:1].upper() + where[1:] if where else "Tonight's match"
