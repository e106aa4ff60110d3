"""The treasurer's night sheet as data: every match of one league night — lanes, pot,
winners and their hands, payouts, refunds, antes and buys per bowler — and the night's totals.
A page (HTML with a print stylesheet) or a CSV export renders it; this module only reads the
:class:`~alley_poker.league.standings.SeasonProjection`.

The night's side games (brackets, pots: :mod:`alley_poker.side_games`) are on the same sheet:
the caller hands in their money (``side_money``, the night's
:class:`~alley_poker.side_games.NightMoney`, folded from their own log), and the sheet
balances only when both do: the matches' money, and the side games' entries = payouts +
refunds + organiser's share (+ what is still in play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from alley_poker.league.standings import MatchLine, SeasonProjection
from alley_poker.ledger.match_status import FINISHED


class SideMoney(Protocol):
    """What the sheet reads of the side games' money (``side_games.NightMoney``; not
    imported: the side games build on the league, not the other way round)."""

    entries_cents: int
    payouts_cents: int
    refunds_cents: int
    organiser_cents: int
    in_play_cents: int
    bowlers: tuple[Any, ...]

    @property
    def balanced(self) -> bool: ...


@dataclass(frozen=True)
class SheetMatch:
    match_id: str
    lanes: tuple[int, ...]          # as the caller knows them (the service's lane log)
    status: str
    created_at: datetime            # aware UTC; the renderer shows league-local time
    settled_at: datetime | None
    pot_cents: int                  # antes and buys paid in
    paid_out_cents: int
    refunded_cents: int
    house_cents: int                # left in a settled pot (odd cents)
    winners: tuple[str, ...]        # seat names, once settled
    lines: tuple[MatchLine, ...]    # every seat, in seat order


@dataclass(frozen=True)
class NightSheet:
    league_id: str
    night_id: str
    night_date: str
    matches: tuple[SheetMatch, ...]
    antes_cents: int
    buys_cents: int
    paid_out_cents: int
    refunded_cents: int
    house_cents: int
    in_play_cents: int              # pots of matches neither settled nor void
    side_money: SideMoney | None = None    # the night's side games, when it has any

    @property
    def balanced(self) -> bool:
        """Every cent paid in is paid out, refunded, the house's, or still in play (the
        side games' money too)."""
        return (self.antes_cents + self.buys_cents == self.paid_out_cents
                + self.refunded_cents + self.house_cents + self.in_play_cents
                and (self.side_money is None or self.side_money.balanced))


def night_sheet(projection: SeasonProjection, league_id: str, night_id: str, *,
                lanes: Mapping[str, Sequence[int]] | None = None,
                side_money: SideMoney | None = None) -> NightSheet:
    """The sheet of one night (``KeyError`` naming the night when it has no match)."""
    match_ids = projection.match_ids(league_id, night_id)
    if not match_ids:
        raise KeyError(f"league {league_id!r} has no match on night {night_id!r}")
    matches = []
    night_date = ""
    for match_id in match_ids:
        tag, state, created_at, settled_at = projection.match(match_id)
        night_date = tag["night_date"]
        lines = tuple(projection.lines(match_id))
        paid_in = sum(li.antes_cents + li.buys_cents for li in lines)
        refunded = sum(li.refunds_cents for li in lines)
        paid_out = sum(li.won_cents for li in lines)
        matches.append(SheetMatch(
            match_id=match_id, lanes=tuple((lanes or {}).get(match_id, ())),
            status=state.status, created_at=created_at, settled_at=settled_at,
            pot_cents=paid_in, paid_out_cents=paid_out, refunded_cents=refunded,
            house_cents=state.pot_cents if state.status == "settled" else 0,
            winners=tuple(li.seat for li in lines if li.won), lines=lines))
    in_play = sum(m.pot_cents - m.paid_out_cents - m.refunded_cents for m in matches
                  if m.status not in FINISHED)
    return NightSheet(
        league_id=league_id, night_id=night_id, night_date=night_date,
        matches=tuple(matches),
        antes_cents=sum(li.antes_cents for m in matches for li in m.lines),
        buys_cents=sum(li.buys_cents for m in matches for li in m.lines),
        paid_out_cents=sum(m.paid_out_cents for m in matches),
        refunded_cents=sum(m.refunded_cents for m in matches),
        house_cents=sum(m.house_cents for m in matches), in_play_cents=in_play,
        side_money=side_money)
