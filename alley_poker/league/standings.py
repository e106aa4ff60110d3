"""The standings at the domain layer: a projection of the event log, never a second truth.

:class:`SeasonProjection` is fed stored event records in log order (``apply``), follows every
match that ``match_created`` tagged with a league, and folds each through the ledger's own
:class:`~alley_poker.ledger.MatchState` — so an undone desk action, an undone result, a void
with its refunds, a bowler removed before the first ball all come out exactly as the ledger
has them.  Figures per roster bowler are read off those states: nights, matches, wins, money
(antes, buys, refunds, won, net), best hand, strikes, spares, gutters, games, pins, average.

Money reconciles: every cent a bowler paid is in a pot, was refunded, was paid out, or was
kept by the house (odd cents with ``odd_cents = "house"``), so for every league
``sum(net) + guests + house + in_play == 0`` (see :meth:`SeasonProjection.reconciliation`;
``in_play`` is 0 once every match is settled or void, ``guests`` is money of seats the tag
does not name).

>>> projection = SeasonProjection()
>>> projection.apply("m1", {"match_id": "m1", "seq": 1, "type": "match_created",
...     "at": "2026-11-24T19:00:00Z", "data": {"bowlers": ["Ann", "Bob"], "games": 1,
...     "ante_cents": 100, "rules": {}, "test_mode": False, "actor": "commissioner:pat",
...     "command": "CreateMatch", "action": 1}})
>>> projection.leagues(), projection.standings("tue")
([], [])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from alley_poker.bowling import BowlingError
from alley_poker.ledger import MatchState, event_from_record
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.values import hand_value


class ProjectionGap(Exception):
    """A record does not follow the match's last one (``have`` is the seq the projection holds;
    the caller reads the store from there and applies what it missed)."""

    def __init__(self, match_id: str, have: int, got: int):
        self.match_id, self.have, self.got = match_id, have, got
        super().__init__(f"match {match_id}: record #{got} does not follow #{have}")


@dataclass(frozen=True)
class BestHand:
    describe: str               # the hand in words, "Three of a kind, aces"
    cards: tuple[str, ...]      # the five cards that make it (jokers as GJ/BJ; none for
                                # an unbeatable hand, which is beyond the cards)
    match_id: str


@dataclass(frozen=True)
class MatchLine:
    """One bowler in one league match (a line of their history)."""

    match_id: str
    league_id: str
    night_id: str
    night_date: str
    seat: str                   # the name the match seated them under
    bowler_id: int | None       # None: a seat the league tag does not name (a guest)
    status: str                 # open, playing, ending, settled, void — or "removed"
    scores: tuple[int, ...]     # completed games, in order
    handicap: int
    won: bool
    won_cents: int
    antes_cents: int
    buys_cents: int
    refunds_cents: int
    net_cents: int
    hand: str                   # the hand in words at the showdown ("" before it)
    cards: tuple[str, ...]
    strikes: int
    spares: int
    gutters: int


@dataclass(frozen=True)
class StandingRow:
    bowler_id: int
    name: str                   # the seat name of their latest match
    nights: int
    matches: int
    matches_won: int
    money_won_cents: int
    antes_cents: int
    buys_cents: int
    refunds_cents: int
    net_cents: int
    best_hand: BestHand | None
    strikes: int
    spares: int
    gutters: int
    games: int
    pins: int
    average: int | None         # pins // games, None before a complete game


@dataclass(frozen=True)
class Reconciliation:
    bowlers_net_cents: int      # the sum of every roster bowler's net
    guests_net_cents: int
    house_cents: int            # kept by the house (odd cents of settled matches)
    in_play_cents: int          # in the pots of matches not yet settled or void

    @property
    def balanced(self) -> bool:
        return (self.bowlers_net_cents + self.guests_net_cents + self.house_cents
                + self.in_play_cents) == 0


@dataclass
class _Tracked:
    """One league match: its tag, its state as the ledger folds it, and the money the state
    forgets (antes, and refunds of bowlers removed or of a void)."""

    tag: dict[str, Any]
    state: MatchState
    created_at: datetime
    settled_at: datetime | None = None
    antes: dict[str, int] = field(default_factory=dict)
    refunds: dict[str, int] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    lines: tuple[int, list[MatchLine]] | None = None  # (seq, lines) cache

    def apply(self, record_type: str, data: Mapping[str, Any], at: datetime) -> None:
        if record_type == "match_started":
            for seat, cents in data["antes"].items():
                self.antes[seat] = self.antes.get(seat, 0) + cents
        elif record_type == "bowler_added":
            self.antes[data["bowler"]] = self.antes.get(data["bowler"], 0) + data["ante_paid"]
            if data["bowler"] in self.removed:
                self.removed.remove(data["bowler"])
        elif record_type == "bowler_removed":
            seat = data["bowler"]
            self.refunds[seat] = self.refunds.get(seat, 0) + data["refund_cents"]
            self.removed.append(seat)
        elif record_type == "match_voided":
            for seat, cents in data["refunds"].items():
                self.refunds[seat] = self.refunds.get(seat, 0) + cents
        elif record_type == "match_settled":
            self.settled_at = at
        elif record_type == "result_undone":
            self.settled_at = None


class SeasonProjection:
    """Standings, histories and nights of every league, from stored event records."""

    def __init__(self) -> None:
        self._tracked: dict[str, _Tracked] = {}
        self._ignored: set[str] = set()

    # ------------------------------------------------------------------------ feeding
    def apply(self, match_id: str, record: Mapping[str, Any]) -> None:
        """Fold one stored record (``type``, ``seq``, ``at``, ``data``) of ``match_id``.

        A record the projection has already folded is skipped (the bus and a read of the
        store may both deliver it); one that skips ahead raises :class:`ProjectionGap`.
        """
        if match_id in self._ignored:
            return
        seq = record["seq"]
        tracked = self._tracked.get(match_id)
        have = tracked.state.seq if tracked else 0
        if seq <= have:
            return
        if seq != have + 1:
            raise ProjectionGap(match_id, have, seq)
        event = event_from_record({**record, "match_id": match_id})
        if tracked is None:
            if event.type != "match_created" or "league" not in event.data:
                self._ignored.add(match_id)     # not a league match: nothing to keep
                return
            tracked = self._tracked[match_id] = _Tracked(
                tag=event.data["league"], state=MatchState.empty(match_id),
                created_at=event.at)
        tracked.state.apply(event)
        tracked.apply(event.type, event.data, event.at)

    def knows(self, match_id: str) -> int:
        """The seq this projection holds of the match (0 when it never saw it)."""
        tracked = self._tracked.get(match_id)
        return tracked.state.seq if tracked else (-1 if match_id in self._ignored else 0)

    # ------------------------------------------------------------------------ reading
    def leagues(self) -> list[str]:
        """Every league id with at least one match, sorted."""
        return sorted({t.tag["league_id"] for t in self._tracked.values()})

    def match_ids(self, league_id: str, night_id: str | None = None) -> list[str]:
        """The league's matches (of one night when given) in the order they were created."""
        return [match_id for match_id, t in sorted(self._tracked.items(),
                                                   key=lambda kv: (kv[1].created_at, kv[0]))
                if t.tag["league_id"] == league_id
                and (night_id is None or t.tag["night_id"] == night_id)]

    def match(self, match_id: str) -> tuple[dict[str, Any], MatchState, datetime,
                                            datetime | None]:
        """A tracked match: its tag, state (read only), creation and settlement times."""
        t = self._tracked[match_id]
        return t.tag, t.state, t.created_at, t.settled_at

    def lines(self, match_id: str) -> list[MatchLine]:
        """Every seat of one league match (those removed too), in seat order."""
        t = self._tracked[match_id]
        if t.lines is None or t.lines[0] != t.state.seq:
            t.lines = (t.state.seq, _match_lines(match_id, t))
        return list(t.lines[1])

    def history(self, bowler_id: int) -> list[MatchLine]:
        """Every league match the bowler was seated in, oldest first."""
        return [line for match_id in self._in_order() for line in self.lines(match_id)
                if line.bowler_id == bowler_id]

    def nights(self, league_id: str) -> list[tuple[str, str]]:
        """The league's nights as ``(night_id, night_date)``, oldest first."""
        seen: dict[str, str] = {}
        for match_id in self.match_ids(league_id):
            tag = self._tracked[match_id].tag
            seen.setdefault(tag["night_id"], tag["night_date"])
        return sorted(seen.items(), key=lambda item: (item[1], item[0]))

    def standings(self, league_id: str) -> list[StandingRow]:
        """Every roster bowler who bowled in the league, by net money, then matches won."""
        rows: dict[int, dict[str, Any]] = {}
        for match_id in self.match_ids(league_id):
            t = self._tracked[match_id]
            for line in self.lines(match_id):
                if line.bowler_id is not None:
                    _add(rows.setdefault(line.bowler_id, _empty_row(line)), line, t)
        standing = [_row(bowler_id, row) for bowler_id, row in rows.items()]
        standing.sort(key=lambda r: (-r.net_cents, -r.matches_won, r.name.casefold(),
                                     r.bowler_id))
        return standing

    def house_cents(self, league_id: str) -> int:
        """Money the house kept: what is left in the pots of settled matches."""
        return sum(self._tracked[m].state.pot_cents for m in self.match_ids(league_id)
                   if self._tracked[m].state.status == "settled")

    def reconciliation(self, league_id: str) -> Reconciliation:
        lines = [line for m in self.match_ids(league_id) for line in self.lines(m)]
        return Reconciliation(
            bowlers_net_cents=sum(li.net_cents for li in lines if li.bowler_id is not None),
            guests_net_cents=sum(li.net_cents for li in lines if li.bowler_id is None),
            house_cents=self.house_cents(league_id),
            in_play_cents=sum(self._tracked[m].state.pot_cents
                              for m in self.match_ids(league_id)
                              if self._tracked[m].state.status not in FINISHED))

    def summary(self) -> dict[str, Any]:
        """Everything a reader can get, as plain data: equal projections, equal summaries."""
        return {league: {"standings": self.standings(league), "nights": self.nights(league),
                         "reconciliation": self.reconciliation(league),
                         "lines": {m: self.lines(m) for m in self.match_ids(league)}}
                for league in self.leagues()}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeasonProjection):
            return NotImplemented
        return self.summary() == other.summary()

    __hash__ = None  # type: ignore[assignment]

    def _in_order(self) -> list[str]:
        return [m for m, _t in sorted(self._tracked.items(),
                                      key=lambda kv: (kv[1].created_at, kv[0]))]


