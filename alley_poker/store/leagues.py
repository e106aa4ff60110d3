"""Leagues, their rosters, league nights and seat requests, kept beside the event log.

The league's rules live in the domain (:mod:`alley_poker.league`); this module only keeps its
values.  Every method checks its input first and writes in one transaction: bad input raises
:class:`~alley_poker.league.LeagueError` (a ValueError naming the field) and writes nothing.

>>> from datetime import date, time
>>> from alley_poker.league import BowlerDraft, League
>>> from alley_poker.store import EventStore
>>> leagues = LeagueStore(EventStore.open("sqlite://").engine)
>>> leagues.create_league(League("tue", "Tuesday Night", "house-rev-1.2", 200, weekday=1,
...                              start_time=time(19), time_zone="America/Chicago",
...                              lane_pairs=((1, 2),)))
>>> ann = leagues.add_bowler("tue", BowlerDraft("Ann Smith", "ANN", 150))
>>> [b.name for b in leagues.import_roster("tue", "name,scorer_name\\nBob,BOB\\nCal,CAL\\n")]
['Bob', 'Cal']
>>> leagues.add_bowler("tue", BowlerDraft("ann smith", "AS"))
Traceback (most recent call last):
...
alley_poker.league.league_errors.LeagueError: name: 'ann smith' is already on the roster
>>> leagues.retire(ann.bowler_id).active, [b.name for b in leagues.bowlers("tue")]
(False, ['Bob', 'Cal'])
>>> leagues.record_night("tue", date(2026, 11, 24), [2, 3], actor="commissioner:pat")
'tue-2026-11-24'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert, select, update

from alley_poker.actors import actor_words
from alley_poker.league import (
    Bowler,
    BowlerDraft,
    HandicapRule,
    League,
    LeagueError,
    LeagueNotFound,
    check_fields,
    night_id,
    parse_roster_csv,
    parse_start_time,
)
from alley_poker.league.roster import clash
from alley_poker.store.clock import as_utc, utcnow
from alley_poker.store.schema import (
    DEFAULT_CENTRE,
    league_bowlers,
    league_nights,
    leagues,
    seat_requests,
)

#: What :meth:`LeagueStore.update_bowler` may change.
BOWLER_FIELDS = ("name", "scorer_name", "average", "handicap_basis", "team")


@dataclass(frozen=True)
class LeagueNight:
    """A night as started from the desk: who checked in (bowler ids), when, by whom."""

    night_id: str
    league_id: str
    night_date: date
    checked_in: tuple[int, ...]
    started_at: datetime
    started_by: str


@dataclass(frozen=True)
class SeatRequest:
    """A name the scorer showed for a lane's slot that the roster could not place."""

    id: int
    match_id: str
    lane: int
    slot: int
    scorer_name: str
    raised_at: datetime
    resolved_bowler: int | None = None
    resolved_by: str | None = None
    resolved_at: datetime | None = None

    @property
    def open(self) -> bool:
        return self.resolved_at is None


