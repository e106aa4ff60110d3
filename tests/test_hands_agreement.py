"""The evaluator against independent judges, on random hands.

- treys (Cactus Kev's evaluator) must order joker-free 5-, 6- and 7-card hands exactly as we
  do: same better/worse/tie verdict for every pair.
- A brute-force oracle written here, from the rules and nothing of ours: every wild tried as
  every card it may stand for, every 5-card subset valued by :func:`reference_key`, a
  plain reading of the hand rankings.  It must give our exact value (and our best five
  cards must be worth it) on joker hands of 1 to 12 cards, under the house options.
- hypothesis properties: adding a card never hurts, the order is a total order that agrees
  with == and hash, suits and card order do not matter.

The default tier runs small samples in seconds; the ``slow`` tier runs the big ones.
"""

from __future__ import annotations

import functools
import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from alley_poker.cards import STANDARD_CARDS, Card, parse_cards
from alley_poker.hands import CATEGORIES, evaluate

GJ = Card.joker_with_power("good")
BJ = Card.joker_with_power("bad")
CATEGORY = {name: strength for strength, name in enumerate(CATEGORIES)}
ALL_CARDS = [(card.rank, card.suit) for card in STANDARD_CARDS]
OPTION_SETTINGS = [
    {"wild_may_duplicate": True, "max_wilds_vs_naturals": False},  # the defaults
    {"wild_may_duplicate": False, "max_wilds_vs_naturals": True},  # both house rules
    {"wild_may_duplicate": False, "max_wilds_vs_naturals": False},
    {"wild_may_duplicate": True, "max_wilds_vs_naturals": True},
]


# -- the reference: a plain reading of the rules ---------------------------------------------


@functools.cache
def hand_value(ranks: tuple[int, ...], one_suit: bool) -> int:
    """The value of at most five cards from their ranks (high to low, repeats allowed: a
    wild may copy a card) and whether they are five cards of one suit.

    Returned in the evaluator's key format so the two can be compared exactly: category,
    then five 4-bit tie-break ranks, 0 for a missing card.
    """
    if not ranks:
        return 0
    counts = {rank: ranks.count(rank) for rank in ranks}
    groups = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    straight_top = 0
    if len(ranks) == 5 and len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == (14, 5, 4, 3, 2):
            straight_top = 5  # the ace plays low
    if shape[0] == 5:
        category, tie_break = "five_of_a_kind", groups
    elif straight_top and one_suit:
        category, tie_break = "straight_flush", [straight_top]
    elif shape[0] == 4:
        category, tie_break = "four_of_a_kind", groups
    elif shape[:2] == [3, 2]:
        category, tie_break = "full_house", groups
    elif one_suit:
        category, tie_break = "flush", list(ranks)
    elif straight_top:
        category, tie_break = "straight", [straight_top]
    elif shape[0] == 3:
        category, tie_break = "three_of_a_kind", groups
    elif shape[:2] == [2, 2]:
        category, tie_break = "two_pair", groups
    elif shape[0] == 2:
        category, tie_break = "pair", groups
    else:
        category, tie_break = "high_card", list(ranks)
    key = CATEGORY[category]
    for slot in range(5):
        key = key << 4 | (tie_break[slot] if slot < len(tie_break) else 0)
    return key


def reference_key(cards) -> int:
    """The value of at most five (rank, suit) cards."""
    ranks = tuple(sorted((rank for rank, _ in cards), reverse=True))
    return hand_value(ranks, len(cards) == 5 and len({suit for _, suit in cards}) == 1)


def oracle_key(naturals, wilds: int, dead: int, *, wild_may_duplicate: bool,
               max_wilds_vs_naturals: bool) -> int:
    """Brute force: the best value over every number of wilds used, every card each may
    stand for, and every subset of min(5, cards) of the naturals and stand-ins."""
    if wilds and dead:
        return CATEGORY["unbeatable"] << 20
    usable = min(wilds, len(naturals)) if max_wilds_vs_naturals else wilds
    if wild_may_duplicate:
        pool = tuple(ALL_CARDS)
    else:  # different cards, none of them held
        pool = tuple(card for card in ALL_CARDS if card not in naturals)
    best = 0
    tried = set()
    for used in range(usable + 1):
        size = min(5, len(naturals) + used)
        # Subsets of the naturals plus `used` stand-ins hold `in_five` of the stand-ins.
        for in_five in range(min(used, size) + 1):
            if (size, in_five) in tried or size - in_five > len(naturals):
                continue
            tried.add((size, in_five))
            outcomes = stand_in_outcomes(pool, in_five, size, wild_may_duplicate)
            for part in itertools.combinations(naturals, size - in_five):
                part_ranks = tuple(rank for rank, _ in part)
                for ranks, one_suit in outcomes[suit_class(part)]:
                    value = hand_value(tuple(sorted(part_ranks + ranks, reverse=True)), one_suit)
                    best = max(best, value)
    return best


