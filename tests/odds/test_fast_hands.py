"""The fast engine's automatic card loss is the ledger's, card for card.

:meth:`alley_poker.odds.compact.HandJudge.automatic_loss` tries the cards lowest first and
stops at the first whose loss keeps the hand's whole value (losing a card never makes a hand
stronger); the ledger's :func:`alley_poker.ledger.values.automatic_loss` tries every card.
Hypothesis draws hands of every size, jokers (good, bad, both) and hands made to hold pairs,
trips, flushes and straights, under each of the four evaluator options.
"""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.ledger.values import automatic_loss
from alley_poker.odds.compact import CARD_ID, CARD_TEXT, JOKER_A, JOKER_B, judge_for
from benchmarks._practice_match import PracticeMatch

OPTIONS = [(True, False), (False, False), (True, True), (False, True)]
RANKS = "23456789TJQKA"


@cache
def _state(wild: bool, capped: bool):
    match = PracticeMatch(("Ann", "Bob"), seed=1, rules={"wild_may_duplicate": wild,
                                                         "max_wilds_vs_naturals": capped})
    return match.state


def _rank(card: int) -> str:
    return CARD_TEXT[card][:-1]


@st.composite
def hands(draw):
    """A hand of 1-54 cards: any cards, or cards of a few ranks (pairs, trips, quads), of
    one suit (flushes), or of neighbouring ranks (straights), jokers often among them."""
    kind = draw(st.sampled_from(["any", "ranks", "suit", "run"]))
    if kind == "any":
        pool = list(range(54))
    elif kind == "ranks":
        ranks = draw(st.sets(st.sampled_from(RANKS), min_size=1, max_size=5))
        pool = [card for card in range(52) if _rank(card) in ranks]
    elif kind == "suit":
        suit = draw(st.sampled_from("CDHS"))
        pool = [card for card in range(52) if CARD_TEXT[card].endswith(suit)]
    else:
        low = draw(st.integers(0, len(RANKS) - 5))
        ranks = set(RANKS[low:low + 5]) | ({"A"} if low == 0 else set())
        pool = [card for card in range(52) if _rank(card) in ranks]
    pool += [JOKER_A, JOKER_B] if kind != "any" and draw(st.booleans()) else []
    return draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))


@settings(max_examples=400, deadline=None)
@given(hand=hands(), option=st.sampled_from(OPTIONS), good_a=st.booleans())
def test_the_automatic_loss_is_the_ledgers(hand, option, good_a):
    state = _state(*option)
    judge = judge_for(state.rules)
    good = JOKER_A if good_a else JOKER_B
    saved = state.hands["Ann"], dict(state.powers)
    try:
        state.hands["Ann"] = [CARD_TEXT[card] for card in hand]
        state.powers.update({"JOKER-A": "good" if good_a else "bad",
                             "JOKER-B": "bad" if good_a else "good"})
        want = automatic_loss(state, "Ann")
    finally:
        state.hands["Ann"], state.powers = saved[0], saved[1]
    assert CARD_TEXT[judge.automatic_loss(hand, good)] == want
    assert CARD_ID[want] in hand
