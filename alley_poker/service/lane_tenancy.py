"""Lanes that change hands: which match a scorer's game belongs to.

A match owns its lanes from its start to its settlement; the next match on the same lanes
(the late league after the early one) starts clean.  The scorer knows nothing of matches: it
numbers the games of a lane slot, and a new scorer process — or the same one, restarted for
the next league — numbers them from 1 again.  So a ball's place (lane, slot, game, frame,
ball) alone cannot say whose it is.  :class:`ScorerGames` remembers, for each scorer game
``(lane, slot, game number)``, the match that was seated in its slot when the game was first
heard, and these rules follow:

- while that match is not over, the slot's seating decides (the desk may move bowlers);
- once it is over (settled or void), the game stays with it: its late lines — a re-send, a
  snapshot, a ball the scorer had not sent yet — go to that match (a re-send is a harmless
  duplicate, anything else is refused and held naming that match), never to the match now
  seated there;
- the scorer starts a *new* game under the old number when it opens the lane again (``OPEN``
  for that game number or an earlier one) or bowls a first ball (frame 1 ball 1) that is not
  the old game's: from then on the number belongs to the match seated now.

What this remembers lives with the process: a restarted reader learns the games again from the
lines it reads (``docs/service.md``, "Lanes that change hands").

>>> games = ScorerGames()
>>> early, late = Tenant("early", "Ed"), Tenant("late", "Ivy")
>>> over = {"early"}
>>> strike = BallRecorded(lane=1, bowler=1, game=1, frame=10, ball=3, pins=10)
>>> games.tenant(strike, early, is_over=over.__contains__, is_new_game=lambda t, b: False)
Tenant(match_id='early', bowler='Ed')
>>> games.tenant(strike, late, is_over=over.__contains__, is_new_game=lambda t, b: False)
Tenant(match_id='early', bowler='Ed')
>>> games.opened(1, 1, is_over=over.__contains__)
>>> games.tenant(strike, late, is_over=over.__contains__, is_new_game=lambda t, b: False)
Tenant(match_id='late', bowler='Ivy')
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alley_poker.bowling import BowlingError, Game
from alley_poker.ledger import MatchState
from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.feed_balls import next_position, reads_as
from alley_poker.service.held import HeldBalls, ball_record
from alley_poker.service.lanes import LaneMap
from alley_poker.service.ledger_gateway import LedgerGateway
from alley_poker.store.held_balls import same_ball
from drivers.base import BallCorrected, BallRecorded, LaneOpened, ScoresheetSnapshot

log = logging.getLogger(__name__)

#: The bowler of a slot nobody of the match on the lane is seated in.
NOBODY = ""

GameKey = tuple[int, int, int]  # (lane, slot, scorer's game number)


@dataclass(frozen=True)
class Tenant:
    """A match and its bowler in a lane slot (:data:`NOBODY`: the match holds the lane, but
    nobody of it is seated in the slot)."""

    match_id: str
    bowler: str


class ScorerGames:
    """Per scorer game, the match it was first heard for (see the module docstring)."""

    #: Games remembered; a centre's busiest night is far fewer.
    MAX_GAMES = 8192

    def __init__(self) -> None:
        self._games: dict[GameKey, Tenant] = {}
        self._lock = threading.Lock()

    def tenant(self, ball: BallRecorded, seated: Tenant | None, *,
               is_over: Callable[[str], bool],
               is_new_game: Callable[[Tenant, BallRecorded], bool]) -> Tenant | None:
        """Whose ball ``ball`` is: ``seated`` (the match in its slot now, or None) unless
        its scorer game belongs to a match that is over.

        ``is_over(match_id)`` says whether a match is settled or void; ``is_new_game(tenant,
        ball)`` whether a first ball is not that match's first ball of the game (so the
        scorer began a new game under the old number).
        """
        key = (ball.lane, ball.bowler, ball.game)
        with self._lock:
            bound = self._games.get(key)
        if bound is not None and (seated is None or bound.match_id != seated.match_id) \
                and is_over(bound.match_id) \
                and not (starts_a_game(ball) and is_new_game(bound, ball)):
            return bound
        with self._lock:
            if seated is None:
                self._games.pop(key, None)
            else:
                self._games[key] = seated
                while len(self._games) > self.MAX_GAMES:
                    self._games.pop(next(iter(self._games)))
        return seated

    def knows(self, key: GameKey) -> bool:
        with self._lock:
            return key in self._games

    def recall(self, key: GameKey, tenant: Tenant) -> bool:
        """Remember ``tenant`` for a game this process has not heard (learned another way);
        False, changing nothing, when the game is known already."""
        with self._lock:
            if key in self._games:
                return False
            self._games[key] = tenant
            return True

    def opened(self, lane: int, game: int, *, is_over: Callable[[str], bool]) -> None:
        """The scorer opened game ``game`` on ``lane``: the games it numbered ``game`` or
        later there for a match that is over are that match's past; these numbers now
        start new games."""
        with self._lock:
            stale = [key for key, tenant in self._games.items()
                     if key[0] == lane and key[2] >= game and is_over(tenant.match_id)]
            for key in stale:
                del self._games[key]


def starts_a_game(ball: BallRecorded) -> bool:
    """A first ball may start a new game; a correction never does (it changes a ball of a
    game already bowled)."""
    return (ball.frame, ball.ball) == (1, 1) and not isinstance(ball, BallCorrected)


def is_new_game(state: MatchState, bowler: str, ball: BallRecorded) -> bool:
    """Whether ``ball``, a first ball, starts a new game rather than re-sending the first
    ball of ``bowler``'s game in ``state``: that game has no such ball, another one, or is
    complete (a scorer re-sends its last lines, not a finished game's first)."""
    if bowler not in state.bowlers or not 1 <= ball.game <= state.games:
        return True
    balls = state.balls[bowler][ball.game - 1]
    first = next((b for b in balls if (b["frame"], b["ball"]) == (1, 1)), None)
    return first is None or not reads_as(first, ball) or \
        next_position(tuple((b["pins"], b["foul"]) for b in balls)) is None


def sheet_is_new_game(state: MatchState, bowler: str, sheet: ScoresheetSnapshot) -> bool:
    """Whether ``sheet`` shows a new game rather than ``bowler``'s game in ``state``: that
    game has no ball, or one of its balls reads otherwise on the sheet.

    Unlike a live first ball, a sheet shows the whole game, so a *finished* game's sheet is
    still that game's: the scorer sends one after a game's last frame, and under load it may
    be read after the match settled and the next league took the lanes.  Taken for a new
    game, it would deal the early bowler's game into whoever sits in the slot now.
    """
    if bowler not in state.bowlers or not 1 <= sheet.game <= state.games:
        return True
    recorded = state.balls[bowler][sheet.game - 1]
    shown = {(ball.frame, ball.ball): ball for ball in sheet.ball_events()}
    return not recorded or any(
        (b["frame"], b["ball"]) in shown and not reads_as(b, shown[(b["frame"], b["ball"])])
        for b in recorded)


def nearby_lanes(lanes: tuple[int, ...] | list[int]) -> list[int]:
    """``lanes`` and the other lane of each one's pair (a league match owns its pair).

    >>> nearby_lanes((1,)), nearby_lanes([3, 4])
    ([1, 2], [3, 4])
    """
    return sorted({*lanes, *(lane + 1 if lane % 2 else lane - 1 for lane in lanes)})


class TenantRouting:
    """The router's side of lanes changing hands (mixed into
    :class:`~alley_poker.service.router.LaneEventRouter`): whose a ball is, balls of lanes
    no match holds, and the held balls a match leaves behind when its lanes are freed."""

    lanes: LaneMap
    ledger: LedgerGateway
    held_log: HeldBalls
    scorer_games: ScorerGames
    stats: Any
    _open_games: dict[tuple[int, int, int], Game]
    #: Per (match, bowler, game): the balls waiting for an earlier one, by position.
    _held: dict[tuple[str, str, int], dict[tuple[int, int], BallRecorded]]

    def _lock_for(self, match_id: str) -> threading.Lock: ...

    def _waiting(self, match_id: str) -> dict[tuple[str, int, int, int], int]: ...

    def _hold(self, match_id: str | None, bowler: str | None, ball: BallRecorded,
              reason: str) -> None: ...

    def _is_over(self, match_id: str) -> bool:
        return self.ledger.shared_state(match_id).status in FINISHED  # it holds no lanes

    def _tenant_of(self, ball: BallRecorded, found: tuple[str, str] | None, *,
                   sheet: ScoresheetSnapshot | None = None) -> tuple[str, str] | None:
        """``(match_id, bowler)`` whose ``ball`` is: the match seated in its slot now
        (``found``; else the match holding the lane, with :data:`NOBODY`), unless the ball's
        scorer game belongs to a match that is over.  For a ``sheet`` (``ball`` its first),
        the whole sheet says whether it is that match's game."""
        on_lane = self.lanes.matches_on(ball.lane)
        seated = Tenant(*found) if found else \
            Tenant(on_lane[0], NOBODY) if len(on_lane) == 1 else None
        if sheet is not None and seated is not None:
            self._recall_finished_game(sheet, seated)

        def is_new(bound: Tenant, first: BallRecorded) -> bool:
            if sheet is None or bound.bowler == NOBODY:
                return self._is_new_game(bound, first)
            return sheet_is_new_game(self.ledger.shared_state(bound.match_id), bound.bowler,
                                     sheet)
        tenant = self.scorer_games.tenant(ball, seated, is_over=self._is_over,
                                          is_new_game=is_new)
        return None if tenant is None else (tenant.match_id, tenant.bowler)

    def _recall_finished_game(self, sheet: ScoresheetSnapshot, seated: Tenant) -> None:
        """A sheet of a game this process never heard, for a slot whose bowler has bowled
        nothing of it: a reader started after the lanes changed hands may be reading the
        early game's last sheet, re-sent.  If the match over now that held the slot last
        recorded that game as the sheet shows it, the game is that match's (as if this
        process had heard it); else the sheet is the seated bowler's."""
        key = (sheet.lane, sheet.bowler, sheet.game)
        if seated.bowler == NOBODY or self.scorer_games.knows(key) or \
                not self._bowled_nothing_of(seated.match_id, seated.bowler, sheet.game):
            return
        past = self.ledger.last_finished_in(sheet.lane, sheet.bowler)
        if past is None or past[0] == seated.match_id or \
                sheet_is_new_game(self.ledger.shared_state(past[0]), past[1], sheet):
            return
        if self.scorer_games.recall(key, Tenant(*past)):
            log.warning("lane %s slot %s: a scoresheet of %s's game %s in %s (over) was read "
                        "after the lanes changed hands: it stays with that match",
                        sheet.lane, sheet.bowler, past[1], sheet.game, past[0])

    def _bowled_nothing_of(self, match_id: str, bowler: str, game: int) -> bool:
        state = self.ledger.shared_state(match_id)
        return bowler in state.bowlers and 1 <= game <= state.games \
            and not state.balls[bowler][game - 1]

    def _is_new_game(self, bound: Tenant, first: BallRecorded) -> bool:
        if bound.bowler == NOBODY:
            # Nobody's balls are not in the ledger: the held-balls list has them.
            kept = ball_record(first)
            return not any(same_ball(item, first.lane, first.bowler, kept)
                           for item in self.held_log.open_items(bound.match_id))
        return is_new_game(self.ledger.shared_state(bound.match_id), bound.bowler, first)

    def _on_lane_opened(self, event: LaneOpened) -> None:
        self.scorer_games.opened(event.lane, event.game, is_over=self._is_over)
        # A ball waiting for an earlier ball of a game the scorer only now opens was heard
        # before that game began: a left-over line of an earlier game under the same number
        # (re-sent to a reader that restarted after the lanes changed hands), never this
        # game's.  It stays on the held-balls list for the desk; it is not dealt when the
        # new game reaches its frame.
        for match_id in self.lanes.matches_on(event.lane):
            assignment = self.lanes.assignment(match_id)
            on_lane = {name for (lane, _slot), name in
                       (assignment.slots.items() if assignment else ()) if lane == event.lane}
            with self._lock_for(match_id):
                for key in [key for key in self._held if key[0] == match_id
                            and key[1] in on_lane and key[2] >= event.game]:
                    stale = self._held.pop(key)
                    waiting = self._waiting(match_id)
                    for frame, number in stale:
                        waiting.pop((key[1], key[2], frame, number), None)
                    log.warning("lane %s: %d ball(s) held for %s's game %s were heard before "
                                "the scorer opened that game: kept for the desk, not dealt",
                                event.lane, len(stale), key[1], key[2])

    def _keep_unassigned(self, ball: BallRecorded, match_id: str | None) -> None:
        """A ball of a slot with no bowler of a match: score it, and hold it for the desk.

        While a match holds the lane (``match_id``), the ball is that match's even though
        nobody is seated in its slot: it waits for the desk to say who bowled it, and it
        never goes to the next match on the lanes (nor do the later lines of its game).
        """
        game = self._open_games.setdefault((ball.lane, ball.bowler, ball.game), Game())
        try:
            if (game.current_frame, game.current_ball) == (ball.frame, ball.ball):
                game.roll(ball.pins, foul=ball.flags.foul)
        except BowlingError as exc:
            log.warning("lane %s (no match): %s", ball.lane, exc)
        self.stats.unassigned += 1
        on_lane = [match_id] if match_id else self.lanes.matches_on(ball.lane)
        reason = (f"lane {ball.lane} slot {ball.bowler} has no bowler of match "
                  f"{', '.join(on_lane)}" if on_lane else f"no match is on lane {ball.lane}")
        self._hold(match_id, None, ball, reason)

    def open_game(self, lane: int, slot: int, game: int) -> Game | None:
        """The bowling score kept for a lane slot that has no match."""
        return self._open_games.get((lane, slot, game))

    def lanes_left_by(self, match_id: str, lanes: tuple[int, ...] | list[int]) -> int:
        """``match_id`` is over and has left ``lanes``: balls still held there for no match
        were bowled before it took them (a scorer that began before the night did); they are
        its past, not the next match's.  Returns how many it keeps."""
        return self.held_log.claim_unowned(nearby_lanes(lanes), match_id)
