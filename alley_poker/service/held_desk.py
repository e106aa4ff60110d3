"""The desk's actions on held balls: apply one, discard one or many, re-sync a bowler from
the scorer.

These run on the router (:class:`~alley_poker.service.router.LaneEventRouter` inherits them)
because they use its paths: the catch-up path that deals missing balls in order, the waiting
balls, the scorer's last sheets and the per-match locks.  They know the router only through
those paths (:class:`RouterPaths`), so this module does not import the router.  Each answers a
:class:`DeskOutcome` in the desk's words.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from alley_poker.ledger import CommandRefused, MatchState
from alley_poker.ledger.commands import CorrectBall
from alley_poker.service.feed_balls import HELD, RECORDED, Position, reads_as
from alley_poker.service.held import HeldBalls, ball_from_record
from alley_poker.service.lanes import LaneMap
from alley_poker.service.ledger_gateway import LedgerGateway
from drivers.base import BallRecorded

log = logging.getLogger(__name__)


def _balls(count: int) -> str:
    """How many held balls, in words.

    >>> _balls(1), _balls(142)
    ('1 held ball', '142 held balls')
    """
    return f"{count} held ball{'' if count == 1 else 's'}"


@dataclass(frozen=True)
class DeskOutcome:
    """What a desk action on held balls did, in words (``done`` False: nothing changed)."""

    done: bool
    message: str


class RouterPaths(Protocol):
    """The router's paths the desk's actions take (the router has them all)."""

    lanes: LaneMap
    ledger: LedgerGateway
    held_log: HeldBalls
    #: Per (match, bowler, game): the balls waiting for an earlier one, by position.
    _held: dict[tuple[str, str, int], dict[Position, BallRecorded]]

    def _lock_for(self, match_id: str) -> threading.Lock: ...

    def _waiting(self, match_id: str) -> dict[tuple[str, int, int, int], int]: ...

    def _offer(self, match_id: str, bowler: str, ball: BallRecorded) -> str: ...

    def _drain_held(self, match_id: str, bowler: str, game: int) -> None: ...

    def _next_position(self, state: MatchState, bowler: str, game: int) -> Position | None: ...

    def scorer_balls(self, match_id: str, lane: int, slot: int,
                     game: int) -> dict[Position, BallRecorded]: ...


class HeldBallDesk:
    """The desk's actions, mixed into the router."""

    def apply_held(self: RouterPaths, item_id: int, *, actor: str) -> DeskOutcome:
        """Offer a held ball to the ledger again (the desk has fixed what stopped it: seated
        the slot, started the match, entered the missing ball)."""
        item = self.held_log.get(item_id)
        if item is None or item["outcome"] is not None:
            return DeskOutcome(False, f"held ball {item_id} is not open (already resolved, "
                                      "or unknown)")
        ball = ball_from_record(item["lane"], item["slot"], item["ball"])
        found = self.lanes.bowler_at(item["lane"], item["slot"])
        if found is None:
            return DeskOutcome(False, f"lane {item['lane']} slot {item['slot']} has no bowler "
                                      "of a match: create the match or move a bowler there "
                                      "first, or discard the ball")
        match_id, bowler = found
        if item["match_id"] not in (None, match_id):
            # Lanes change hands: a ball bowled in an earlier match stays with it.
            return DeskOutcome(False, f"this ball was bowled in the match that held lane "
                                      f"{item['lane']} before the one there now: it stays "
                                      "with that match (discard it if it should not count)")
        with self._lock_for(match_id):
            self._waiting(match_id).pop((bowler, ball.game, ball.frame, ball.ball), None)
            outcome = self._offer(match_id, bowler, ball)
            if outcome == RECORDED:
                self.held_log.resolve(item_id, "applied", actor=actor)
                self._drain_held(match_id, bowler, ball.game)
                self.ledger.announce("alley", {"kind": "held_resolved", "id": item_id,
                                               "match_id": match_id, "outcome": "applied"})
                return DeskOutcome(True, f"applied to {bowler}: {ball.describe()}")
            again = self.held_log.get(item_id) or item
        return DeskOutcome(False, f"still held: {again['reason']}"
                                  + (" — re-sync the bowler, or wait for the scorer's sheet"
                                     if outcome == HELD else ""))

    def discard_held(self: RouterPaths, item_id: int, *, actor: str,
                     reason: str) -> DeskOutcome:
        """The desk decides a held ball never counts (a practice ball, a test line)."""
        if not reason.strip():
            return DeskOutcome(False, "give a reason for discarding a ball: it goes into "
                                      "the audit trail")
        item = self.held_log.get(item_id)
        if item is None or not self.held_log.resolve(item_id, "discarded", actor=actor,
                                                      reason=reason):
            return DeskOutcome(False, f"held ball {item_id} is not open (already resolved, "
                                      "or unknown)")
        if item["match_id"] and item["bowler"]:
            ball = item["ball"]
            self._waiting(item["match_id"]).pop(
                (item["bowler"], ball["game"], ball["frame"], ball["ball"]), None)
            self._held.get((item["match_id"], item["bowler"], ball["game"]), {}).pop(
                (ball["frame"], ball["ball"]), None)
        self.ledger.announce("alley", {"kind": "held_resolved", "id": item_id,
                                       "match_id": item["match_id"], "outcome": "discarded"})
        return DeskOutcome(True, f"discarded: {item['line']}")

    def discard_many(self: RouterPaths, item_ids: Sequence[int], *, actor: str,
                     reason: str) -> DeskOutcome:
        """The desk's one command for many held balls (a night's practice balls, a lane whose
        scorer ran a test game): all of them are discarded with one reason, at one time, by
        one actor — or, if any is not open any more, none of them."""
        if not reason.strip():
            return DeskOutcome(False, "give a reason for discarding the balls: it goes into "
                                      "the audit trail")
        wanted = sorted(set(item_ids))
        if not wanted:
            return DeskOutcome(False, "choose at least one held ball to discard")
        items = [self.held_log.get(item_id) for item_id in wanted]
        not_open = self.held_log.resolve_many(wanted, "discarded", actor=actor, reason=reason)
        if not_open:
            return DeskOutcome(False, f"{_balls(len(not_open))} of the {len(wanted)} chosen "
                                      f"{'is' if len(not_open) == 1 else 'are'} no longer "
                                      "held (resolved meanwhile, or unknown): nothing was "
                                      "discarded; refresh the list and choose again")
        for item in items:
            if item and item["match_id"] and item["bowler"]:
                ball = item["ball"]
                self._waiting(item["match_id"]).pop(
                    (item["bowler"], ball["game"], ball["frame"], ball["ball"]), None)
                self._held.get((item["match_id"], item["bowler"], ball["game"]), {}).pop(
                    (ball["frame"], ball["ball"]), None)
        self.ledger.announce("alley", {
            "kind": "held_resolved", "ids": wanted, "outcome": "discarded",
            "match_ids": sorted({item["match_id"] for item in items
                                 if item and item["match_id"]})})
        log.info("%s discarded %d held balls at once: %s", actor, len(wanted), reason)
        return DeskOutcome(True, f"{_balls(len(wanted))} discarded")

    def resync(self: RouterPaths, match_id: str, bowler: str, *, actor: str) -> DeskOutcome:
        """Bring the bowler's balls in the ledger in step with the scorer: balls the scorer
        has and the ledger lacks are dealt in order (the catch-up path), balls that read
        differently are corrected (the correction path, with its review items), from the
        scorer's last sheet and the bowler's held balls."""
        state = self.ledger.shared_state(match_id)
        if bowler not in state.bowlers:
            return DeskOutcome(False, f"no bowler {bowler!r} in this match")
        assignment = self.lanes.assignment(match_id)
        slot = next((key for key, name in (assignment.slots.items() if assignment else ())
                     if name == bowler), None)
        items = [item for item in self.held_log.open_items(match_id)
                 if item["bowler"] == bowler]
        done: list[str] = []
        problems: list[str] = []
        with self._lock_for(match_id):
            for game in range(1, state.games + 1):
                scorer = self._scorer_balls(match_id, slot, game, items)
                if scorer:
                    self._resync_game(match_id, bowler, game, scorer, actor, done, problems)
            state = self.ledger.shared_state(match_id)
            for item in items:
                ball = item["ball"]
                if any((b["frame"], b["ball"]) == (ball["frame"], ball["ball"])
                       and reads_as(b, ball_from_record(item["lane"], item["slot"], ball))
                       for b in state.balls[bowler][ball["game"] - 1]):
                    self._waiting(match_id).pop(
                        (bowler, ball["game"], ball["frame"], ball["ball"]), None)
                    if self.held_log.resolve(item["id"], "resynced", actor=actor):
                        done.append(f"held ball {item['id']} now in the ledger")
        self.ledger.announce("alley", {"kind": "held_resolved", "match_id": match_id,
                                       "outcome": "resynced", "bowler": bowler})
        if not done and not problems:
            return DeskOutcome(False, f"{bowler} is already in step with everything the "
                                      "scorer has sent")
        return DeskOutcome(not problems, "; ".join(done + problems))

    def _scorer_balls(self: RouterPaths, match_id: str, slot: tuple[int, int] | None,
                      game: int, items: list[dict]) -> dict[Position, BallRecorded]:
        """What the scorer says of one game: its last sheet, the balls and corrections it
        sent since, then the live held balls (which carry more: standing pins, the split
        flag)."""
        balls = self.scorer_balls(match_id, *slot, game) if slot else {}
        for item in items:
            if item["ball"]["game"] == game:
                ball = ball_from_record(item["lane"], item["slot"], item["ball"])
                balls[(ball.frame, ball.ball)] = ball
        return balls

    def _resync_game(self: RouterPaths, match_id: str, bowler: str, game: int,
                     scorer: dict[Position, BallRecorded], actor: str, done: list[str],
                     problems: list[str]) -> None:
        state = self.ledger.shared_state(match_id)
        for recorded in list(state.balls[bowler][game - 1]):
            place = (recorded["frame"], recorded["ball"])
            theirs = scorer.get(place)
            if theirs is None or reads_as(recorded, theirs):
                continue
            try:
                self.ledger.execute(match_id, CorrectBall(
                    bowler, game, place[0], place[1], theirs.pins,
                    standing=sorted(theirs.standing) if theirs.standing is not None else None,
                    foul=theirs.flags.foul, gutter=theirs.flags.gutter or None,
                    split=theirs.flags.split or None, reason="re-synced from the scorer",
                    actor=actor))
                done.append(f"game {game} frame {place[0]} ball {place[1]} corrected to "
                            f"{theirs.pins}")
            except CommandRefused as refused:
                problems.append(f"game {game} frame {place[0]} ball {place[1]}: "
                                f"{refused.reason}")
                return
        state = self.ledger.shared_state(match_id)
        have = {(b["frame"], b["ball"]) for b in state.balls[bowler][game - 1]}
        for place in sorted(set(scorer) - have):
            result = self._offer(match_id, bowler, scorer[place])
            if result != RECORDED:
                expected = self._next_position(self.ledger.shared_state(match_id), bowler,
                                               game)
                problems.append(
                    f"game {game} frame {place[0]} ball {place[1]} still waits: the scorer's "
                    "sheet for it has not been seen" + (
                        f" (the ledger needs frame {expected[0]} ball {expected[1]} first; "
                        "wait for the next scoresheet or enter it at the desk)"
                        if expected else ""))
                return
            done.append(f"game {game} frame {place[0]} ball {place[1]} dealt")
        state = self.ledger.shared_state(match_id)
        extra = [(b["frame"], b["ball"]) for b in state.balls[bowler][game - 1]
                 if (b["frame"], b["ball"]) not in scorer]
        last_known = max(scorer)
        ahead = [place for place in extra if place > last_known]
        if ahead:
            problems.append(f"the ledger has ball(s) of game {game} the scorer has not sent "
                            f"({', '.join(f'frame {f} ball {b}' for f, b in ahead)}): undo or "
                            "correct them if the scorer is right")
