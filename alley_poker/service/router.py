"""From lane events to ledger commands: every ball dealt exactly once, in bowling order.

The scoring system may re-send a ball after a reconnect, skip some while the cable was out, or
send a scoresheet snapshot after the service restarted.  The router keys every ball by its
position in the bowler's game — ``(game, frame, ball)`` — and compares it with what the ledger
has already recorded, so:

- a ball the ledger already holds is a duplicate and is dropped;
- the ball the ledger expects next is recorded (and deals);
- a ball further ahead waits until the balls before it arrive (a snapshot fills the gap);
- so does a ball of a game the bowler may not start yet (the previous game is still missing
  balls, typically after an outage that swallowed the end of that game);
- a snapshot's balls the ledger never saw are dealt in the lanes' turn order, with the other
  bowlers' sheets (:mod:`alley_poker.service.catch_up`), and the commissioner is told.

The only ball dropped silently is an exact re-send of one the ledger holds (counted).  Every
other ball that cannot be placed now — one waiting for an earlier ball, one where the ledger
and the scorer disagree, one on a slot or lane with no bowler of a match, one for a match not
in play, one the ledger refuses — becomes a *held ball* (:mod:`alley_poker.service.held`):
kept with its line and the reason, counted on the feed board and shown on the tablet, until
the gap fills (``placed``), or the desk applies it, re-syncs the bowler from the scorer's
sheet, or discards it with a reason.

The ledger's recorded balls and the held-ball log are the whole memory: a restarted router
relies on the scorer re-sending its last lines and its snapshots (see "Resuming after a
restart" in ``docs/feed-protocol.md``).

Balls for lanes with no match keep their bowling score here and deal nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alley_poker.bowling import Game
from alley_poker.ledger import CommandRefused, MatchState
from alley_poker.ledger.commands import CorrectBall, HollandDaze, RecordBall
from alley_poker.service.catch_up import LaneOrderCatchUp
from alley_poker.service.feed_balls import (
    HELD,
    LINE_TAG,
    RECORDED,
    REFUSED,
    Position,
    line_tag,
    next_position,
    reads_as,
)
from alley_poker.service.held import HeldBalls, HeldBallsInMemory, ball_record
from alley_poker.service.held_desk import HeldBallDesk
from alley_poker.service.lane_tenancy import NOBODY, ScorerGames, TenantRouting
from alley_poker.service.lanes import LaneMap
from alley_poker.service.ledger_gateway import LedgerGateway
from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    LaneEvent,
    LaneOpened,
    ScoresheetSnapshot,
    SequenceGap,
    WrongLane,
)

log = logging.getLogger(__name__)

#: How often, at most, the worker re-reads the lane assignments for a ball on a lane it
#: thinks has no match.
LANES_REREAD_S = 1.0


@dataclass
class RouterStats:
    recorded: int = 0
    duplicates: int = 0
    recovered: int = 0
    held: int = 0
    refused: int = 0
    unassigned: int = 0


class LaneEventRouter(HeldBallDesk, TenantRouting):
    """Turns lane events into ledger commands for the match on that lane."""

    def __init__(self, lanes: LaneMap, ledger: LedgerGateway, held: HeldBalls | None = None):
        self.lanes = lanes
        self._lanes_read_at = float("-inf")  # when the worker last re-read lane assignments
        self.ledger = ledger
        self.held_log: HeldBalls = held if held is not None else HeldBallsInMemory()
        self.stats = RouterStats()
        self._held: dict[tuple[str, str, int], dict[Position, BallRecorded]] = {}
        # Per match: (bowler, game, frame, ball) -> the open held item of a waiting ball.
        self._waiting_items: dict[str, dict[tuple[str, int, int, int], int]] = {}
        # What the scorer said, for the desk's re-sync, per (lane, slot, game) and tagged with
        # the match it was said for (the slot's next match must not inherit it): its last
        # sheet, and the balls and corrections it sent since (the next sheet includes them).
        self._sheets: dict[tuple[int, int, int], tuple[str, ScoresheetSnapshot]] = {}
        self._since_sheet: dict[tuple[int, int, int],
                                tuple[str, dict[Position, BallRecorded]]] = {}
        self._confirmed: dict[str, list[tuple[str, BallRecorded]]] = {}
        self._open_games: dict[tuple[int, int, int], Game] = {}  # lanes with no match
        self.scorer_games = ScorerGames()  # whose each scorer game is, as lanes change hands
        self._match_locks: dict[str, threading.Lock] = {}
        self._line_tags: dict[str, set[str]] = {}  # per match: feed lines applied once only
        self._locks_lock = threading.Lock()
        self.catch_up = LaneOrderCatchUp(self)

    # --- entry point ---------------------------------------------------------------------
    def handle(self, event: LaneEvent) -> bool:
        """Route one lane event.  Never raises for a refused ball: it is logged and announced.

        Returns True when a ball was refused (the feed then treats its line as not received,
        so a good line re-sent with the same number is taken; ``docs/feed-protocol.md``).
        """
        handler: Callable[[Any], bool | None] | None = {
            BallCorrected: self._on_correction,  # before BallRecorded: it is a subclass
            BallRecorded: self._on_ball,
            ScoresheetSnapshot: self._on_snapshot,
            WrongLane: self._on_wrong_lane,
            BallRetracted: self._on_retraction,
            LaneOpened: self._on_lane_opened,
            SequenceGap: self.catch_up.feed_gap,  # sheets before it predate the outage
        }.get(type(event))
        return handler is not None and handler(event) is True

    # --- balls ---------------------------------------------------------------------------
    def _on_ball(self, ball: BallRecorded) -> bool:
        """Offer a live ball; True when it was refused (not recorded, not waiting)."""
        found = self.lanes.bowler_at(ball.lane, ball.bowler)
        if found is None and not self.ledger.reads_catch_up \
                and time.monotonic() - self._lanes_read_at >= LANES_REREAD_S:
            # The lane map may trail the desk (it started the match through a web process
            # and the bus has not told this worker yet): read the assignments before holding
            # the scorer's first balls as "no match on the lane".  At most once a second, so
            # open bowling on lanes with no match costs the ledger nothing per ball.
            self._lanes_read_at = time.monotonic()
            self.ledger.reload_lanes()
            found = self.lanes.bowler_at(ball.lane, ball.bowler)
        found = self._tenant_of(ball, found)
        if found is None or found[1] == NOBODY:
            self._keep_unassigned(ball, found[0] if found else None)
            return False
        match_id, bowler = found
        self._scorer_said(match_id, ball)
        with self._lock_for(match_id):
            outcome = self._offer(match_id, bowler, ball)
            self._drain_held(match_id, bowler, ball.game)
        return outcome == REFUSED

    def _on_snapshot(self, sheet: ScoresheetSnapshot) -> None:
        found = self.lanes.bowler_at(sheet.lane, sheet.bowler)
        first = sheet.ball_events()[:1]
        found = self._tenant_of(first[0], found, sheet=sheet) if first else found
        if found is None or found[1] == NOBODY:
            return
        match_id, bowler = found
        self._sheets[(sheet.lane, sheet.bowler, sheet.game)] = (match_id, sheet)
        self._since_sheet.pop((sheet.lane, sheet.bowler, sheet.game), None)
        with self._lock_for(match_id):
            # Its missing balls are dealt in the lanes' turn order, with the other sheets.
            self.catch_up.sheet(match_id, bowler, sheet,
                                self._last_position(match_id, bowler, sheet.game))

    def _offer(self, match_id: str, bowler: str, ball: BallRecorded) -> str:
        """Record ``ball`` if it is the next one, hold it if it is early, else refuse it.

        Returns :data:`RECORDED` when the ledger now holds the ball (also when it already
        did), :data:`HELD` or :data:`REFUSED`.  A ball recovered from a scoresheet says so
        itself (``ball.recovered``).
        """
        state = self.ledger.shared_state(match_id)
        # Only where reads do not catch up by themselves (the worker): elsewhere ``state`` is
        # the ledger's already, and the ball path pays nothing more.
        if not self.ledger.reads_catch_up and not self._next_in(state, bowler, ball):
            # A cached match may trail what another process has just done (the desk started
            # the match or entered a ball through a web process, and the bus has not told
            # this worker yet): judge the ball on the ledger itself before holding or
            # refusing it.
            state = self.ledger.caught_up_state(match_id)
        if bowler not in state.bowlers or not 1 <= ball.game <= state.games:
            self._refuse(match_id, ball, f"{bowler} has no game {ball.game} in this match",
                         bowler)
            return REFUSED
        position = (ball.frame, ball.ball)
        recorded = next((b for b in state.balls[bowler][ball.game - 1]
                         if (b["frame"], b["ball"]) == position), None)
        if recorded is not None and reads_as(recorded, ball):
            # An exact re-send (after a reconnect or a restart, also once the match is over):
            # the only silent drop.
            self.stats.duplicates += 1
            self._remember_if_desk_ball(match_id, bowler, ball, state)
            self._placed(match_id, bowler, ball)
            return RECORDED
        if state.status != "playing":
            self._refuse(match_id, ball, f"the match is not in play (it is {state.status})",
                         bowler)
            return REFUSED
        if recorded is not None:
            self._refuse(match_id, ball, f"the ledger has {recorded['pins']} pin(s) for "
                                         f"{bowler} at game {ball.game} frame {ball.frame} "
                                         f"ball {ball.ball}; the scorer says {ball.pins}",
                         bowler)
            return REFUSED
        expected = self._next_position(state, bowler, ball.game)
        earlier_game_open = ball.game > 1 and \
            self._next_position(state, bowler, ball.game - 1) is not None
        if earlier_game_open or (expected is not None and position > expected):
            self._held.setdefault((match_id, bowler, ball.game), {})[position] = ball
            self.stats.held += 1
            waiting_for = (f"game {ball.game - 1} to finish" if earlier_game_open else
                           f"frame {expected[0]} ball {expected[1]} of game {ball.game}")
            self._hold(match_id, bowler, ball, f"waiting for {bowler}'s {waiting_for}: the "
                                               "ledger and the scorer disagree on the frame")
            return HELD
        if position != expected:
            self._refuse(match_id, ball, f"not the next ball of {bowler}'s game {ball.game} "
                                         f"(the ledger expects "
                                         + ("no more balls" if expected is None else
                                            f"frame {expected[0]} ball {expected[1]}") + ")",
                         bowler)
            return REFUSED
        command = RecordBall(
            bowler, ball.game, ball.pins,
            standing=sorted(ball.standing) if ball.standing is not None else None,
            foul=ball.flags.foul,
            gutter=ball.flags.gutter or None,  # a feed that flags nothing lets the rule decide
            split=True if ball.flags.split else None,  # None: computed from standing pins
            actor=f"feed:{ball.source or 'lane'}:lane-{ball.lane}",
        )
        try:
            self.ledger.execute(match_id, command)
        except CommandRefused as refused:
            self._refuse(match_id, ball, refused.reason, bowler)
            return REFUSED
        if ball.recovered:
            self.stats.recovered += 1
        else:
            self.stats.recorded += 1
        self._placed(match_id, bowler, ball)
        return RECORDED

    def _remember_if_desk_ball(self, match_id: str, bowler: str, ball: BallRecorded,
                               state: MatchState) -> None:
        """The scorer sent a ball the desk had entered first: if the desk undoes its entry,
        the scorer's ball must take its place (see :meth:`after_undo`)."""
        point = state.undo_point
        if point is not None and any(
                e.type == "ball_recorded" and e.data["bowler"] == bowler
                and (e.data["game"], e.data["frame"], e.data["ball"]) ==
                (ball.game, ball.frame, ball.ball) for e in point["own"]):
            self._confirmed.setdefault(match_id, []).append((bowler, ball))

    def after_undo(self, match_id: str) -> None:
        """An undo ran: offer again the scorer's balls that had matched a desk entry."""
        confirmed = self._confirmed.pop(match_id, [])
        if not confirmed:
            return
        with self._lock_for(match_id):
            for bowler, ball in confirmed:
                # The scorer may have corrected the ball since: offer what it says now, not
                # the first reading (which the ledger would refuse, and the desk's re-sync
                # would then take for the scorer's word).
                said = self.scorer_balls(match_id, ball.lane, ball.bowler, ball.game)
                ball = said.get((ball.frame, ball.ball), ball)
                self._offer(match_id, bowler, ball)
                self._drain_held(match_id, bowler, ball.game)

    def _drain_held(self, match_id: str, bowler: str, game: int) -> None:
        """Record held balls that are now next; then those of the following game, if this
        one is complete."""
        state = self.ledger.shared_state(match_id)
        while bowler in state.bowlers and 1 <= game <= state.games:
            key = (match_id, bowler, game)
            held = self._held.get(key, {})
            while held:
                # A held ball the ledger got another way (a snapshot) is no longer waiting.
                for position in {(b["frame"], b["ball"])
                                 for b in state.balls[bowler][game - 1]}:
                    held.pop(position, None)
                expected = self._next_position(state, bowler, game)
                ball = held.get(expected) if expected else None
                if ball is None or self._offer(match_id, bowler, ball) != RECORDED:
                    break
                held.pop(expected, None)
                state = self.ledger.shared_state(match_id)
            if not held:
                self._held.pop(key, None)
            if self._next_position(state, bowler, game) is not None:
                return
            game += 1  # complete: balls of the next game may have been waiting for it

    def _scorer_said(self, match_id: str, ball: BallRecorded) -> None:
        """Remember a live ball or correction of ``match_id`` for the desk's re-sync."""
        if ball.recovered:
            return
        key = (ball.lane, ball.bowler, ball.game)
        said_for, balls = self._since_sheet.get(key, (match_id, {}))
        if said_for != match_id:
            balls = {}
        balls[(ball.frame, ball.ball)] = ball.to_keep()
        self._since_sheet[key] = (match_id, balls)

    def scorer_balls(self, match_id: str, lane: int, slot: int,
                     game: int) -> dict[Position, BallRecorded]:
        """What the scorer said of one game in a lane slot while ``match_id`` held it: its
        last sheet, then the balls and corrections it sent since."""
        key = (lane, slot, game)
        balls: dict[Position, BallRecorded] = {}
        said_for, sheet = self._sheets.get(key, (None, None))
        if said_for == match_id and sheet is not None:
            balls.update({(b.frame, b.ball): b for b in sheet.ball_events()})
        said_for, since = self._since_sheet.get(key, (None, {}))
        if said_for == match_id:
            balls.update(since)
        return balls

    def _on_correction(self, ball: BallCorrected) -> None:
        found = self._tenant_of(ball, self.lanes.bowler_at(ball.lane, ball.bowler))
        if found is None or found[1] == NOBODY:
            return
        match_id, bowler = found
        self._scorer_said(match_id, ball)
        command = CorrectBall(
            bowler, ball.game, ball.frame, ball.ball, ball.pins,
            standing=sorted(ball.standing) if ball.standing is not None else None,
            foul=ball.flags.foul, gutter=ball.flags.gutter or None,
            split=ball.flags.split or None, reason="corrected at the scorer",
            actor=f"feed:{ball.source or 'lane'}:lane-{ball.lane}",
        )
        with self._lock_for(match_id):
            if self._already_reads(match_id, bowler, ball):
                # A re-sent CORR (after a reconnect or restart): the ledger already agrees,
                # and a ball held while the scorer disagreed is settled.
                self.stats.duplicates += 1
                self._placed(match_id, bowler, ball)
                return
            try:
                self.ledger.execute(match_id, command)
            except CommandRefused as refused:
                self._refuse(match_id, ball, refused.reason, bowler)

    def _already_reads(self, match_id: str, bowler: str, ball: BallRecorded) -> bool:
        """True when the ledger's ball at that place already reads as ``ball`` does: pins,
        foul, standing pins (if both know them) and every flag the line sets."""
        state = self.ledger.shared_state(match_id)
        if bowler not in state.bowlers or not 1 <= ball.game <= state.games:
            return False
        recorded = next((b for b in state.balls[bowler][ball.game - 1]
                         if (b["frame"], b["ball"]) == (ball.frame, ball.ball)), None)
        return recorded is not None and reads_as(recorded, ball)

    def _on_wrong_lane(self, event: WrongLane) -> None:
        found = self.lanes.bowler_at(event.lane, event.bowler)
        if found is None:
            return
        match_id, bowler = found
        # Unlike a ball, a Holland-daze has no place in the game to dedupe by, and applying it
        # twice wipes cards won since: the line itself is the identity, kept in the ledger.
        tag = line_tag(event)
        reason = f"scorer reported a wrong-lane correction on lane {event.lane}"
        with self._lock_for(match_id):
            applied = self._applied_lines(match_id)
            if tag is not None and tag in applied:
                self.stats.duplicates += 1
                log.info("match %s: %s already applied (a re-sent line)", match_id, tag)
                return
            try:
                self.ledger.execute(match_id, HollandDaze(
                    bowler, reason=f"{reason} {tag}" if tag else reason,
                    actor=f"feed:{event.source or 'lane'}:lane-{event.lane}"))
            except CommandRefused as refused:
                self._refuse(match_id, event, refused.reason, bowler)
                return
            if tag is not None:
                applied.add(tag)

    def _applied_lines(self, match_id: str) -> set[str]:
        """Tags of the feed lines already applied to the match as Holland-dazes.

        Read once per match from the ledger's log (so a restarted or standby process knows
        them), then kept up to date here.
        """
        if match_id not in self._line_tags:
            store = getattr(getattr(self.ledger, "repository", None), "store", None)
            records = store.load(match_id) if store is not None and hasattr(store, "load") \
                else []
            self._line_tags[match_id] = {
                found.group(0) for record in records if record.get("type") == "holland_daze"
                if (found := LINE_TAG.search(record.get("data", {}).get("reason", "")))}
        return self._line_tags[match_id]

    def _on_retraction(self, event: BallRetracted) -> None:
        # Cards are never silently taken back: a withdrawn ball goes to the commissioner.
        _said_for, since = self._since_sheet.get((event.lane, event.bowler, event.game),
                                                 (None, {}))
        since.pop((event.frame, event.ball), None)
        found = self.lanes.bowler_at(event.lane, event.bowler)
        if found is not None:
            self.ledger.announce("alley", {
                "kind": "ball_retracted", "lane": event.lane, "match_id": found[0],
                "bowler": found[1], "game": event.game, "frame": event.frame, "ball": event.ball,
                "message": f"lane {event.lane}: the scorer withdrew {found[1]}'s ball "
                           f"(game {event.game} frame {event.frame} ball {event.ball}); "
                           "enter a correction if cards were dealt for it",
            })

    # --- helpers -------------------------------------------------------------------------
    def _next_in(self, state: MatchState, bowler: str, ball: BallRecorded) -> bool:
        """Whether ``ball`` is simply the next ball of a match in play, as ``state`` says."""
        return (state.status == "playing" and bowler in state.bowlers
                and 1 <= ball.game <= state.games
                and self._next_position(state, bowler, ball.game) == (ball.frame, ball.ball))

    def _next_position(self, state: MatchState, bowler: str, game: int) -> Position | None:
        if not state.in_play(bowler):  # left the match: no ball of theirs is next, ever
            return None
        balls = state.balls[bowler][game - 1]
        return next_position(tuple((b["pins"], b["foul"]) for b in balls))

    def _last_position(self, match_id: str, bowler: str, game: int) -> Position | None:
        state = self.ledger.shared_state(match_id)
        if bowler not in state.bowlers or not 1 <= game <= state.games:
            return None
        balls = state.balls[bowler][game - 1]
        return (balls[-1]["frame"], balls[-1]["ball"]) if balls else None

    def _refuse(self, match_id: str, event: LaneEvent, reason: str,
                bowler: str | None = None) -> None:
        self.stats.refused += 1
        describe = event.describe() if hasattr(event, "describe") else repr(event)
        log.warning("match %s: refused %s: %s", match_id, describe, reason)
        self.ledger.announce("alley", {"kind": "feed_ball_refused", "match_id": match_id,
                                       "ball": describe, "reason": reason})
        if isinstance(event, BallRecorded) and not isinstance(event, BallCorrected):
            self._hold(match_id, bowler, event, reason)

    # --- held balls --------------------------------------------------------------------
    def _hold(self, match_id: str | None, bowler: str | None, ball: BallRecorded,
              reason: str) -> None:
        """Keep a ball that cannot be placed now as a held item for the desk."""
        line = ball.raw or ((line_tag(ball) or "") + " " + ball.describe()).strip()
        item_id = self.held_log.hold(lane=ball.lane, slot=ball.bowler, match_id=match_id,
                                     bowler=bowler, ball=ball_record(ball), line=line,
                                     reason=reason)
        if match_id is not None and bowler is not None:
            self._waiting(match_id)[(bowler, ball.game, ball.frame, ball.ball)] = item_id
        self.ledger.announce("alley", {
            "kind": "ball_held", "id": item_id, "lane": ball.lane, "match_id": match_id,
            "bowler": bowler, "reason": reason,
            "message": f"lane {ball.lane}: held {ball.describe()} ({reason})"})

    def _waiting(self, match_id: str) -> dict[tuple[str, int, int, int], int]:
        """The open held items of a match by ball, read once from the log (so a restarted
        process resolves items another process held)."""
        items = self._waiting_items.get(match_id)
        if items is None:
            items = self._waiting_items[match_id] = {
                (item["bowler"], item["ball"]["game"], item["ball"]["frame"],
                 item["ball"]["ball"]): item["id"]
                for item in self.held_log.open_items(match_id) if item["bowler"]}
        return items

    def _placed(self, match_id: str, bowler: str, ball: BallRecorded,
                outcome: str = "placed", actor: str = "router", reason: str = "") -> None:
        """The ledger now holds this ball: its held item, if any, is resolved."""
        item_id = self._waiting(match_id).pop((bowler, ball.game, ball.frame, ball.ball), None)
        if item_id is not None and self.held_log.resolve(item_id, outcome, actor=actor,
                                                          reason=reason):
            self.ledger.announce("alley", {"kind": "held_resolved", "id": item_id,
                                           "match_id": match_id, "outcome": outcome})

    def _lock_for(self, match_id: str) -> threading.Lock:
        with self._locks_lock:
            return self._match_locks.setdefault(match_id, threading.Lock())