class LeagueStore:
    """The leagues of one centre in its database."""

    def __init__(self, engine: Engine, *, centre: str = DEFAULT_CENTRE) -> None:
        self.engine = engine
        self.centre = centre

    # --- leagues --------------------------------------------------------------------------
    def create_league(self, league: League) -> None:
        with self._writing() as connection:
            if self._league_row(connection, league.league_id) is not None:
                raise LeagueError(f"there is already a league {league.league_id!r}",
                                  field="league_id")
            connection.execute(insert(leagues).values(
                centre=self.centre, created_at=utcnow(), **_league_values(league)))

    def update_league(self, league: League) -> None:
        with self._writing() as connection:
            self._need_league(connection, league.league_id, lock=True)
            connection.execute(update(leagues).where(*self._league_key(league.league_id))
                               .values(**_league_values(league)))

    def league(self, league_id: str) -> League:
        with self.engine.connect() as connection:
            return _league_from(self._need_league(connection, league_id))

    def leagues(self) -> list[League]:
        query = select(leagues).where(leagues.c.centre == self.centre).order_by(
            leagues.c.league_id)
        with self.engine.connect() as connection:
            return [_league_from(row) for row in connection.execute(query)]

    # --- bowlers --------------------------------------------------------------------------
    def add_bowler(self, league_id: str, draft: BowlerDraft) -> Bowler:
        with self._writing() as connection:
            self._need_league(connection, league_id, lock=True)
            reason = clash(draft, self._roster(connection, league_id))
            if reason:
                raise LeagueError(reason, field=reason.split(":")[0])
            return self._insert_bowler(connection, league_id, draft)

    def import_roster(self, league_id: str, csv_text: str) -> list[Bowler]:
        """Every bowler of roster file ``csv_text`` added, or none (RosterImportError naming
        every bad row, duplicates of the existing roster, retired bowlers too)."""
        with self._writing() as connection:
            self._need_league(connection, league_id, lock=True)
            drafts = parse_roster_csv(csv_text, existing=self._roster(connection, league_id))
            return [self._insert_bowler(connection, league_id, draft) for draft in drafts]

    def update_bowler(self, bowler_id: int, **changes: Any) -> Bowler:
        unknown = sorted(set(changes) - set(BOWLER_FIELDS))
        if unknown:
            raise LeagueError(f"a bowler has no field {', '.join(unknown)}; the fields are "
                              f"{', '.join(BOWLER_FIELDS)}", field=unknown[0])
        with self._writing() as connection:
            bowler = self._need_bowler(connection, bowler_id)
            self._need_league(connection, bowler.league_id, lock=True)
            fields = check_fields({name: getattr(bowler, name) for name in BOWLER_FIELDS}
                                  | changes)
            changed = replace(bowler, **fields)
            others = [b for b in self._roster(connection, bowler.league_id)
                      if b.bowler_id != bowler_id]
            reason = clash(changed, others)
            if reason:
                raise LeagueError(reason, field=reason.split(":")[0])
            connection.execute(update(league_bowlers)
                               .where(league_bowlers.c.id == bowler_id)
                               .values(updated_at=utcnow(), **fields))
            return changed

    def retire(self, bowler_id: int) -> Bowler:
        """The bowler kept with their history but no longer checked in (idempotent)."""
        return self._set_active(bowler_id, False)

    def reactivate(self, bowler_id: int) -> Bowler:
        return self._set_active(bowler_id, True)

    def bowler(self, bowler_id: int) -> Bowler:
        with self.engine.connect() as connection:
            return self._need_bowler(connection, bowler_id)

    def bowlers(self, league_id: str, *, include_retired: bool = False) -> list[Bowler]:
        """The league's bowlers by name (case-insensitive); active ones unless asked."""
        with self.engine.connect() as connection:
            self._need_league(connection, league_id)
            roster = self._roster(connection, league_id)
        return [b for b in roster if include_retired or b.active]

    # --- nights ---------------------------------------------------------------------------
    def record_night(self, league_id: str, night_date: date, checked_in: Iterable[int], *,
                     actor: str) -> str:
        """Keep that the league's night of ``night_date`` started with ``checked_in``
        (active bowlers of the league); its id.  A night starts once."""
        ids = list(checked_in)
        if not isinstance(night_date, date) or isinstance(night_date, datetime):
            raise LeagueError(f"a night's date is a date, not {night_date!r}",
                              field="night_date")
        if not ids:
            raise LeagueError("check in at least one bowler", field="checked_in")
        if len(set(ids)) != len(ids):
            raise LeagueError("a bowler is checked in twice", field="checked_in")
        if not actor or len(actor) > 128:
            raise LeagueError("who starts the night is 1-128 characters", field="actor")
        night = night_id(league_id, night_date)
        with self._writing() as connection:
            self._need_league(connection, league_id, lock=True)
            roster = {b.bowler_id: b for b in self._roster(connection, league_id)}
            for bowler_id in ids:
                bowler = roster.get(bowler_id)
                if bowler is None:
                    raise LeagueError(f"bowler {bowler_id!r} is not on the {league_id} roster",
                                      field="checked_in")
                if not bowler.active:
                    raise LeagueError(f"{bowler.name} is retired: reactivate them to check "
                                      "them in", field="checked_in")
            existing = connection.execute(select(league_nights.c.started_by, league_nights.c
                                                 .started_at).where(*self._night_key(night))
                                          ).first()
            if existing is not None:
                raise LeagueError(f"the night {night} was already started by "
                                  f"{actor_words(existing.started_by)}", field="night_date")
            connection.execute(insert(league_nights).values(
                centre=self.centre, night_id=night, league_id=league_id,
                night_date=night_date, checked_in=ids, started_at=utcnow(),
                started_by=actor))
        return night

    def night(self, night_id_: str) -> LeagueNight:
        with self.engine.connect() as connection:
            row = connection.execute(select(league_nights).where(
                *self._night_key(night_id_))).first()
        if row is None:
            raise LeagueNotFound(f"no league night {night_id_!r}", field="night_id")
        return _night_from(row)

    def nights(self, league_id: str) -> list[LeagueNight]:
        """The league's nights, oldest first."""
        query = (select(league_nights).where(league_nights.c.centre == self.centre,
                                             league_nights.c.league_id == league_id)
                 .order_by(league_nights.c.night_date))
        with self.engine.connect() as connection:
            self._need_league(connection, league_id)
            return [_night_from(row) for row in connection.execute(query)]

    # --- seat requests --------------------------------------------------------------------
    def raise_seat_request(self, match_id: str, lane: int, slot: int,
                           scorer_name: str) -> SeatRequest:
        """A name the roster could not place waits for the desk; the same open request again
        gives the one already waiting."""
        if not match_id or len(match_id) > 64:
            raise LeagueError("a match id is 1-64 characters", field="match_id")
        scorer_name = scorer_name.strip()[:64]
        table = seat_requests
        with self._writing() as connection:
            found = connection.execute(select(table).where(
                table.c.centre == self.centre, table.c.match_id == match_id,
                table.c.lane == lane, table.c.slot == slot, table.c.resolved_at.is_(None),
                table.c.scorer_name == scorer_name)).first()
            if found is not None:
                return _seat_request_from(found)
            result = connection.execute(insert(table).values(
                centre=self.centre, match_id=match_id, lane=lane, slot=slot,
                scorer_name=scorer_name, raised_at=utcnow()))
            request_id = int(result.inserted_primary_key[0])
            return _seat_request_from(connection.execute(
                select(table).where(table.c.id == request_id)).one())

    def open_seat_requests(self, match_id: str | None = None) -> list[SeatRequest]:
        table = seat_requests
        where = [table.c.centre == self.centre, table.c.resolved_at.is_(None)]
        if match_id is not None:
            where.append(table.c.match_id == match_id)
        with self.engine.connect() as connection:
            return [_seat_request_from(row) for row in connection.execute(
                select(table).where(*where).order_by(table.c.id))]

    def resolve_seat_request(self, request_id: int, bowler_id: int, *,
                             actor: str) -> SeatRequest:
        """The desk's pick for an open request: an active bowler of this centre."""
        with self._writing() as connection:
            bowler = self._need_bowler(connection, bowler_id)
            if not bowler.active:
                raise LeagueError(f"{bowler.name} is retired", field="bowler_id")
            return self._close_seat_request(connection, request_id, bowler_id, actor)

    def dismiss_seat_request(self, request_id: int, *, actor: str) -> SeatRequest:
        """The desk closes an open request without seating anyone (its match is over, or the
        name was nobody's): resolved, with no bowler."""
        with self._writing() as connection:
            return self._close_seat_request(connection, request_id, None, actor)

    def _close_seat_request(self, connection: Any, request_id: int, bowler_id: int | None,
                            actor: str) -> SeatRequest:
        """Resolve an open request (seated as ``bowler_id``, or dismissed with ``None``)."""
        table = seat_requests
        row = connection.execute(select(table).where(
            table.c.id == request_id, table.c.centre == self.centre)).first()
        if row is None:
            raise LeagueNotFound(f"no seat request {request_id}", field="request_id")
        if row.resolved_at is not None:
            raise LeagueError("that seat request was already answered at another tablet",
                              field="request_id")
        connection.execute(update(table).where(table.c.id == request_id).values(
            resolved_bowler=bowler_id, resolved_by=actor[:128], resolved_at=utcnow()))
        return _seat_request_from(connection.execute(
            select(table).where(table.c.id == request_id)).one())

    # --- helpers --------------------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        # SQLite: BEGIN IMMEDIATE (the engine's hook reads this option) so that a check and
        # the write after it are never split by another writer; PostgreSQL: the league row
        # is locked FOR UPDATE by the methods that check the roster before writing.
        with self.engine.connect() as connection:
            connection.execution_options(sqlite_begin="IMMEDIATE")
            with connection.begin():
                yield connection

    def _league_key(self, league_id: str) -> tuple[Any, ...]:
        return leagues.c.centre == self.centre, leagues.c.league_id == league_id

    def _night_key(self, night: str) -> tuple[Any, ...]:
        return league_nights.c.centre == self.centre, league_nights.c.night_id == night

    def _league_row(self, connection: Connection, league_id: str, *,
                    lock: bool = False) -> Any:
        query = select(leagues).where(*self._league_key(league_id))
        if lock:
            query = query.with_for_update()
        return connection.execute(query).first()

    def _need_league(self, connection: Connection, league_id: str, *,
                     lock: bool = False) -> Any:
        row = self._league_row(connection, league_id, lock=lock)
        if row is None:
            raise LeagueNotFound(f"no league {league_id!r}", field="league_id")
        return row

    def _need_bowler(self, connection: Connection, bowler_id: int) -> Bowler:
        row = connection.execute(select(league_bowlers).where(
            league_bowlers.c.id == bowler_id, league_bowlers.c.centre == self.centre)).first()
        if row is None:
            raise LeagueNotFound(f"no bowler {bowler_id!r}", field="bowler_id")
        return _bowler_from(row)

    def _roster(self, connection: Connection, league_id: str) -> list[Bowler]:
        rows = connection.execute(select(league_bowlers).where(
            league_bowlers.c.centre == self.centre, league_bowlers.c.league_id == league_id))
        return sorted((_bowler_from(row) for row in rows),
                      key=lambda b: (b.name.casefold(), b.bowler_id))

    def _insert_bowler(self, connection: Connection, league_id: str,
                       draft: BowlerDraft) -> Bowler:
        now = utcnow()
        result = connection.execute(insert(league_bowlers).values(
            centre=self.centre, league_id=league_id, name=draft.name,
            scorer_name=draft.scorer_name, average=draft.average,
            handicap_basis=draft.handicap_basis, team=draft.team, active=draft.active,
            created_at=now, updated_at=now))
        return Bowler(int(result.inserted_primary_key[0]), league_id, draft.name,
                      draft.scorer_name, draft.average, draft.handicap_basis, draft.team,
                      active=draft.active)

    def _set_active(self, bowler_id: int, active: bool) -> Bowler:
        with self._writing() as connection:
            bowler = self._need_bowler(connection, bowler_id)
            if bowler.active != active:
                connection.execute(update(league_bowlers)
                                   .where(league_bowlers.c.id == bowler_id)
                                   .values(active=active, updated_at=utcnow()))
            return replace(bowler, active=active)


