"""Catching up after an outage in the lanes' turn order, not sheet by sheet.

A scoresheet snapshot (``SNAP``) tells what one bowler bowled, never when: a sheet has no
order between bowlers.  Yet the match deals from one pile, and who bowled first decides who
gets which card, the first strike of the game's bonus, a Morgan.  So the balls the ledger
never saw are gathered from the sheets the scorer sends after a drop (one per bowler) and
dealt in the order they were bowled, as far as that order can be known:

- **on one lane** the bowlers take turns frame by frame in slot order (one who is mid frame
  finishes it first; all of a game before the next), starting where the ledger stands —
  what the scorer's lines told before the drop.  The sheets are merged in that rotation:
  the bowler who is up deals their next recovered ball, then whoever is up after them.  A
  bowler who is up but whose sheet has not come (or shows nothing more) stops the lane's
  rotation there until a sheet tells more.  A bowler with no ball at all takes no turn.
- **between the lanes of a pair** both rotations run at once and no sheet says how they
  interleaved.  That matters only for balls that move cards or set the first strike (a
  strike, a spare, a gutter ball): such a ball is dealt once every other lane of the match
  has sent the sheets of all its bowling slots and bowled no such ball meanwhile — then
  every interleaving deals the same cards.  When two lanes bowled them, which came first
  cannot be known: those balls, and the balls after them on their lanes, wait for the desk,
  never guessed.

A ball that cannot be dealt yet is a held ball (:mod:`alley_poker.service.held`) with its
reason, so the desk always sees it; it is dealt by itself (``placed``) when a later sheet
tells its turn, or by the desk's *apply* in the order the bowlers say.  When the round's
every ball is dealt the commissioner is told ("lane 1: recovered 4 balls from the
scoresheet") and the live balls that waited behind the gap are dealt.  Balls seen live but
held behind the gap are dealt from their live line (it carries the standing pins a sheet
lacks).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from alley_poker.bowling import Ball, BowlingError, Game
from alley_poker.ledger import MatchState
from alley_poker.ledger.losing import is_gutter_ball
from alley_poker.service.feed_balls import REFUSED, Position
from alley_poker.service.lanes import LaneMap
from alley_poker.service.ledger_gateway import LedgerGateway
from drivers.base import BallRecorded, ScoresheetSnapshot

Place = tuple[int, int, int]  # (game, frame, ball)


class RouterPaths(Protocol):
    """The router's paths a catch-up takes (:class:`~alley_poker.service.router.
    LaneEventRouter` has them all; this module does not import it)."""

    lanes: LaneMap
    ledger: LedgerGateway
    stats: Any
    #: Per (match, bowler, game): the live balls waiting for an earlier one, by position.
    _held: dict[tuple[str, str, int], dict[Position, BallRecorded]]
    #: Per (lane, slot, game), tagged with the match: the live balls the scorer sent since
    #: its last sheet of that game.
    _since_sheet: dict[tuple[int, int, int], tuple[str, dict[Position, BallRecorded]]]

    def _offer(self, match_id: str, bowler: str, ball: BallRecorded) -> str: ...

    def _hold(self, match_id: str | None, bowler: str | None, ball: BallRecorded,
              reason: str) -> None: ...

    def _waiting(self, match_id: str) -> dict[tuple[str, int, int, int], int]: ...

    def _drain_held(self, match_id: str, bowler: str, game: int) -> None: ...


@dataclass
class _Round:
    """The sheets of one match since its last catch-up was settled."""

    #: Recovered balls not dealt yet, per bowler, by their place in the bowler's games.
    balls: dict[str, dict[Place, BallRecorded]] = field(default_factory=dict)
    recovered_on: dict[int, int] = field(default_factory=dict)  # lane -> balls dealt
    on_hold: set[tuple[str, Place]] = field(default_factory=set)  # held for the desk
    told_commissioner: bool = False


@dataclass
class _Turn:
    """One bowler's place in the lane's rotation while a catch-up is ordered."""

    bowler: str
    rolls: list[list[dict]]  # per game: {"pins", "foul"}

    def next_place(self) -> Place | None:
        for number, rolls in enumerate(self.rolls, start=1):
            game = _game(rolls)
            if game is not None and not game.is_complete:
                return (number, game.current_frame, game.current_ball)
            if game is None:
                return None  # a game under review: this bowler's place is not known
        return None

    def roll(self, place: Place, ball: BallRecorded) -> Ball | None:
        """Add ``ball``; the bowling ball it makes (for its mark), None if impossible."""
        game = _game(self.rolls[place[0] - 1])
        if game is None:
            return None
        try:
            rolled = game.roll(ball.pins, foul=ball.flags.foul)
        except BowlingError:
            return None
        self.rolls[place[0] - 1].append({"pins": ball.pins, "foul": ball.flags.foul})
        return rolled


def _game(rolls: list[dict]) -> Game | None:
    try:
        return Game.from_rolls(rolls)
    except BowlingError:
        return None


class LaneOrderCatchUp:
    """Deals a match's recovered balls in the lanes' turn order (see the module's text)."""

    def __init__(self, router: RouterPaths):
        self.router = router
        self._rounds: dict[str, _Round] = {}
        # When each slot last sent a sheet, and when a feed last lost lines (a counter of
        # sheets and gaps): a sheet from before the last gap tells nothing of the outage.
        self._clock = 0
        self._sheet_at: dict[tuple[str, int, int], int] = {}  # (match, lane, slot)
        self._gap_at = 0

    def feed_gap(self, _gap: object = None) -> None:
        """A feed reported lost lines: every sheet so far is from before the outage."""
        self._clock += 1
        self._gap_at = self._clock

    def sheet(self, match_id: str, bowler: str, sheet: ScoresheetSnapshot,
              last: Position | None) -> None:
        """Take one sheet of ``bowler`` (the ledger's last ball of its game is ``last``) and
        deal every recovered ball whose turn is known.  Call with the match's lock held."""
        self._clock += 1
        self._sheet_at[(match_id, sheet.lane, sheet.bowler)] = self._clock
        round_ = self._rounds.setdefault(match_id, _Round())
        held = self.router._held.get((match_id, bowler, sheet.game), {})
        for_commissioner = self.router._waiting(match_id)
        waiting = round_.balls.setdefault(bowler, {})
        for ball in sheet.balls_after(last):
            place = (ball.game, ball.frame, ball.ball)
            if place in waiting:
                continue
            # A ball seen live but held behind the gap carries more than the sheet does
            # (standing pins, the split flag): deal from it.
            live = held.pop((ball.frame, ball.ball), None)
            if live is None and (bowler, *place) in for_commissioner:
                break  # the desk has it (an earlier catch-up's): the rest waits behind it
            waiting[place] = live or ball
        if not any(round_.balls.values()):
            self._close(match_id, round_)  # nothing missing (the usual sheet after a frame)
            return
        self.settle(match_id)

    def settle(self, match_id: str) -> None:
        """Deal every recovered ball whose turn is known; hold the others for the desk
        (dealt by themselves if a later sheet tells their turn)."""
        round_ = self._rounds.get(match_id)
        if round_ is None:
            return
        state = self.router.ledger.shared_state(match_id)
        for bowler, balls in round_.balls.items():  # the desk may have applied some
            for number, game in enumerate(state.balls.get(bowler, ()), start=1):
                for b in game:
                    balls.pop((number, b["frame"], b["ball"]), None)
        lanes = self._lanes(match_id, state)
        not_bowling = self._not_bowling(match_id, round_, state)
        ordered = {lane: list(self._rotation(
            state, [bowler for bowler in bowlers if bowler not in not_bowling], round_))
            for lane, bowlers in lanes.items()}
        moving = {lane for lane, turns in ordered.items() if any(m for _, _, m in turns)}
        known = self._lanes_reported(match_id, state, not_bowling)
        for lane, turns in ordered.items():
            # A mark here is dealt once no other lane can have bowled one meanwhile.
            alone = all(other in known and other not in moving
                        for other in lanes if other != lane)
            for bowler, ball, moves_cards in turns:
                if moves_cards and not alone:
                    break
                self._deal(match_id, bowler, ball, round_)
        left = [(bowler, ball) for bowler, balls in round_.balls.items()
                for ball in balls.values()]
        if not left:
            self._close(match_id, round_)
            return
        ambiguous = len(moving) > 1  # more sheets add balls, never take a mark away
        for bowler, ball in sorted(left, key=lambda pair: _place(pair[1])):
            if (bowler, _place(ball)) not in round_.on_hold:
                round_.on_hold.add((bowler, _place(ball)))
                self.router.stats.held += 1
                self.router._hold(match_id, bowler, ball,
                                  self._why_waiting(ball, lanes, known, ambiguous))
        if ambiguous and not round_.told_commissioner:
            round_.told_commissioner = True
            self.router.ledger.announce("alley", {
                "kind": "catch_up_for_review", "match_id": match_id, "count": len(left),
                "message": f"lanes {_lane_list(lanes)}: marks were bowled on both lanes while "
                           "the scorer's feed was out, and its sheets cannot tell which came "
                           f"first: {len(left)} ball{'s' if len(left) != 1 else ''} wait under "
                           "Held balls; apply them in the order they were bowled"})

    @staticmethod
    def _why_waiting(ball: BallRecorded, lanes: dict[int, list[str]], known: set[int],
                     ambiguous: bool) -> str:
        """Why a recovered ball waits: true while more sheets may still tell its turn, and
        once they cannot (then the desk is also told, once)."""
        unknown = [lane for lane in lanes if lane not in known and lane != ball.lane]
        if ambiguous or unknown:
            what = (f"whether it or a mark on lane {', '.join(map(str, sorted(unknown)))} "
                    "came first" if unknown and not ambiguous else
                    f"which of the marks on lanes {_lane_list(lanes)} came first")
        else:
            what = f"when it was bowled among the other bowlers of lane {ball.lane}"
        return ("recovered from the scoresheet after the feed was out; it is dealt when the "
                f"scoresheets tell {what} - if they cannot, apply the balls in the order they "
                "were bowled")

    def _close(self, match_id: str, round_: _Round) -> None:
        """Every recovered ball is dealt: say so, and deal the live balls that waited."""
        del self._rounds[match_id]
        for lane, count in sorted(round_.recovered_on.items()):
            self.router.ledger.announce("alley", {
                "kind": "balls_recovered", "lane": lane, "match_id": match_id,
                "count": count,
                "message": f"lane {lane}: recovered {count} ball{'s' if count != 1 else ''} "
                           "from the scoresheet"})
        for bowler in round_.balls:
            self.router._drain_held(match_id, bowler, 1)

    # --- the rotation ----------------------------------------------------------------
    def _rotation(self, state: MatchState, bowlers: list[str],
                  round_: _Round) -> Iterator[tuple[str, BallRecorded, bool]]:
        """The lane's recovered balls in turn order: (bowler, ball, moves cards)."""
        turns = {bowler: _Turn(bowler, [[{"pins": b["pins"], "foul": b["foul"]} for b in game]
                                        for game in state.balls[bowler]])
                 for bowler in bowlers}
        order = {bowler: index for index, bowler in enumerate(bowlers)}
        while True:
            places = {bowler: turn.next_place() for bowler, turn in turns.items()}
            up = min((bowler for bowler, place in places.items() if place is not None),
                     key=lambda b: (places[b][0], places[b][1], places[b][2] == 1, order[b]),
                     default=None)
            if up is None:
                return
            place = places[up]
            ball = round_.balls.get(up, {}).get(place)
            if ball is None:
                return  # the bowler up has not bowled (yet, or by the sheets): turn ends
            rolled = turns[up].roll(place, ball)
            if rolled is None:
                return
            yield up, ball, _moves_cards(state, rolled, ball)

    def _deal(self, match_id: str, bowler: str, ball: BallRecorded, round_: _Round) -> None:
        place = (ball.game, ball.frame, ball.ball)
        round_.balls.get(bowler, {}).pop(place, None)
        before = self.router.stats.recovered
        dealt = self.router._offer(match_id, bowler, ball) != REFUSED
        if dealt and self.router.stats.recovered > before:
            round_.recovered_on[ball.lane] = round_.recovered_on.get(ball.lane, 0) + 1

    def _lanes(self, match_id: str, state: MatchState) -> dict[int, list[str]]:
        """The match's bowlers on each of its lanes, in slot order."""
        assignment = self.router.lanes.assignment(match_id)
        lanes: dict[int, list[str]] = {}
        for (lane, _slot), bowler in sorted(assignment.slots.items() if assignment else ()):
            if bowler in state.bowlers:
                lanes.setdefault(lane, []).append(bowler)
        return lanes

    def _lanes_reported(self, match_id: str, state: MatchState,
                        not_bowling: set[str]) -> set[int]:
        """The match's lanes every bowling slot of which sent a sheet this round."""
        assignment = self.router.lanes.assignment(match_id)
        reported = self._reported(match_id)
        lanes: dict[int, bool] = {}
        for key, bowler in (assignment.slots.items() if assignment else ()):
            if bowler in state.bowlers:
                lanes[key[0]] = lanes.get(key[0], True) and (
                    key in reported or bowler in not_bowling)
        return {lane for lane, every in lanes.items() if every}

    def _reported(self, match_id: str) -> set[tuple[int, int]]:
        """The slots whose last sheet is newer than the feed's last gap and than their own
        last live ball: what they bowled during the outage is known."""
        since_live = {(lane, slot) for (lane, slot, _game), (said_for, balls)
                      in self.router._since_sheet.items() if said_for == match_id and balls}
        return {(lane, slot) for (match, lane, slot), at in self._sheet_at.items()
                if match == match_id and at > self._gap_at and (lane, slot) not in since_live}

    def _not_bowling(self, match_id: str, round_: _Round, state: MatchState) -> set[str]:
        """Bowlers who take no turn: those the desk marked not here, and those with nothing in
        the ledger or on a sheet whose own sheet says so or whose lane bowled past its first
        frame without them (absent, or late): the scorer has no sheet of theirs to send."""
        assignment = self.router.lanes.assignment(match_id)
        seated = {key: bowler for key, bowler in (assignment.slots.items() if assignment
                                                  else ()) if bowler in state.bowlers}
        reported = self._reported(match_id)
        past_first = {lane for (lane, _slot), bowler in seated.items()
                      if any(b["frame"] > 1 or number > 1
                             for number, game in enumerate(state.balls[bowler], start=1)
                             for b in game)}
        return {bowler for key, bowler in seated.items()
                if not state.in_play(bowler)  # marked not here by the desk
                or (not any(state.balls[bowler]) and not round_.balls.get(bowler)
                    and (key in reported or key[0] in past_first))}


def _moves_cards(state: MatchState, rolled: Ball, ball: BallRecorded) -> bool:
    """Whether dealing this ball may move a card or set the first strike: then who bowled
    first matters.  Open-frame balls deal nothing and can go in any order."""
    if rolled.is_strike or rolled.is_spare:
        return True
    return is_gutter_ball(state.rules, rolled, ball.flags.gutter or None)


def _place(ball: BallRecorded) -> Place:
    return (ball.game, ball.frame, ball.ball)


def _lane_list(lanes: dict[int, list[str]]) -> str:
    numbers = sorted(lanes)
    return "-".join(map(str, numbers)) if numbers == list(range(numbers[0], numbers[-1] + 1)) \
        else ", ".join(map(str, numbers))
