"""Recorded match states for the differential test of the fast odds engine.

Matches are played through the ledger's own ``handle`` by a deterministic driver (seeded),
under rule books chosen to make every rule the odds play happen: jokers drawn, lost and
re-armed (Freaky Friday), bowlers in the hole, split pickups stolen from, the pile emptied so
that draws become courtesy draws (or are skipped), buys taken, the lowest-score draws (scratch
and handicapped), multi-game matches (streaks across games), the house's evaluator options.
Unlike the scheduler, the driver's "bowlers" sometimes answer their own decisions (a card of
their choice, a steal, a buy), so the states carry what only people do.  From every match a
few states are kept: early, middle, late, and the end of the match while its decisions are
open.  Each is tagged with what it holds and what happened before it.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from functools import cache

from alley_poker.ledger import MatchState, handle
from alley_poker.ledger import commands as c
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.odds.ball_model import BowlerProfile, bowl_ball
from benchmarks._practice_match import expire_first_decision, next_bowler

START = datetime(2026, 2, 6, 19, 0, tzinfo=UTC)
NAMES = ("Ann", "Bob", "Cy", "Di", "Ed")

#: Rule books the matches cycle through (overrides of the house book).
RULE_BOOKS: tuple[dict, ...] = (
    {},
    {"strike_cards": 5, "spare_cards": 3},                       # the pile runs dry
    {"strike_cards": 5, "spare_cards": 3, "empty_pile": "skip"},
    {"lowest_score_draw_by": "handicap", "streak_spans_games": True},
    {"gutter_detection": "full_rack", "streak_cap": 5},
    {"gutter_detection": "flag_only", "first_strike_bonus": 0, "freaky_friday": False},
    {"morgan_maneuver": False, "odd_cents": "house", "lowest_score_draw": False},
    {"wild_may_duplicate": False, "max_wilds_vs_naturals": True, "buy_in": False},
    {"split_steal": False, "first_strike_bonus": 2, "spare_cards": 2},
)


class _Driver:
    """One match played through ``handle``: balls from the ball model, decisions answered by
    the bowler now and then, else expired at their deadline."""

    def __init__(self, seed: int):
        rng = self.rng = random.Random(seed)
        self.rules = RULE_BOOKS[seed % len(RULE_BOOKS)]
        bowlers = NAMES[:2 + seed % 4]
        self.games = 1 + (seed // 4) % 3 if seed % 3 else 1
        weak = seed % 5 == 0  # weak bowlers fall into the hole
        self.profiles = {b: BowlerProfile.for_average(b, rng.randint(100, 125) if weak
                                                      else rng.randint(110, 230))
                         for b in bowlers}
        handicaps = {b: rng.randint(0, 60) for b in bowlers}
        self.now = START
        self.state = MatchState.empty("m1")
        self.seen: set[str] = set()
        self.do(c.CreateMatch("m1", list(bowlers), self.games, None, self.rules,
                              actor="desk:pat", handicaps=handicaps))
        for bowler in bowlers:
            self.do(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        self.do(c.StartMatch(actor="desk:pat"))

    def do(self, command, now=None) -> None:
        self.now = max(self.now + timedelta(seconds=1), now or self.now)
        for event in handle(self.state, command, rng=self.rng, now=self.now):
            self.state.apply(event)
            kind = event.type
            if kind == "card_taken":
                kind = f"taken_by_{event.data['via']}"
            self.seen.add(kind)

    def step(self) -> bool:
        """One ball or one decision; False once the match has its result."""
        state, rng = self.state, self.rng
        if state.result is not None:
            return False
        if state.decisions:
            decision = next(iter(state.decisions.values()))
            bowler, kind = decision["bowler"], decision["kind"]
            actor = f"bowler:{bowler}"
            if rng.random() < 0.4:
                if kind == "lose_card" and state.hands[bowler]:
                    card = state.display_card(rng.choice(state.hands[bowler]))
                    return self._do(c.DecideLoseCard(bowler, card, actor=actor))
                if kind == "steal":
                    victim = rng.choice(sorted(decision["choices"]))
                    if state.hands.get(victim):
                        card = state.display_card(rng.choice(state.hands[victim]))
                        return self._do(c.DecideSteal(bowler, victim, card, actor=actor))
                if kind == "buy" and state.pile:
                    return self._do(c.DecideBuy(bowler, True, actor=actor))
                if kind == "end_draw":
                    return self._do(c.DecideEndDraw(bowler, rng.random() < 0.5, actor=actor))
            expire_first_decision(self)
            return True
        bowler = next_bowler(state)
        game = rebuild_game(state.balls[bowler][state.current_game(bowler) - 1])
        ball = bowl_ball(self.profiles[bowler], game, rng)
        self.do(c.RecordBall(bowler, None, ball.pins, standing=sorted(ball.standing),
                             foul=ball.foul, gutter=ball.gutter, actor="feed:lane-3"))
        return True

    def _do(self, command) -> bool:
        self.do(command)
        return True


def tags(state: MatchState, seen: set[str], games: int) -> dict:
    """What a recorded state holds, and what happened in its match before it."""
    return {
        "stage": state.status,
        "joker_held": any(card.startswith("JOKER") for hand in state.hands.values()
                          for card in hand),
        "joker_armed": bool(state.armed),
        "jokers_swapped": "jokers_swapped" in seen,
        "in_the_hole": any(hole < 0 for hole in state.hole.values()),
        "steal": "taken_by_steal" in seen,
        "courtesy": "taken_by_courtesy" in seen or "draw_skipped" in seen,
        "buy": "buy_paid" in seen,
        "buy_open": any(d["kind"] == "buy" for d in state.decisions.values()),
        "end_draw": any(d["kind"] == "end_draw" for d in state.decisions.values()),
        "decision_open": bool(state.decisions),
        "multi_game": games > 1,
    }


@cache
def match_states(seed: int) -> tuple[tuple[MatchState, dict], ...]:
    """The states kept from match ``seed``: after about a sixth, half and five sixths of its
    balls, the first moment of its end with decisions open, the first with buys offered, and
    the first after a buy while decisions are still open."""
    driver = _Driver(seed)
    expected = len(driver.state.bowlers) * driver.games * 17
    stops = {expected // 6, expected // 2, 5 * expected // 6}
    kept = []
    moments: set[str] = set()
    while driver.step():
        state = driver.state
        if state.result is not None:
            break
        moment = None
        if state.balls_recorded in stops and state.status == "playing":
            stops.discard(state.balls_recorded)
            moment = "balls"
        elif state.status == "ending" and state.decisions:
            kinds = {d["kind"] for d in state.decisions.values()}
            moment = ("after_buy" if "buy_paid" in driver.seen
                      else "buys" if "buy" in kinds else "ending")
            if moment in moments:
                moment = None
        if moment is not None:
            moments.add(moment)
            kept.append((state.clone(), tags(state, driver.seen, driver.games)))
    return tuple(kept)


def recorded_states(matches: int) -> list[tuple[MatchState, dict]]:
    """Every state kept from the first ``matches`` matches (about four a match)."""
    return [entry for seed in range(matches) for entry in match_states(seed)]


#: Rules few states show: the quick tier's subsets hold a state of each.
RARE_TAGS = ("steal", "in_the_hole", "buy", "buy_open", "joker_armed", "jokers_swapped",
             "courtesy", "end_draw")


def covering_states(matches: int, count: int) -> list[tuple[MatchState, dict]]:
    """``count`` of the first ``matches`` matches' states, spread over them, with at least
    one of each of ``RARE_TAGS``: the quick tier's stand-in for all of them."""
    states = recorded_states(matches)
    chosen = {index: None for index in range(0, len(states), len(states) // 5)}
    for tag in RARE_TAGS:
        with_tag = [index for index, (_state, tags) in enumerate(states) if tags[tag]]
        for index in with_tag[:1]:
            chosen[index] = None
    return [states[index] for index in sorted(chosen)][:count]