def suit_class(cards) -> frozenset[str]:
    """The suits of some cards as far as being all one suit goes: none, one, or mixed
    (written as all four)."""
    suits = {suit for _, suit in cards}
    return frozenset(suits if len(suits) <= 1 else "CDHS")


@functools.lru_cache(maxsize=64)
def stand_in_outcomes(pool: tuple, count: int, size: int, repeats: bool) -> dict:
    """Every set of ``count`` stand-ins from ``pool``, as the distinct (ranks, five cards of
    one suit) outcomes it gives a subset of ``size`` cards, by the suit class of the subset's
    naturals.

    Five cards are worth what their ranks and their being one suit make them (that is all
    :func:`hand_value` sees), so stand-in sets with the same outcome need valuing once.
    """
    choose = itertools.combinations_with_replacement if repeats else itertools.combinations
    stand_in_sets = {(tuple(rank for rank, _ in cards), suit_class(cards))
                     for cards in choose(pool, count)}
    naturals = size - count
    classes = [frozenset()] if naturals == 0 else [frozenset(suit) for suit in "CDHS"]
    if naturals > 1:
        classes.append(frozenset("CDHS"))
    return {
        natural_suits: {
            (ranks, size == 5 and len(natural_suits | suits) == 1)
            for ranks, suits in stand_in_sets
        }
        for natural_suits in classes
    }


def _parse(text: str) -> list[tuple[int, str]]:
    return [(card.rank, card.suit) for card in parse_cards(text)]


def test_the_reference_reads_the_rules():
    def key(text):
        return reference_key(tuple(_parse(text)))

    assert CATEGORIES[key("AS KS QS JS TS") >> 20] == "straight_flush"
    assert CATEGORIES[key("AS 2D 3H 4C 5S") >> 20] == "straight"
    assert key("AS 2D 3H 4C 5S") < key("2S 3D 4H 5C 6S")
    assert CATEGORIES[key("AS AS AS AS AS") >> 20] == "five_of_a_kind"
    assert key("AS AD AH KC KD") > key("AS AS KS QS 9S") > key("AS KS QS JS 9S")
    assert key("AS AD") < key("AS AD 2C")
    assert key("") == 0


# -- treys ----------------------------------------------------------------------------------


def _treys_cards(cards):
    return [TreysCard.new(str(card)[0] + str(card)[1].lower()) for card in cards]


def check_order_agrees_with_treys(hand_count: int, seed: int) -> None:
    rng = random.Random(seed)
    judge = TreysEvaluator()
    hands = [rng.sample(STANDARD_CARDS, rng.choice((5, 6, 7))) for _ in range(hand_count)]
    ours = [evaluate(hand).key for hand in hands]
    theirs = [judge.evaluate(cards[:2], cards[2:]) for cards in map(_treys_cards, hands)]
    # Sorted by our key, treys' rank (lower is better) must fall exactly where ours rises
    # and stay put where ours ties; that makes the two orders the same on every pair.
    order = sorted(range(hand_count), key=ours.__getitem__)
    for low, high in itertools.pairwise(order):
        if ours[low] == ours[high]:
            assert theirs[low] == theirs[high], (hands[low], hands[high])
        else:
            assert theirs[low] > theirs[high], (hands[low], hands[high])


def test_treys_orders_random_hands_as_we_do():
    check_order_agrees_with_treys(5_000, seed=1)


@pytest.mark.slow
def test_treys_orders_120_000_random_hands_as_we_do():
    for seed in range(10, 16):
        check_order_agrees_with_treys(20_000, seed=seed)


# -- the brute-force oracle ------------------------------------------------------------------


def random_joker_hand(rng: random.Random, max_cards: int) -> list[Card]:
    """A random hand of up to ``max_cards`` cards holding at least one joker; mostly one
    good joker as in play, sometimes both jokers, only the bad one, or several wilds (kept
    small: the oracle's work grows with 52 to the power of the wilds)."""
    roll = rng.random()
    if roll < 0.80:
        jokers, size = [GJ], rng.randint(1, max_cards)
    elif roll < 0.85:
        jokers, size = [GJ, BJ], rng.randint(2, max_cards)
    elif roll < 0.90:
        jokers, size = [BJ], rng.randint(1, max_cards)
    elif roll < 0.98:
        jokers, size = [GJ, GJ], rng.randint(2, min(6, max_cards))
    else:
        jokers, size = [GJ, GJ, GJ], rng.randint(3, min(5, max_cards))
    hand = rng.sample(STANDARD_CARDS, size - len(jokers)) + jokers
    rng.shuffle(hand)
    return hand


