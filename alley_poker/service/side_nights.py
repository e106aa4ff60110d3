"""Side nights at the service layer: side games wired to league nights, lanes and screens.

A centre's side games (brackets, pots); their log is :mod:`alley_poker.store.side_nights`.

Each league night's side games are an event log of their own in the centre's database
(:class:`~alley_poker.store.side_nights.SideEventLog`); the night as the desk, a phone or
a kiosk reads it is always that log folded (:class:`~alley_poker.side_games.SideNight`),
caught up from the store before it is read or decided on, so every process of a centre
reads the same night and a restart loses nothing.

- **Commands** (:meth:`SideNights.run`) are decided by the domain against the night as
  stored, appended at the seq they were decided on (another process there first: caught up
  and decided again), and published on the bus, topic ``side:<night id>``, kind
  ``side_events`` (a screen follows a night live from it).
- **The sealed draw**: :meth:`SideNights.draw` seals it with a fresh seed kept in the
  ``deal_seeds`` vault (key ``side:<night id>``), secret until :meth:`SideNights.reveal`
  (the night's close, :mod:`.night_close`).  The service calls :meth:`before_command` before
  every ball it records: the night's first ball seals the draw of a night whose brackets
  have entries, so no draw is ever made after a counted ball; a draw or a bracket entry
  asked for after the night's first ball is refused.
- **Live from the lanes**: every change this process makes to a league match is followed on
  the bus; a game that finished (or changed: a corrected or held ball applied) is fed as
  :class:`~alley_poker.side_games.RecordScore` with the seat's handicap from the match.  The
  domain turns a change to a paid result into a pending change the desk confirms.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from alley_poker.league.calendar import night_id as night_id_for
from alley_poker.ledger.commands import RecordBall
from alley_poker.service.alley import AlleyService
from alley_poker.service.settlement import centre_match_ids
from alley_poker.service.side_feed import finished_games, has_bowled, night_of
from alley_poker.side_games import (
    Command,
    Draw,
    GameScore,
    OpenNight,
    RecordEntry,
    RecordScore,
    RevealSeed,
    SideEvent,
    SideGameError,
    SideNight,
    decide,
    event_from_record,
    event_to_record,
)
from alley_poker.side_games.money import NightMoney, night_money
from alley_poker.side_games.settings import BracketSettings
from alley_poker.store.deal_seeds import SeedVault
from alley_poker.store.side_nights import SideEventLog
from alley_poker.store.store_errors import ConcurrencyConflict

log = logging.getLogger(__name__)

TOPIC = "side:{night_id}"
KIND = "side_events"
#: Who made what the service did by itself (the audit trail names it).
FIRST_BALL = "system:first-ball"
SCORER = "scorer:lanes"
NIGHT_CLOSE = "system:night-close"
#: Attempts at a command whose seq another process took first.
ATTEMPTS = 5


class SideNightError(ValueError):
    """Not a domain refusal: an unknown night (``status`` 404) or a rule of the wiring (409:
    the night's first ball is bowled).  ``field`` names what to fix."""

    def __init__(self, message: str, field: str | None = None, status: int = 409):
        super().__init__(message)
        self.field, self.status = field, status


def seed_key(night_id: str) -> str:
    """The draw's seed in the seed vault.

    >>> seed_key("tue-2026-11-24")
    'side:tue-2026-11-24'
    """
    return f"side:{night_id}"


class SideNights:
    """The side games of one centre's nights, over ``service``'s store and bus."""

    def __init__(self, service: AlleyService, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.service = service
        store = service.repository.store
        self.log = SideEventLog(store)
        self.seeds = SeedVault(store)
        self.clock = clock
        self._nights: dict[str, SideNight] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        #: Nights with a ball recorded, as this process found in the store (a night is added
        #: once a ball is in: a ball the ledger refused does not close the brackets).
        self._bowling: set[str] = set()
        #: The scores last fed per match (so a ball that finishes no game costs nothing).
        self._fed: dict[str, dict[tuple[int, int], GameScore]] = {}
        self.unsubscribe = service.bus.subscribe(self._on_message)

    # ------------------------------------------------------------------------ reading
    def night(self, night_id: str) -> SideNight | None:
        """The night as stored now (a copy to read), or None when it has no side games."""
        with self._lock(night_id):
            found = self._caught_up(night_id)
            return copy.deepcopy(found) if found.seq else None

    def records(self, night_id: str) -> list[dict[str, Any]]:
        """The night's stored records, in order (its export's log)."""
        return self.log.load(night_id)

    def night_ids(self) -> list[str]:
        return self.log.night_ids()

    def season_money(self, league_id: str) -> NightMoney:
        """The league's side money over every night with side games: per bowler what they
        paid, won and got back, and the totals (which reconcile as each night's do)."""
        paid: dict[int, int] = {}
        won: dict[int, int] = {}
        refunded: dict[int, int] = {}
        organiser = in_play = 0
        for night_id in self.night_ids():
            night = self.night(night_id)
            if night is None or night.league_id != league_id:
                continue
            money = night.money()
            organiser += money.organiser_cents
            in_play += money.in_play_cents
            for line in money.bowlers:
                for totals, cents in ((paid, line.paid_cents), (won, line.won_cents),
                                      (refunded, line.refunded_cents)):
                    if cents:
                        totals[line.bowler] = totals.get(line.bowler, 0) + cents
        return night_money(paid, won, refunded, organiser_cents=organiser,
                           in_play_cents=in_play)

    def _caught_up(self, night_id: str) -> SideNight:
        night = self._nights.setdefault(night_id, SideNight(night_id))
        for record in self.log.load(night_id, after_seq=night.seq):
            night.apply(event_from_record(record))
        return night

    def _lock(self, night_id: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(night_id, threading.RLock())

    # ------------------------------------------------------------------------ commands
    def run(self, night_id: str, command: Command, *, actor: str,
            now: datetime | None = None) -> list[SideEvent]:
        """Decide ``command`` on the stored night and store its events (SideGameError, or
        SideNightError, when refused: nothing is written)."""
        with self._lock(night_id):
            for _attempt in range(ATTEMPTS):
                night = self._caught_up(night_id)
                if night.seq == 0 and not isinstance(command, OpenNight):
                    raise SideNightError(f"night {night_id!r} has no side games: open them "
                                         "first", "night_id", status=404)
                self._check_wiring(night, command)
                events = decide(night, command, actor=actor, now=now or self.clock())
                if not events:
                    return []
                records = [event_to_record(event) for event in events]
                try:
                    self.log.append(night_id, records, expected_seq=night.seq)
                except ConcurrencyConflict:
                    continue            # another process wrote first: decide again
                for event in events:
                    night.apply(event)
                self.service.announce(TOPIC.format(night_id=night_id), {
                    "kind": KIND, "night_id": night_id, "events": records,
                    "pending_changes": len(night.pending_changes())})
                return events
        raise SideNightError(f"night {night_id!r} is changing too fast; try again", "night_id")

    def open(self, league: Any, night_date: date, *, actor: str) -> str:
        """Open the side games of ``league``'s night of ``night_date`` (its games a night)."""
        night_id = night_id_for(league.league_id, night_date)
        self.run(night_id, OpenNight(league.league_id, night_date.isoformat(), league.games),
                 actor=actor)
        return night_id

    def draw(self, night_id: str, *, actor: str) -> list[SideEvent]:
        """Seal and make the draw with a fresh secret seed (kept until the reveal)."""
        seed = self.seeds.seed_for(seed_key(night_id), create=True)
        assert seed is not None
        return self.run(night_id, Draw(seed), actor=actor)

    def reveal(self, night_id: str, *, actor: str) -> list[SideEvent]:
        """Reveal the draw's seed: anyone can then re-do the draw (``alley-poker verify``)."""
        seed = self.seeds.seed_for(seed_key(night_id))
        if seed is None:
            raise SideNightError(f"night {night_id!r} has no sealed draw", "seed")
        return self.run(night_id, RevealSeed(seed), actor=actor)

    def reveal_all(self, *, actor: str = NIGHT_CLOSE) -> list[str]:
        """The night's close: reveal every sealed draw not yet revealed; the nights revealed."""
        revealed = []
        for night_id in self.night_ids():
            night = self.night(night_id)
            if night is not None and night.drawn and night.seed is None:
                try:
                    self.reveal(night_id, actor=actor)
                    revealed.append(night_id)
                except (SideGameError, SideNightError) as refused:
                    log.error("side games of %s: the seed was not revealed: %s",
                              night_id, refused)
        return revealed

    def _check_wiring(self, night: SideNight, command: Command) -> None:
        """The rules the domain cannot see: the night's first ball closes the draw."""
        sealing = isinstance(command, Draw) or (
            isinstance(command, RecordEntry) and command.game in night.books
            and isinstance(night.books[command.game].settings, BracketSettings))
        if sealing and not night.drawn and self.night_has_bowled(night.night_id):
            raise SideNightError(
                "the night's first ball is bowled: the draw is sealed before the first "
                "counted ball, so brackets are closed tonight (withdraw their entries to "
                "refund them)", "draw")

    def night_has_bowled(self, night_id: str) -> bool:
        if night_id in self._bowling:
            return True
        for match_id in centre_match_ids(self.service):
            if match_id.startswith(night_id + "-"):
                state = self.service.state(match_id)
                if night_of(state) == night_id and has_bowled(state):
                    self._bowling.add(night_id)
                    return True
        return False

    # ------------------------------------------------------------------------ the lanes
    def before_command(self, match_id: str, command: Any) -> None:
        """Called by the service before it runs a command: before the night's first ball,
        the draw of a night whose brackets have entries is sealed."""
        if not isinstance(command, RecordBall):
            return
        state = self.service.shared_state(match_id)
        night_id = night_of(state)
        if night_id is None or night_id in self._bowling:
            return
        if self.night_has_bowled(night_id):
            return                      # sealed (or closed) at the night's first ball
        try:
            night = self.night(night_id)
            if night is not None and not night.drawn and any(
                    night.books[game].entries for game in night.bracket_games()):
                self.draw(night_id, actor=FIRST_BALL)
        except (SideGameError, SideNightError) as refused:
            # The ball is not stopped: the lanes bowl on, the desk sees why on the night.
            log.error("side games of %s: the draw was not sealed at the first ball: %s",
                      night_id, refused)
            self.service.announce(TOPIC.format(night_id=night_id), {
                "kind": "side_draw_refused", "night_id": night_id, "reason": str(refused)})

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        # Only this process's own changes: the process that ran a match's command feeds it
        # (every process of a centre that takes commands keeps a SideNights).  Only the
        # events that can finish or change a game: a ball in the middle of a game costs
        # nothing here (this runs on every ball's path).
        if (message.get("kind") != "events" or not topic.startswith("match:")
                or message.get("origin") != self.service.bus.origin
                or not any(map(changes_a_game, message.get("events", ())))):
            return
        self.feed_match(topic.split(":", 1)[1])

    def feed_match(self, match_id: str) -> int:
        """Feed the match's finished games that changed to its night's side games; how
        many were recorded."""
        state = self.service.shared_state(match_id)
        night_id = night_of(state)
        if night_id is None:
            return 0
        games = finished_games(state)
        fed = self._fed.setdefault(match_id, {})
        changed = {key: score for key, score in games.items() if fed.get(key) != score}
        if not changed:
            return 0
        if self.night(night_id) is None:
            return 0                    # no side games tonight (opened later: fed then)
        recorded = 0
        for (bowler, game), score in sorted(changed.items()):
            try:
                recorded += bool(self.run(night_id, RecordScore(
                    bowler, game, score.scratch, score.handicap, score.strikes),
                    actor=SCORER))
                fed[bowler, game] = score
            except (SideGameError, SideNightError) as refused:
                log.error("side games of %s: game %d of bowler %d not recorded: %s",
                          night_id, game, bowler, refused)
        return recorded

    def feed_night(self, night_id: str) -> int:
        """Feed every finished game of the night's matches (the games bowled before the
        side games were opened, or while this process was down)."""
        total = 0
        for match_id in sorted(centre_match_ids(self.service)):
            if match_id.startswith(night_id + "-"):
                self._fed.pop(match_id, None)
                total += self.feed_match(match_id)
        return total

    def close(self) -> None:
        self.unsubscribe()


#: Ledger events after which a finished game may be new or different.
GAME_CHANGES = frozenset({"ball_corrected", "action_undone", "review_closed",
                          "result_undone"})


def changes_a_game(record: dict[str, Any]) -> bool:
    """Whether a match's stored record may finish or change a bowler's game.

    >>> changes_a_game({"type": "ball_recorded", "data": {"completes_game": False}})
    False
    >>> changes_a_game({"type": "ball_recorded", "data": {"completes_game": True}})
    True
    """
    kind = record.get("type")
    return kind in GAME_CHANGES or (
        kind == "ball_recorded" and bool((record.get("data") or {}).get("completes_game")))


def attach_side_games(service: AlleyService) -> SideNights:
    """Wire side games into ``service`` (its balls seal the draw, its games feed the nights);
    every process of a centre that runs commands needs it."""
    existing = getattr(service, "side_games", None)
    if isinstance(existing, SideNights):
        return existing
    side = SideNights(service)
    service.side_games = side
    return side
