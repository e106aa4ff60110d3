"""The fast odds engine's own promises: it bowls only through the model's two calls, its
warm runs are reused exactly where nothing changed (and agree with cold ones), the end of a
match is counted exactly, and the service publishes that at once as settled."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from alley_poker.ledger import commands as c
from alley_poker.odds import BowlerProfile, WarmRuns, win_odds
from alley_poker.odds.fast import fast_win_odds
from alley_poker.service.bus import InProcessBus
from alley_poker.service.live_odds import LiveOdds
from benchmarks._practice_match import PracticeMatch
from tests.odds.test_fast_engine_differential import compare


@dataclass(frozen=True)
class CountingProfile:
    """A model that counts the calls a simulation makes to it (and bowls as ``inner``)."""

    inner: BowlerProfile
    calls: list

    def for_game(self, rng):
        self.calls.append("for_game")
        return self

    def ball(self, standing, rng):
        self.calls.append("ball")
        return self.inner.ball(standing, rng)


@pytest.mark.parametrize("engine", ["fast", "ledger"])
def test_a_run_draws_a_form_for_the_game_in_progress_and_each_game_to_come(engine):
    match = PracticeMatch(("Ann", "Bob"), games=3, seed=8)
    while min(match.state.current_game(b) for b in match.state.bowlers) < 2:
        match.step()
    state = match.state
    assert {state.current_game(b) for b in state.bowlers} == {2}
    calls: list = []
    profiles = {b: CountingProfile(BowlerProfile.for_average(b, 170), calls)
                for b in state.bowlers}
    win_odds(state, iterations=5, seed=1, profiles=profiles, engine=engine)
    # Every run: two bowlers, each the game in progress and the third game.
    assert calls.count("for_game") == 5 * 2 * 2
    assert calls.count("ball") > 5 * 2 * 20


def test_after_a_ball_only_the_bowler_who_bowled_is_bowled_again():
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=6).play(10)
    warm = WarmRuns()
    win_odds(match.state, iterations=300, seed=1, warm=warm)
    assert (warm.reused_seats, warm.bowled_seats) == (0, 900)
    match.play(11)
    win_odds(match.state, iterations=300, seed=2, warm=warm)
    assert (warm.reused_seats, warm.bowled_seats) == (600, 1200)


def test_after_a_decision_nobody_is_bowled_again():
    match = PracticeMatch(("Ann", "Bob"), seed=2)
    while not match.state.decisions:
        match.step()
    warm = WarmRuns()
    win_odds(match.state, iterations=200, seed=1, warm=warm)
    match.step()  # the decision expires; no ball
    assert not match.state.decisions and match.state.status == "playing"
    win_odds(match.state, iterations=200, seed=2, warm=warm)
    assert warm.reused_seats == 400 and warm.bowled_seats == 400


def test_warm_odds_agree_with_cold_ones():
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=12,
                          averages={"Ann": 140, "Bob": 190, "Cy": 160}).play(14)
    warm = WarmRuns()
    win_odds(match.state, iterations=3000, seed=1, warm=warm)
    match.play(15)
    warmed = win_odds(match.state, iterations=3000, seed=2, warm=warm)
    cold = win_odds(match.state, iterations=3000, seed=3)
    assert warm.reused_seats == 6000
    for name in match.state.bowlers:
        a, b = warmed.bowlers[name].win, cold.bowlers[name].win
        spread = (max((a + b) / 2 * (1 - (a + b) / 2), 0.01) * 2 / 3000) ** 0.5
        assert abs(a - b) < 5 * spread, (name, a, b)


def test_the_end_of_a_match_is_counted_exactly_and_agrees_with_the_ledger():
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=3)
    while match.state.status == "playing":
        match.step()
    state = match.state
    assert any(d["kind"] == "end_draw" for d in state.decisions.values())
    exact = win_odds(state, iterations=10, seed=1)
    assert exact.enumerated and not exact.exact
    assert abs(sum(b.win for b in exact.bowlers.values()) - 1) < 1e-9
    assert win_odds(state, iterations=10, seed=99).bowlers == exact.bowlers  # no chance left
    assert compare(0, state, 10, 600).p_value > 1e-4


def test_enumerated_odds_are_published_settled_at_once():
    match = PracticeMatch(("Ann", "Bob"), seed=3)
    while match.state.status == "playing":
        match.step()
    bus, seen = InProcessBus(), []
    bus.subscribe(lambda topic, message: seen.append(message["odds"]))
    odds = LiveOdds(bus, iterations=400, first_iterations=40, processes=0)
    try:
        odds.request("m1", match.state.clone())
        assert odds.wait_idle(30)
    finally:
        odds.stop()
    assert len(seen) == 1 and seen[0]["settled"] and not seen[0]["exact"]
    assert seen[0]["seq"] == match.state.seq


def test_a_count_only_feed_is_played_on():
    # The scorer said how many pins fell, not which: the next ball's pins are invented.
    match = PracticeMatch(("Ann", "Bob"), seed=4)
    match.do(c.RecordBall("Ann", None, 7, actor="feed:lane-1"))
    assert match.state.balls["Ann"][0][-1]["standing"] is None
    for engine in ("fast", "ledger"):
        odds = win_odds(match.state, iterations=50, seed=random.Random(1).randint(0, 99),
                        engine=engine)
        assert abs(sum(b.win for b in odds.bowlers.values()) - 1) < 1e-9


@pytest.mark.parametrize("options", [(True, False), (False, False), (True, True),
                                     (False, True)])
def test_the_fast_judge_values_hands_as_the_evaluator_does(options):
    from alley_poker.cards import Card, parse_card
    from alley_poker.hands import evaluate
    from alley_poker.ledger.values import automatic_loss
    from alley_poker.odds.compact import CARD_TEXT, JOKER_A, JOKER_B, HandJudge

    wild, capped = options
    judge = HandJudge(wild_may_duplicate=wild, max_wilds_vs_naturals=capped, morgan=True)
    rng = random.Random(hash(options) % 1000)
    for _ in range(3000):
        hand = rng.sample(range(54), rng.choice((0, 1, 2, 4, 5, 5, 6, 7, 9, 12, 17)))
        good = rng.choice((JOKER_A, JOKER_B))
        cards = [parse_card(CARD_TEXT[card]) if card < JOKER_A
                 else Card.joker_with_power("good" if card == good else "bad")
                 for card in hand]
        want = evaluate(cards, wild_may_duplicate=wild, max_wilds_vs_naturals=capped).key
        assert judge.key(hand, good) == want, [CARD_TEXT[card] for card in hand]
    # The automatic card loss, against the ledger's own on a real match's hands.
    match = PracticeMatch(("Ann", "Bob", "Cy"), seed=9,
                          rules={"wild_may_duplicate": wild, "max_wilds_vs_naturals": capped})
    match.play(40)
    state = match.state
    good = JOKER_A if state.powers["JOKER-A"] == "good" else JOKER_B
    from alley_poker.odds.compact import CARD_ID
    for bowler in state.bowlers:
        if state.hands[bowler]:
            ids = [CARD_ID[card] for card in state.hands[bowler]]
            assert CARD_TEXT[judge.automatic_loss(ids, good)] == automatic_loss(state, bowler)


def test_the_kept_runs_stay_within_their_byte_budget_and_the_count_adds_up():
    # A pool process at 100 lanes sees dozens of long matches: what it keeps is bounded by
    # bytes, and what it counts is what it holds.
    warm = WarmRuns(budget=500_000)  # two of these matches' 600 runs (≈ 220 KB each)
    matches = [PracticeMatch(("Ann", "Bob", "Cy", "Di"), games=3, seed=seed,
                             match_id=f"m{seed}").play(10) for seed in range(4)]

    def counted():
        return sum(warm._size(e.runs) + warm._size(e.source) for e in warm._by_match.values())

    for match in matches:
        fast_win_odds(match.state, iterations=600, seed=1, warm=warm)
        assert warm.kept_bytes <= warm.budget
        assert warm.kept_bytes == counted()
    held = [entry for entry in warm._by_match.values() if entry.kept]
    assert 0 < len(held) < len(matches)          # not all fit
    # A round-robin of balls over the matches (a busy centre): the matches whose runs were
    # kept stay warm, rather than each dropping the next one's (every state cold).
    for round_ in range(2):
        before = warm.reused_seats
        for match in matches:
            match.play(11 + round_)
            fast_win_odds(match.state, iterations=600, seed=2 + round_, warm=warm)
            assert warm.kept_bytes <= warm.budget and warm.kept_bytes == counted()
        assert warm.reused_seats - before >= 600 * 3  # at least one match's other seats
    # A match no new state comes for while the others have theirs gives way to them.
    quiet, *busy = matches
    for round_ in range(len(matches) + 1):
        for match in busy:
            match.play(13 + round_)
            fast_win_odds(match.state, iterations=600, seed=9 + round_, warm=warm)
    assert quiet.state.match_id not in {
        match_id for match_id, e in warm._by_match.items() if e.kept or any(e.source)}
    warm.forget(busy[0].state.match_id)
    assert warm.kept_bytes == counted()
