"""Exact odds once every ball is bowled: each way the rest can go, with its probability.

When the match is ending, all that is left to chance are the cards: the lowest-score draws
(and a courtesy draw when the pile is empty).  Every random choice of
:func:`alley_poker.odds.rollout.play_cards` is a uniform pick (``pick(n)``), so the rest of
the match is a tree of at most a few thousand branches: it is walked branch by branch (each
branch played from the start with its choices fixed, a probability of the product of
``1/n``), and the odds are exact.  The ball model offers balls only as samples (``ball``), not
their probabilities, so while a ball is left the odds are a Monte Carlo estimate.

>>> import random
>>> from benchmarks._practice_match import PracticeMatch
>>> from alley_poker.odds.compact import compile_start, judge_for
>>> match = PracticeMatch(("Ann", "Bob"), seed=30)
>>> while match.state.status == "playing":
...     _ = match.step()
>>> state = match.state
>>> state.status, [d["kind"] for d in state.decisions.values()]
('ending', ['lose_card', 'end_draw'])
>>> start = compile_start(state)
>>> wins, cents, branches = enumerate_rest(start, judge_for(state.rules))
>>> round(sum(wins), 9), branches == len(state.pile) + 1  # the lost card goes back
(1.0, True)
"""

from __future__ import annotations

from alley_poker.odds.compact import HandJudge, Start
from alley_poker.odds.rollout import play_cards, shares

#: Branches walked at most; a bigger tree is left to Monte Carlo.
MAX_BRANCHES = 20_000


def enumerate_rest(start: Start, judge: HandJudge, limit: int = MAX_BRANCHES
                   ) -> tuple[list[float], list[float], int] | None:
    """Each seat's exact chance of winning (a tie of *k* as 1/*k*) and expected cents, and
    the branches walked; None when more than ``limit`` (or a ball is left to bowl)."""
    if start.playing:
        return None
    seats = len(start.bowlers)
    series = [position.series for position in start.positions]
    wins = [0.0] * seats
    cents = [0.0] * seats
    branches = 0
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        sizes: list[int] = []

        def pick(n: int, prefix=prefix, sizes=sizes) -> int:
            index = len(sizes)
            sizes.append(n)
            return prefix[index] if index < len(prefix) else 0

        winners = play_cards(start, judge, [], series, pick)
        branches += 1
        probability = 1.0
        for size in sizes:
            probability /= size
        for seat in winners:
            wins[seat] += probability / len(winners)
        for seat, share in shares(start, winners).items():
            cents[seat] += probability * share
        # The branches this one opened: every other choice at each new choice point.
        for depth in range(len(prefix), len(sizes)):
            head = prefix + (0,) * (depth - len(prefix))
            stack.extend((*head, choice) for choice in range(1, sizes[depth]))
        if branches + len(stack) > limit:
            return None
    return wins, cents, branches
