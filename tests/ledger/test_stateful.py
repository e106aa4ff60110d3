"""Property-based: random command sequences (hypothesis stateful testing) never break the
invariants, refused commands leave the state exactly as it was, and replaying the log (through
its JSON records) always rebuilds the same state."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from alley_poker.cards import FULL_DECK
from alley_poker.ledger import (
    CommandRefused,
    MatchState,
    check_invariants,
    handle,
)
from alley_poker.ledger import commands as c
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.state import core_to_json
from tests.ledger.helpers import DESK, FEED, START, replayed_from_records

NAMES = ["Ann", "Bob", "Cy", "Dee"]
CARDS = [str(card) for card in FULL_DECK] + ["GJ", "BJ"]
seat = st.integers(0, 3)


class LedgerMachine(RuleBasedStateMachine):
    @initialize(
        bowlers=st.integers(2, 4),
        games=st.integers(1, 2),
        seed=st.integers(0, 2**32),
        strike_cards=st.integers(1, 8),
        streak_cap=st.integers(1, 9),
        guess_allowed=st.booleans(),
        empty_pile=st.sampled_from(["courtesy_shuffle", "skip"]),
        gutter_detection=st.sampled_from(["flag_or_full_rack", "flag_only", "full_rack"]),
        spans=st.booleans(),
    )
    def create(self, bowlers, games, seed, strike_cards, streak_cap, guess_allowed, empty_pile,
               gutter_detection, spans):
        self.rng = random.Random(seed)
        self.now = START
        self.state = MatchState.empty("prop")
        self.events = []
        self.names = NAMES[:bowlers]
        rules = {"strike_cards": strike_cards, "streak_cap": streak_cap,
                 "guess_allowed": guess_allowed, "empty_pile": empty_pile,
                 "gutter_detection": gutter_detection, "streak_spans_games": spans,
                 "lose_card_deadline_s": 30, "steal_deadline_s": 30,
                 "end_draw_deadline_s": 30, "buy_deadline_s": 30}
        self.run(c.CreateMatch("prop", self.names, games, None, rules, True, actor=DESK))
        for name in self.names:
            self.run(c.ConsentToAnte(name, actor=f"bowler:{name}"))
        self.run(c.StartMatch(actor=DESK))

    def run(self, command) -> bool:
        """Handle a command; refused commands must leave the state exactly as it was."""
        before = self.state.snapshot()
        self.now += timedelta(seconds=5)
        try:
            events = handle(self.state, command, rng=self.rng, now=self.now)
        except CommandRefused:
            assert self.state.snapshot() == before
            return False
        assert self.state.snapshot() == before, "handle changed its input"
        for event in events:
            self.state.apply(event)
        self.events.extend(events)
        return True

    def name(self, index: int) -> str:
        return self.names[index % len(self.names)]

    # --- play -----------------------------------------------------------------------------
    @rule(who=seat, pins=st.integers(0, 10), gutter=st.sampled_from([None, True, False]),
          foul=st.booleans(), split=st.sampled_from([None, True, False]))
    def ball_that_fits(self, who, pins, gutter, foul, split):
        bowler = self.name(who)
        state = self.state
        game = state.current_game(bowler)
        if state.status == "playing" and game <= state.games:
            standing = rebuild_game(state.balls[bowler][game - 1]).standing_count
            pins = min(pins, standing)
            if pins:
                gutter = None if gutter else gutter
        self.run(c.RecordBall(bowler, None, pins, foul=foul and pins < 3, gutter=gutter,
                              split=split, actor=FEED))

    def fitting_ball(self, bowler: str, pins: int) -> None:
        state = self.state
        game = state.current_game(bowler)
        if state.status == "playing" and game <= state.games:
            pins = min(pins, rebuild_game(state.balls[bowler][game - 1]).standing_count)
            self.run(c.RecordBall(bowler, None, pins, actor=FEED))

    @rule(who=seat, pins=st.lists(st.integers(0, 10), min_size=1, max_size=24))
    def several_balls(self, who, pins):
        for count in pins:
            self.fitting_ball(self.name(who), count)

    @rule(pins=st.lists(st.integers(0, 10), min_size=1, max_size=8))
    def everyone_finishes(self, pins):
        """Every bowler bowls out the match (cycling through ``pins``)."""
        for turn in range(200):
            if self.state.status != "playing":
                break
            for bowler in self.names:
                self.fitting_ball(bowler, pins[turn % len(pins)])

    @rule(who=seat, pins=st.integers(0, 10))
    def desk_ball(self, who, pins):
        """A ball entered at the desk (manual entry): one the desk may undo."""
        bowler = self.name(who)
        state = self.state
        game = state.current_game(bowler)
        if state.status == "playing" and game <= state.games:
            pins = min(pins, rebuild_game(state.balls[bowler][game - 1]).standing_count)
        self.run(c.RecordBall(bowler, None, pins, actor=DESK))

    @rule(who=seat, pins=st.integers(-1, 12), game=st.integers(0, 3))
    def any_ball(self, who, pins, game):
        self.run(c.RecordBall(self.name(who), game, pins, actor=FEED))

    @rule(who=seat, strikes=st.integers(1, 4))
    def strikes(self, who, strikes):
        for _ in range(strikes):
            self.run(c.RecordBall(self.name(who), None, 10, actor=FEED))

    @rule(cards=st.lists(st.sampled_from(CARDS), max_size=4))
    def stack(self, cards):
        self.run(c.StackPile(cards, actor=DESK))

    # --- decisions ------------------------------------------------------------------------
    @rule(who=seat, pick=st.integers(0, 60), anyone=st.booleans())
    def lose_card(self, who, pick, anyone):
        bowler = self.name(who)
        hand = self.state.hands.get(bowler, [])
        card = (self.state.display_card(hand[pick % len(hand)]) if hand and not anyone
                else CARDS[pick % len(CARDS)])
        self.run(c.DecideLoseCard(bowler, card, actor=f"bowler:{bowler}"))

    @rule(who=seat, side=st.sampled_from(["left", "right"]),
          outcome=st.sampled_from(["left", "right", None]))
    def guess(self, who, side, outcome):
        bowler = self.name(who)
        self.run(c.DecideGuess(bowler, side, actor=f"bowler:{bowler}"))
        if outcome:
            self.run(c.RecordGuessOutcome(bowler, outcome, actor=DESK))

    @rule(who=seat)
    def void_guess(self, who):
        self.run(c.CommissionerVoidGuess(self.name(who), actor=DESK))

    @rule(who=seat, victim=seat, pick=st.integers(0, 60))
    def steal(self, who, victim, pick):
        bowler, other = self.name(who), self.name(victim)
        hand = self.state.hands.get(other, [])
        card = self.state.display_card(hand[pick % len(hand)]) if hand else "AS"
        self.run(c.DecideSteal(bowler, other, card, actor=f"bowler:{bowler}"))

    @rule(who=seat, accept=st.booleans(), buy=st.booleans())
    def end_choice(self, who, accept, buy):
        bowler = self.name(who)
        kind = c.DecideBuy if buy else c.DecideEndDraw
        self.run(kind(bowler, accept, actor=f"bowler:{bowler}"))

    @rule(who=seat)
    def expire(self, who):
        self.now += timedelta(seconds=31)
        self.run(c.ExpireDecision(self.name(who)))

    # --- the desk -------------------------------------------------------------------------
    @rule(who=seat)
    def holland_daze(self, who):
        self.run(c.HollandDaze(self.name(who), "wrong lane", actor=DESK))

    @rule(who=seat, pick=st.integers(0, 40), pins=st.integers(0, 10))
    def correct(self, who, pick, pins):
        bowler = self.name(who)
        games = self.state.balls.get(bowler, [])
        recorded = [(g + 1, b) for g, balls in enumerate(games) for b in balls]
        if recorded:
            game, ball = recorded[pick % len(recorded)]
            self.run(c.CorrectBall(bowler, game, ball["frame"], ball["ball"], pins, actor=FEED))

    @rule(apply=st.booleans())
    def review(self, apply):
        for review_id in list(self.state.reviews)[:1]:
            kind = c.CommissionerApplyReview if apply else c.CommissionerDismissReview
            self.run(kind(review_id, actor=DESK))

    @rule(who=st.sampled_from(["Eve", "Ann", "Bob"]), add=st.booleans())
    def seat_change(self, who, add):
        if add:
            if self.run(c.CommissionerAddBowler(who, "late", actor=DESK)):
                self.names.append(who)
        elif self.run(c.CommissionerRemoveBowler(who, "went home", actor=DESK)):
            self.names.remove(who)

    @rule()
    def undo(self):
        """An undo takes back only the last desk action: with nothing after it, the state is
        exactly as before it; every ball recorded since is still recorded, in its place."""
        wanted = self.state.restorable()
        point = self.state.undo_point
        balls = _ball_places(self.state)
        if self.run(c.CommissionerUndoLastAction("test", actor=DESK)):
            if not point["later"]:
                assert core_to_json(self.state._core_copy()) == core_to_json(wanted)
            undone = {(e.data["bowler"], e.data["game"], e.data["frame"], e.data["ball"])
                      for e in point["own"] if e.type == "ball_recorded"}
            assert _ball_places(self.state) == balls - undone

    @rule(undo=st.booleans())
    def confirm(self, undo):
        self.run(c.CommissionerConfirmResult(actor=DESK))
        if undo:
            self.run(c.CommissionerUndoResult(actor=DESK))

    # --- what must always hold ---------------------------------------------------------------
    @invariant()
    def invariants_hold(self):
        if hasattr(self, "state"):
            check_invariants(self.state)

    @invariant()
    def replay_rebuilds_the_same_state(self):
        if hasattr(self, "state"):
            rebuilt = replayed_from_records("prop", self.events)
            assert rebuilt.snapshot() == self.state.snapshot()
            mine, theirs = self.state.restorable(), rebuilt.restorable()
            assert (mine is None) == (theirs is None)
            if mine is not None:
                assert core_to_json(mine) == core_to_json(theirs)


def _ball_places(state):
    return {(bowler, game + 1, ball["frame"], ball["ball"], ball["pins"])[:4]
            for bowler, games in state.balls.items()
            for game, balls in enumerate(games) for ball in balls}


TestLedgerMachine = LedgerMachine.TestCase
TestLedgerMachine.settings = settings(
    max_examples=20, stateful_step_count=50, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.slow
def test_ledger_machine_long_runs():
    run_state_machine_as_test(LedgerMachine, settings=settings(
        max_examples=60, stateful_step_count=100, deadline=None,
        suppress_health_check=list(HealthCheck)))


def test_regression_review_take_back_of_a_card_dealt_twice():
    """Found by the machine: a card dealt, lost and dealt again in one game was named twice in
    a review's take-back, and applying the review then failed."""
    machine = LedgerMachine()
    machine.create(bowlers=3, strike_cards=5, guess_allowed=False, seed=1, streak_cap=5,
                   spans=False, gutter_detection="flag_or_full_rack",
                   empty_pile="courtesy_shuffle", games=1)
    machine.strikes(strikes=3, who=0)
    machine.everyone_finishes(pins=[9])
    machine.correct(pick=35, pins=0, who=1)
    (review,) = machine.state.reviews.values()
    assert len(review["remedy"]["take_back"]) == len(set(review["remedy"]["take_back"]))
    machine.review(apply=True)
    assert machine.state.reviews == {}
    machine.invariants_hold()
    machine.replay_rebuilds_the_same_state()
