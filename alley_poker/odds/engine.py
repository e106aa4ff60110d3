"""Live win odds: the rest of a match played out many times, by the ledger's own rules.

:func:`win_odds` is the entry point.  By default it runs the fast engine
(:mod:`alley_poker.odds.fast`: compact runs, docs/odds.md "The fast engine");
``engine="ledger"`` runs the reference this module keeps, which the fast engine is tested
against (tests/odds/test_fast_engine_differential.py): each run takes a copy of the match,
replaces the draw pile with a uniformly shuffled copy of the cards nobody can see (the pile
is first put in a canonical order, so the real order never reaches the simulation), bowls
every remaining ball from each bowler's ball model through its two calls (``for_game`` when
a game starts, and for the game in progress when the run starts; ``ball`` for each ball),
takes the automatic choice at every decision (what the scheduler does when a deadline
passes), and plays the copy through the ledger's handlers
(:func:`alley_poker.ledger.handler.play_on_copy`) until the showdown names the winners.
A bowler's chance of winning is the share of runs they won (a tie of two counts as half a
win each); the expected share is the mean of the cents the showdown gave them.

>>> import random
>>> from datetime import datetime, timezone
>>> from alley_poker.ledger import MatchState, commands as c, handle
>>> now = datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
>>> state = MatchState.empty("m1")
>>> for command in [c.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
...                 c.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 c.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 c.StartMatch(actor="commissioner:pat")]:
...     for event in handle(state, command, rng=random.Random(1), now=now):
...         state.apply(event)
>>> odds = win_odds(state, iterations=40)
>>> round(sum(b.win for b in odds.bowlers.values()), 9), odds.iterations
(1.0, 40)
>>> reference = win_odds(state, iterations=40, engine="ledger")
>>> sorted(reference.as_json()["bowlers"])
['Ann', 'Bob']
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime

from alley_poker.bowling import Game
from alley_poker.ledger import MatchState
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import parse_iso
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.handler import play_on_copy
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.fast import WarmRuns, fast_win_odds
from alley_poker.odds.profiles import CentreAverages, profiles_for
from alley_poker.odds.seat_scripts import invent_leave
from alley_poker.odds.types import LIVE, BowlerOdds, MatchOdds, known_without_running

#: When the simulation's balls happen (any moment: the rules do not depend on the clock).
_SIM_NOW = datetime(2000, 1, 1, tzinfo=UTC)
#: The simulation's balls and choices, as the audit trail would name them.
_SIM_FEED = "feed:odds-simulation"
#: A match has at most 10 games of 8 bowlers; far more steps than that means a bug.
_MAX_STEPS = 20_000
#: The engines :func:`win_odds` offers.
ENGINES = ("fast", "ledger")


def win_odds(state: MatchState, *, iterations: int = 400, seed: int = 0,
             profiles: Mapping[str, BowlerProfile] | None = None,
             centre: CentreAverages | None = None,
             averages: Mapping[str, int] | None = None,
             engine: str = "fast", warm: WarmRuns | None = None) -> MatchOdds | None:
    """The odds of ``state`` (never modified); None when the match is not live.

    ``profiles`` are the bowlers' ball models (default: learnt from the match's own balls,
    shrunk toward each bowler's known average in ``averages``, else toward ``centre``).
    The same state, seed, models and engine give the same odds.  ``engine`` is ``"fast"``
    (:mod:`alley_poker.odds.fast`; ``warm`` keeps its runs' balls from state to state) or
    ``"ledger"`` (the reference: every run through the ledger's own handlers).
    """
    if engine == "fast":
        return fast_win_odds(state, iterations=iterations, seed=seed, profiles=profiles,
                             centre=centre, averages=averages, warm=warm)
    if engine != "ledger":
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    known, odds = known_without_running(state, iterations)
    if known:
        return odds
    if profiles is None:
        profiles = profiles_for(state.balls, centre or CentreAverages(), averages)
    hidden = sorted(state.pile)  # what nobody can see, in an order that tells nothing
    start = _SimulationStart(state)
    rng = random.Random(seed)
    wins = dict.fromkeys(state.bowlers, 0.0)
    cents = dict.fromkeys(state.bowlers, 0.0)
    for _ in range(iterations):
        result = start.play_out(hidden, profiles, rng)
        winners = result["winners"]
        for bowler in winners:
            wins[bowler] += 1 / len(winners)
        for bowler, share in result["shares"].items():
            cents[bowler] += share
    return MatchOdds(state.match_id, state.seq, iterations, {
        bowler: BowlerOdds(wins[bowler] / iterations, cents[bowler] / iterations)
        for bowler in state.bowlers}, exact=False)


class _SimulationStart:
    """What every run of one state starts from: the match without its seed or undo point,
    and its bowling games rolled once (each run copies them instead of rolling every
    recorded ball again)."""

    def __init__(self, state: MatchState):
        base = state.clone()
        base.fairness = None      # dealt from the simulation's own random source, not the seed
        base.undo_point = None
        self.state = base
        self.games = {(bowler, number): rebuild_game(balls)
                      for bowler in base.bowlers
                      for number, balls in enumerate(base.balls[bowler], start=1)}

    def play_out(self, hidden: list[str], profiles: Mapping[str, BowlerProfile],
                 rng: random.Random) -> dict:
        """One run of the rest of the match: its showdown's ``{"winners", "shares"}``."""
        sim = self.state.clone()
        pile = list(hidden)
        rng.shuffle(pile)
        sim.pile = pile
        # The ledger's bowling games, kept between commands on this copy (play_on_copy);
        # the ball model reads the pins standing from the same games.
        kept: dict[int, tuple[list[dict], Game]] = {}
        lanes = []
        for seat, bowler in enumerate(sim.bowlers):
            if not sim.in_play(bowler):
                continue   # a bowler who left bowls no more balls in any run
            games = []
            for number, balls in enumerate(sim.balls[bowler], start=1):
                game = self.games[bowler, number].copy()
                kept[id(balls)] = (balls, game)
                games.append(game)
            lanes.append(_Lane(seat, bowler, games, profiles.get(bowler)
                               or CentreAverages().profile(bowler), rng))
        for _ in range(_MAX_STEPS):
            if sim.result is not None:
                return sim.result
            if sim.decisions:
                decision = next(iter(sim.decisions.values()))
                # Its deadline passes: the automatic choice, as the scheduler makes it.
                command: c.Command = c.ExpireDecision(decision_id=decision["id"],
                                                      actor="scheduler")
                now = parse_iso(decision["deadline"])
            elif sim.status == "playing":
                command, now = _next_ball(sim, lanes, rng), _SIM_NOW
            else:
                raise RuntimeError(f"match {sim.match_id}: simulation stuck at {sim.status}")
            play_on_copy(sim, command, rng=rng, now=now, games=kept)
        raise RuntimeError(f"match {sim.match_id}: simulation did not end")


class _Lane:
    """One bowler's place in a run: their games (the same objects the ledger rolls into),
    which of them is being bowled, and the form (``profile.for_game``) it is bowled with."""

    __slots__ = ("bowler", "form", "games", "index", "profile", "seat")

    def __init__(self, seat: int, bowler: str, games: list[Game], profile: BowlerProfile,
                 rng: random.Random):
        self.seat, self.bowler, self.games, self.profile = seat, bowler, games, profile
        self.index = 0
        while self.index < len(games) and games[self.index].is_complete:
            self.index += 1
        # The game in progress (or the next to start) draws its form when the run starts.
        self.form = profile.for_game(rng) if self.index < len(games) else None

    def game(self, rng: random.Random) -> Game | None:
        """The game the bowler's next ball belongs to; None when every game is done.  A
        game that starts draws its form."""
        moved = False
        while self.index < len(self.games) and self.games[self.index].is_complete:
            self.index += 1
            moved = True
        if self.index >= len(self.games):
            return None
        if moved:
            self.form = self.profile.for_game(rng)
        return self.games[self.index]


def play_out(state: MatchState, hidden: list[str], profiles: Mapping[str, BowlerProfile],
             rng: random.Random) -> dict:
    """One run of the rest of ``state``: its showdown's ``{"winners", "shares"}``."""
    return _SimulationStart(state).play_out(hidden, profiles, rng)


def _next_ball(sim: MatchState, lanes: list[_Lane], rng: random.Random) -> c.RecordBall:
    """The next ball: the bowler furthest behind (game, then frame) bowls, seat order
    breaking ties, as bowlers on a lane take turns frame by frame."""
    best = best_key = None
    for lane in lanes:
        game = lane.game(rng)
        if game is None:
            continue
        key = (lane.index, game.current_frame, lane.seat)
        if best_key is None or key < best_key:
            best, best_key = lane, key
    if best is None:
        raise RuntimeError(f"match {sim.match_id}: no ball left to bowl but no result")
    game = best.games[best.index]
    standing = game.standing_pins
    if standing is None:  # a count-only feed said how many pins stood, not which
        standing = invent_leave(game.standing_count, rng)
    pins, leave, foul, gutter = best.form.ball(frozenset(standing), rng)
    return c.RecordBall(best.bowler, None, pins, standing=leave, foul=foul, gutter=gutter,
                        actor=_SIM_FEED)


__all__ = ["ENGINES", "LIVE", "BowlerOdds", "MatchOdds", "play_out", "win_odds"]