def _league_values(league: League) -> dict[str, Any]:
    return {
        "league_id": league.league_id, "name": league.name, "rule_book": league.rule_book,
        "ante_cents": league.ante_cents, "weekday": league.weekday,
        "start_time": league.start_time_text, "time_zone": league.time_zone,
        "lane_pairs": [list(pair) for pair in league.lane_pairs], "games": league.games,
        "handicap_percent": league.handicap.percent,
        "handicap_basis_pins": league.handicap.basis,
        "lowest_draw_by": league.lowest_draw_by,
    }


def _league_from(row: Any) -> League:
    return League(row.league_id, row.name, row.rule_book, row.ante_cents, row.weekday,
                  parse_start_time(row.start_time), row.time_zone,
                  tuple(tuple(pair) for pair in row.lane_pairs), games=row.games,
                  handicap=HandicapRule(row.handicap_percent, row.handicap_basis_pins),
                  lowest_draw_by=row.lowest_draw_by)


def _bowler_from(row: Any) -> Bowler:
    return Bowler(int(row.id), row.league_id, row.name, row.scorer_name, row.average,
                  row.handicap_basis, row.team, active=bool(row.active))


def _night_from(row: Any) -> LeagueNight:
    return LeagueNight(row.night_id, row.league_id, row.night_date,
                       tuple(int(i) for i in row.checked_in), as_utc(row.started_at),
                       row.started_by)


def _seat_request_from(row: Mapping[str, Any] | Any) -> SeatRequest:
    return SeatRequest(int(row.id), row.match_id, row.lane, row.slot, row.scorer_name,
                       as_utc(row.raised_at),
                       None if row.resolved_bowler is None else int(row.resolved_bowler),
                       row.resolved_by,
                       None if row.resolved_at is None else as_utc(row.resolved_at))
