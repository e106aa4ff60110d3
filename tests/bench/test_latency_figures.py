"""What the latency benchmark counts for a ball's odds: the first odds at the pair's last
kiosk that include the ball, and whether the ball's own odds (before the next ball) came."""

from __future__ import annotations

from benchmarks._kiosk_clients import Arrivals
from benchmarks._latency_figures import Written, ball_figures, odds_figures

PAIR = "1-2"
FIRST, SECOND = ("m", "Ann", 1, 1, 1), ("m", "Bob", 1, 1, 1)


def book(odds_at_each_kiosk: list[tuple[float, int, int]]) -> Arrivals:
    arrivals = Arrivals()
    for kiosk, delay in ((0, 0.001), (1, 0.002)):
        arrivals.times[FIRST] = {**arrivals.times.get(FIRST, {}), kiosk: 10.0 + delay}
        arrivals.times[SECOND] = {**arrivals.times.get(SECOND, {}), kiosk: 10.5 + delay}
        arrivals.odds[(kiosk, "m")] = [(at + delay, seq, its)
                                       for at, seq, its in odds_at_each_kiosk]
    arrivals.seqs = {FIRST: 5, SECOND: 7}
    return arrivals


WRITTEN = {FIRST: Written(10.0, PAIR, True), SECOND: Written(10.5, PAIR, True)}
KIOSKS = {PAIR: {0, 1}}


def test_a_ball_counts_when_its_update_reached_the_last_kiosk_of_its_pair():
    figures, _ = ball_figures(WRITTEN, book([]), KIOSKS, start=9.0)
    assert figures["balls_measured"] == 2 and figures["lost"] == 0
    assert figures["max_ms"] == 2.0


def test_each_ball_with_its_own_odds_is_timed_to_them_and_none_is_superseded():
    figures = odds_figures(WRITTEN, book([(10.2, 6, 300), (10.9, 8, 300)]), KIOSKS)
    assert figures["odds_balls"] == 2 and figures["odds_never_arrived"] == 0
    assert figures["odds_max_ms"] == 402.0  # the second ball: 10.5 → 10.902
    assert figures["odds_superseded_share"] == 0.0
    assert figures["odds_mean_iterations"] == 300.0


def test_a_ball_whose_odds_a_later_ball_replaced_is_timed_to_the_later_odds_and_counted():
    # Odds only for the state after the second ball (seq 8): the first ball's own never came.
    figures = odds_figures(WRITTEN, book([(11.0, 8, 300)]), KIOSKS)
    assert figures["odds_never_arrived"] == 0
    assert figures["odds_max_ms"] == 1002.0  # the first ball: 10.0 → 11.002
    assert figures["odds_superseded_share"] == 0.5


def test_odds_that_describe_an_earlier_state_do_not_count_for_a_ball():
    figures = odds_figures(WRITTEN, book([(10.2, 4, 300)]), KIOSKS)
    assert figures["odds_never_arrived"] == 2 and figures["odds_p50_ms"] is None