def rebuild(records: Iterable[Mapping[str, Any]]) -> SeasonProjection:
    """A projection of the whole log: ``records`` in log order, each naming its ``match_id``."""
    projection = SeasonProjection()
    for record in records:
        projection.apply(record["match_id"], record)
    return projection


# ---------------------------------------------------------------------------- per match
def _match_lines(match_id: str, t: _Tracked) -> list[MatchLine]:
    state, tag = t.state, t.tag
    result = state.result or {}
    winners = result.get("winners", []) if state.status == "settled" else []
    lines = []
    for seat in state.bowlers:
        balls = [ball for game in state.balls[seat] for ball in game]
        antes, refunds = t.antes.get(seat, 0), t.refunds.get(seat, 0)
        shown = result.get("hands", {}).get(seat) if state.status == "settled" else None
        lines.append(MatchLine(
            match_id=match_id, league_id=tag["league_id"], night_id=tag["night_id"],
            night_date=tag["night_date"], seat=seat, bowler_id=tag["people"].get(seat),
            status=state.status, scores=_scores(state, seat),
            handicap=state.handicaps.get(seat, 0), won=seat in winners,
            won_cents=state.won[seat], antes_cents=antes,
            buys_cents=state.paid[seat] + refunds - antes, refunds_cents=refunds,
            net_cents=state.won[seat] - state.paid[seat],
            hand=shown["describe"] if shown else "",
            cards=tuple(shown["hand"]) if shown else (),
            strikes=sum(b["mark"] == "strike" for b in balls),
            spares=sum(b["mark"] == "spare" for b in balls),
            gutters=sum(bool(b["gutter_ball"]) for b in balls)))
    for seat in t.removed:              # seated, then taken off before the first ball
        antes, refunds = t.antes.get(seat, 0), t.refunds.get(seat, 0)
        lines.append(MatchLine(
            match_id=match_id, league_id=tag["league_id"], night_id=tag["night_id"],
            night_date=tag["night_date"], seat=seat, bowler_id=tag["people"].get(seat),
            status="removed", scores=(), handicap=state.handicaps.get(seat, 0), won=False,
            won_cents=0, antes_cents=antes, buys_cents=0, refunds_cents=refunds,
            net_cents=refunds - antes, hand="", cards=(), strikes=0, spares=0, gutters=0))
    return lines


