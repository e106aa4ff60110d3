"""Practice matches for the odds' tests and benchmark: every command goes through the ledger's
``handle``, balls come from the ball model, decisions take the automatic choice at their
deadline.

>>> match = PracticeMatch(("Ann", "Bob"), seed=2).play(6)
>>> match.state.balls_recorded, match.state.status
(6, 'playing')
>>> match.finish().state.result is not None
True
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from alley_poker.fairness.deal import SeededDeal
from alley_poker.ledger import MatchState, handle
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import parse_iso
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.odds.ball_model import BowlerProfile, bowl_ball

START = datetime(2026, 2, 6, 19, 0, tzinfo=UTC)


def expire_first_decision(match) -> None:
    """The first open decision of ``match.state`` expired at its deadline, as the scheduler
    does (``match.do`` runs the command at that time)."""
    decision = next(iter(match.state.decisions.values()))
    match.do(c.ExpireDecision(decision_id=decision["id"], actor="scheduler"),
             parse_iso(decision["deadline"]))


def next_bowler(state: MatchState) -> str:
    """Who bowls next: of the bowlers with a game left, the one furthest behind (the lowest
    game, then the fewest balls in it), in the match's order on a tie."""
    return min((b for b in state.bowlers if state.current_game(b) <= state.games),
               key=lambda b: (state.current_game(b), len(
                   state.balls[b][state.current_game(b) - 1]), state.bowlers.index(b)))


class PracticeMatch:
    """A match in memory; ``source`` deals its cards (a seeded Random, or a fair seed)."""

    def __init__(self, bowlers=("Ann", "Bob", "Cy"), *, games=1, rules=None, seed=0,
                 fair=False, averages=None, match_id="m1"):
        self.rng = random.Random(seed)
        self.source = SeededDeal(bytes([seed % 256]) * 32) if fair else self.rng
        self.now = START
        self.state = MatchState.empty(match_id)
        self.profiles = {b: BowlerProfile.for_average(b, (averages or {}).get(b, 160))
                         for b in bowlers}
        # Each game's form, drawn when it starts (the games are rebuilt for every ball, so
        # the ball model could not keep it with the game).
        self.in_game: dict[tuple[str, int], BowlerProfile] = {}
        self.do(c.CreateMatch(match_id, list(bowlers), games, None, rules, actor="desk:pat"))
        for bowler in bowlers:
            self.do(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        self.do(c.StartMatch(actor="desk:pat"))

    def do(self, command, now=None):
        self.now = max(self.now + timedelta(seconds=1), now or self.now)
        for event in handle(self.state, command, rng=self.source, now=self.now):
            self.state.apply(event)

    def step(self) -> bool:
        """One ball or one expiry; False once the match has its result."""
        state = self.state
        if state.result is not None:
            return False
        if state.decisions:
            expire_first_decision(self)
            return True
        bowler = next_bowler(state)
        number = state.current_game(bowler)
        game = rebuild_game(state.balls[bowler][number - 1])
        if (bowler, number) not in self.in_game:
            self.in_game[bowler, number] = self.profiles[bowler].for_game(self.rng)
        ball = bowl_ball(self.in_game[bowler, number], game, self.rng)
        self.do(c.RecordBall(bowler, None, ball.pins, standing=sorted(ball.standing),
                             foul=ball.foul, gutter=ball.gutter, actor="feed:lane-3"))
        return True

    def play(self, balls: int) -> PracticeMatch:
        """Play on until ``balls`` balls are recorded (or the match has its result)."""
        while self.state.balls_recorded < balls and self.step():
            pass
        return self

    def finish(self) -> PracticeMatch:
        while self.step():
            pass
        return self