def check_against_oracle(hand: list[Card], options: dict[str, bool]) -> None:
    naturals = tuple((card.rank, card.suit) for card in hand if not card.joker)
    wilds = sum(card.is_wild for card in hand)
    result = evaluate(hand, **options)
    expected = oracle_key(naturals, wilds, sum(card.is_dead for card in hand), **options)
    assert result.key == expected, (hand, options, result, hex(expected))
    if result.category in ("unbeatable", "no_hand"):
        return
    # The best five cards shown must be the hand's own cards and legal stand-ins, and be
    # worth exactly the value.
    shown = [_parse(text.removeprefix("GJ="))[0] for text in result.best_five]
    stand_ins = [card for text, card in zip(result.best_five, shown, strict=True)
                 if text.startswith("GJ=")]
    held = [card for text, card in zip(result.best_five, shown, strict=True)
            if not text.startswith("GJ=")]
    assert set(held) <= set(naturals) and len(set(held)) == len(held)
    usable = min(wilds, len(naturals)) if options["max_wilds_vs_naturals"] else wilds
    assert len(stand_ins) <= usable
    if not options["wild_may_duplicate"]:
        assert not set(stand_ins) & set(naturals) and len(set(stand_ins)) == len(stand_ins)
    assert reference_key(tuple(shown)) == result.key


def check_random_joker_hands(seed: int, count: int, max_cards: int, settings: list) -> None:
    """``count`` random hands with jokers of up to ``max_cards`` cards, each against the
    oracle under every one of ``settings``."""
    rng = random.Random(seed)
    for _ in range(count):
        hand = random_joker_hand(rng, max_cards=max_cards)
        for options in settings:
            check_against_oracle(hand, options)


def test_the_oracle_agrees_on_joker_hands():
    check_random_joker_hands(2, 120, 8, OPTION_SETTINGS)


@pytest.mark.slow
def test_the_oracle_agrees_on_6_000_joker_hands_under_both_settings():
    check_random_joker_hands(3, 6_000, 12, OPTION_SETTINGS[:2])


@pytest.mark.slow
def test_the_oracle_agrees_on_joker_hands_under_each_single_option():
    check_random_joker_hands(4, 3_000, 12, OPTION_SETTINGS[2:])


def check_joker_free_hands(hand_count: int, seed: int, sizes: range = range(13)) -> None:
    """Hands of natural cards against the reference over every 5-card subset (this covers
    short hands, which treys does not value)."""
    rng = random.Random(seed)
    for _ in range(hand_count):
        hand = rng.sample(STANDARD_CARDS, rng.choice(sizes))
        naturals = tuple((card.rank, card.suit) for card in hand)
        expected = max(map(reference_key, itertools.combinations(naturals, min(5, len(hand)))))
        assert evaluate(hand).key == expected, hand


def test_joker_free_hands_of_any_size_agree_with_the_reference():
    check_joker_free_hands(400, seed=5)
    check_joker_free_hands(20, seed=7, sizes=range(14, 19))  # past the fast path's 15


@pytest.mark.slow
def test_20_000_joker_free_hands_of_any_size_agree_with_the_reference():
    check_joker_free_hands(20_000, seed=6)


# -- properties ------------------------------------------------------------------------------

DECK = [*STANDARD_CARDS, GJ, BJ]
hands = st.lists(st.sampled_from(DECK), unique=True, max_size=18)
options = st.fixed_dictionaries(
    {"wild_may_duplicate": st.booleans(), "max_wilds_vs_naturals": st.booleans()}
)


@given(hand=hands, extra=st.sampled_from(DECK), options=options)
def test_adding_a_card_never_makes_a_hand_worse(hand, extra, options):
    if extra not in hand:
        assert evaluate([*hand, extra], **options) >= evaluate(hand, **options)


@given(first=hands, second=hands, third=hands, options=options)
def test_the_order_is_total_and_agrees_with_equality_and_hash(first, second, third, options):
    a, b, c = (evaluate(hand, **options) for hand in (first, second, third))
    assert [a < b, a == b, a > b].count(True) == 1
    assert (a == b) == (a.key == b.key) and (a != b) == (a.key != b.key)
    assert (a <= b) == (a < b or a == b) and (a >= b) == (a > b or a == b)
    if a == b:
        assert hash(a) == hash(b)
    if a <= b <= c:
        assert a <= c
    assert sorted([a, b, c]) == sorted([a, b, c], key=lambda value: value.key)


@given(hand=hands, suits=st.permutations("CDHS"), options=options, seed=st.integers(0, 99))
def test_suits_and_card_order_do_not_matter(hand, suits, options, seed):
    renamed = dict(zip("CDHS", suits, strict=True))
    recoloured = [card if card.joker else Card(card.rank, renamed[card.suit]) for card in hand]
    random.Random(seed).shuffle(recoloured)
    assert evaluate(recoloured, **options) == evaluate(hand, **options)
