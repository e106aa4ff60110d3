"""Play a league match through the real ledger: simulated bowlers (drivers.simulator's ball
model) bowl every frame, each decision is made as a bowler at the kiosk would make it, and
the commissioner confirms the result.  Works on a bare ``handle`` loop (:class:`LedgerTable`)
or through an :class:`~alley_poker.service.AlleyService` (anything with ``execute``/``state``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

from alley_poker.bowling import Game
from alley_poker.ledger import MatchState, event_to_record, handle
from alley_poker.ledger import commands as c
from alley_poker.odds.ball_model import BowlerProfile
from drivers.simulator import bowl_ball

DESK = "commissioner:pat"
FEED = "feed:lane-1"


class LedgerTable:
    """Matches in memory, each command through ``handle`` with a clock that moves on; the
    records in log order across matches (as the store's ``events_since`` reads them)."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.now = datetime(2026, 11, 24, 19, 0, tzinfo=UTC)
        self.states: dict[str, MatchState] = {}
        self.records: list[dict] = []

    def execute(self, match_id: str, command: c.Command) -> list:
        state = self.states.setdefault(match_id, MatchState.empty(match_id))
        self.now += timedelta(seconds=7)
        events = handle(state, command, rng=self.rng, now=self.now)
        for event in events:
            state.apply(event)
            self.records.append(event_to_record(event))
        return events

    def state(self, match_id: str) -> MatchState:
        return self.states[match_id]


Execute = Callable[[str, c.Command], object]
StateOf = Callable[[str], MatchState]


def create_league_match(execute: Execute, match_id: str, people: Mapping[str, int], *,
                        night: str = "2026-11-24", league_id: str = "tue", games: int = 1,
                        handicaps: Mapping[str, int] | None = None,
                        rules: dict | None = None, start: bool = True,
                        ante_cents: int | None = None, test_mode: bool = False) -> None:
    league = {"league_id": league_id, "night_id": f"{league_id}-{night}",
              "night_date": night, "people": dict(people)}
    execute(match_id, c.CreateMatch(match_id, list(people), games=games, rules=rules,
                                    ante_cents=ante_cents, test_mode=test_mode,
                                    actor=DESK, league=league,
                                    handicaps=dict(handicaps) if handicaps else None))
    if start:
        for name in people:
            execute(match_id, c.ConsentToAnte(name, actor=f"bowler:{name}"))
        execute(match_id, c.StartMatch(actor=DESK))


def decline_the_end(execute: Execute, state_of: StateOf, match_id: str) -> None:
    """Every open end-of-match choice (the lowest-score draw, a buy) declined by its bowler."""
    while decisions := state_of(match_id).decisions:
        decision = next(iter(decisions.values()))
        answer = {"end_draw": c.DecideEndDraw, "buy": c.DecideBuy}[decision["kind"]]
        execute(match_id, answer(decision["bowler"], False, decision_id=decision["id"],
                                 actor=f"bowler:{decision['bowler']}"))


def decide_all(execute: Execute, state_of: StateOf, match_id: str, rng: random.Random) -> None:
    """Make every open decision as the bowler would (a random legal choice)."""
    while True:
        state = state_of(match_id)
        if not state.decisions:
            return
        decision = next(iter(state.decisions.values()))
        bowler, kind, actor = decision["bowler"], decision["kind"], f"bowler:{decision['bowler']}"
        if kind == "lose_card":
            card = rng.choice([state.display_card(x) for x in state.hands[bowler]])
            execute(match_id, c.DecideLoseCard(bowler, card, actor=actor))
        elif kind == "steal":
            victims = {b: h for b, h in state.hands.items() if b != bowler and h}
            victim = rng.choice(sorted(victims))
            card = state.display_card(rng.choice(victims[victim]))
            execute(match_id, c.DecideSteal(bowler, victim, card, actor=actor))
        elif kind == "end_draw":
            execute(match_id, c.DecideEndDraw(bowler, rng.random() < 0.8, actor=actor))
        else:
            execute(match_id, c.DecideBuy(bowler, rng.random() < 0.3, actor=actor))


def bowl_match(execute: Execute, state_of: StateOf, match_id: str, rng: random.Random, *,
               averages: Mapping[str, int] | None = None, confirm: bool = True) -> None:
    """Bowl every game of the match frame by frame, then (``confirm``) settle it."""
    state = state_of(match_id)
    bowlers = list(state.bowlers)
    profiles = {b: BowlerProfile.for_average(b, (averages or {}).get(b, 160))
                for b in bowlers}
    for _game in range(state.games):
        games = {b: Game() for b in bowlers}
        while not all(g.is_complete for g in games.values()):
            for bowler in bowlers:
                game = games[bowler]
                frame = game.current_frame
                while not game.is_complete and game.current_frame == frame:
                    ball = bowl_ball(profiles[bowler], game, rng)
                    leave = None if ball.standing is None else sorted(ball.standing)
                    execute(match_id, c.RecordBall(
                        bowler, None, ball.pins, standing=leave,
                        foul=ball.foul, gutter=ball.gutter, split=ball.split, actor=FEED))
                    decide_all(execute, state_of, match_id, rng)
    decide_all(execute, state_of, match_id, rng)
    if confirm and state_of(match_id).status == "ending":
        execute(match_id, c.CommissionerConfirmResult(actor=DESK))