def _scores(state: MatchState, seat: str) -> tuple[int, ...]:
    scores = []
    for game, balls in enumerate(state.balls[seat], start=1):
        if state.game_complete(seat, game, balls):
            try:
                scores.append(rebuild_game(balls).score())
            except BowlingError:        # a game under correction review counts when fixed
                continue
    return tuple(scores)


# ---------------------------------------------------------------------------- per bowler
_SUMS = ("money_won_cents", "antes_cents", "buys_cents", "refunds_cents", "net_cents",
         "strikes", "spares", "gutters", "games", "pins", "matches", "matches_won")


def _empty_row(line: MatchLine) -> dict[str, Any]:
    return {"name": line.seat, "nights": set(), "best": None, **dict.fromkeys(_SUMS, 0)}


def _add(row: dict[str, Any], line: MatchLine, t: _Tracked) -> None:
    row["name"] = line.seat
    row["money_won_cents"] += line.won_cents
    row["antes_cents"] += line.antes_cents
    row["buys_cents"] += line.buys_cents
    row["refunds_cents"] += line.refunds_cents
    row["net_cents"] += line.net_cents
    if line.status in ("removed", "void"):
        return                          # money only: the match did not count for them
    row["nights"].add(line.night_id)
    row["matches"] += 1
    row["matches_won"] += line.won
    row["strikes"] += line.strikes
    row["spares"] += line.spares
    row["gutters"] += line.gutters
    row["games"] += len(line.scores)
    row["pins"] += sum(line.scores)
    if line.status == "settled" and line.cards:
        value = hand_value(t.state, line.seat)
        if row["best"] is None or value > row["best"][0]:
            five = tuple(str(card) for card in value.best_five or ())
            row["best"] = (value, BestHand(line.hand, five, line.match_id))


def _row(bowler_id: int, row: dict[str, Any]) -> StandingRow:
    return StandingRow(
        bowler_id=bowler_id, name=row["name"], nights=len(row["nights"]),
        best_hand=row["best"][1] if row["best"] else None,
        average=row["pins"] // row["games"] if row["games"] else None,
        **{key: row[key] for key in _SUMS})
