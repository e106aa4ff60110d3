"""Poker hands: every category and its boundaries, short hands, jokers, the two house options,
unbeatable hands, plain-English descriptions, ranking bowlers, and bad input.

Expected values here are worked out by hand from the rules (docs/hands.md); the randomized
agreement runs against treys and a brute-force oracle are in test_hands_agreement.py.
"""

from __future__ import annotations

import itertools
import pickle

import pytest

from alley_poker.cards import Card, parse_cards
from alley_poker.hand_keys import FIVE_CARD_KEYS, RANK_WEIGHTS
from alley_poker.hand_tables import STRAIGHT_WITH_GAPS, STRAIGHTS, TOP_RANKS
from alley_poker.hands import (
    CATEGORIES,
    DuplicateCardError,
    HandError,
    HandValue,
    UnpoweredJokerError,
    evaluate,
    rank_hands,
)

NO_COPIES = {"wild_may_duplicate": False}
WILDS_CAPPED = {"max_wilds_vs_naturals": True}


def value(text: str, **options: bool) -> HandValue:
    return evaluate(parse_cards(text), **options)


# -- categories, best first ------------------------------------------------------------------

CATEGORY_EXAMPLES = [
    # (hand, category, tie-break ranks, description)
    ("GJ BJ 2C", "unbeatable", (), "Unbeatable: both jokers"),
    ("AS AD AH AC GJ", "five_of_a_kind", (14,), "Five of a kind, aces"),
    ("AS KS QS JS TS", "straight_flush", (14,), "Royal flush"),
    ("9H 8H 7H 6H 5H", "straight_flush", (9,), "Straight flush, nine high"),
    ("5D 4D 3D 2D AD", "straight_flush", (5,), "Straight flush, five high"),
    ("9S 9D 9H 9C 2D", "four_of_a_kind", (9, 2), "Four of a kind, nines"),
    ("KS KH KD 7C 7D", "full_house", (13, 7), "Full house, kings over sevens"),
    ("AS JS 9S 5S 3S", "flush", (14, 11, 9, 5, 3), "Flush, ace high"),
    ("AS KD QH JC TS", "straight", (14,), "Straight, ace high"),
    ("AS 2D 3H 4C 5S", "straight", (5,), "Straight, five high"),
    ("QS QH QD 9C 2D", "three_of_a_kind", (12, 9, 2), "Three of a kind, queens"),
    ("JS JD 4C 4H AS", "two_pair", (11, 4, 14), "Two pair, jacks and fours"),
    ("AS AD KC 7H 2D", "pair", (14, 13, 7, 2), "Pair of aces, king kicker"),
    ("AS JD 9C 5H 3S", "high_card", (14, 11, 9, 5, 3), "High card, ace"),
    ("", "no_hand", (), "No hand"),
]


@pytest.mark.parametrize(("hand", "category", "ranks", "words"), CATEGORY_EXAMPLES)
def test_each_category_is_named_ranked_and_described(hand, category, ranks, words):
    result = value(hand)
    assert (result.category, result.ranks, result.describe()) == (category, ranks, words)


def test_the_categories_rank_in_the_documented_order():
    values = [value(hand) for hand, *_ in CATEGORY_EXAMPLES]
    assert all(better > worse for better, worse in itertools.pairwise(values))
    assert list(dict.fromkeys(v.category for v in values)) == list(reversed(CATEGORIES))


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("AS AD AH AC GJ", "AS KS QS JS TS"),  # five of a kind over a royal flush
        ("2S 2D 2H 2C GJ", "AS KS QS JS TS"),  # even five twos
        ("3S 3D GJ GJ GJ", "2S 2D 2H 2C GJ"),
        ("AS KS QS JS TS", "KH QH JH TH 9H"),  # royal over king-high straight flush
        ("6C 5C 4C 3C 2C", "5D 4D 3D 2D AD"),  # the steel wheel is the lowest straight flush
        ("5D 4D 3D 2D AD", "AS AD AH AC KS"),  # any straight flush beats four aces
        ("2S 2D 2H 2C 3D", "AS AD AH KC KD"),  # four twos beat aces full
        ("9S 9D 9H 9C AD", "9S 9D 9H 9C KD"),  # same four: the kicker decides
        ("2S 2D 2H 3C 3D", "AS KS QS JS 9S"),  # the lowest full house beats the best flush
        ("KS KH KD 2C 2D", "QS QH QD AC AD"),  # full houses: the trips first
        ("7S 7H 7D KC KD", "7S 7H 7D QC QD"),  # then the pair
        ("AH KH QH JH 9H", "AS KD QH JC TS"),  # flush over straight
        ("AS JS 9S 5S 4S", "AH JH 9H 5H 3H"),  # flushes compare card by card, to the last
        ("2S 3D 4H 5C 6S", "AS 2D 3H 4C 5S"),  # the wheel is the lowest straight
        ("AS 2D 3H 4C 5S", "AS AD AH KS QD"),  # but still a straight
        ("JS JD 4C 4H AS", "JH JC 4S 4D KS"),  # two pair: the kicker decides
        ("JS JD 4C 4H 2S", "TS TD 9C 9H AS"),  # the high pair first
        ("AS AD KC 7H 3D", "AH AC KD 7S 2C"),  # a pair: kickers to the last card
        ("AS KD 9C 5H 3S", "AD QC JS TH 8D"),  # high card: the top card first
        ("QS KD AH 2C 3S", "KS QD JH 9C 7S"),  # no wrap-around straight: just ace high
    ],
)
def test_boundaries_within_and_between_categories(better, worse):
    assert value(better) > value(worse)
    assert value(worse) < value(better)
    assert value(better) != value(worse)


def test_suits_never_break_ties():
    a, b = value("AS JD 9C 5H 3S"), value("AD JC 9S 5C 3D")
    assert a == b and hash(a) == hash(b) and not a < b and not a > b
    assert value("AH KH QH JH TH") == value("AC KC QC JC TC")


# -- more than five cards --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "category", "ranks"),
    [
        ("KS KH 7D 7C KD 2S 3S", "full_house", (13, 7)),
        ("KS KH KD 7C 7D 7H 2S", "full_house", (13, 7)),  # two trips make a full house
        ("AS AD KC KH 5S 5D 9C", "two_pair", (14, 13, 9)),  # third pair loses to the nine
        ("2H 3H 4H 5H 9H 6C", "flush", (9, 5, 4, 3, 2)),  # flush beats the six-high straight
        ("5H 6H 7H 8H 9H TC", "straight_flush", (9,)),  # not the ten-high straight
        ("9S 9D 9H 9C KS KD KH", "four_of_a_kind", (9, 13)),
        ("4C 5D 6H 7S 8C 9D 2S", "straight", (9,)),
        ("AS 2D 3H 4C 5S 6D", "straight", (6,)),
        ("AS AD AH 2C 2D 2H KS", "full_house", (14, 2)),
        # ten cards, two flushes: the better one counts (queen beats nine at the third card)
        ("AS KS 9S 5S 3S AH KH QH 5H 2H", "flush", (14, 13, 12, 5, 2)),
    ],
)
def test_the_best_five_of_many_cards_count(hand, category, ranks):
    result = value(hand)
    assert (result.category, result.ranks) == (category, ranks)


def test_a_fifteen_card_hand():
    result = value("2C 3C 4D 5H 7S 9D JC KH AS QD TH 8C 6D 2S 2H")
    assert (result.category, result.ranks) == ("straight", (14,))
    assert value("2C 3C 4C 5C 7S 9D JC KH AS QD TH 8C 6C 2S 2H").describe() == (
        "Straight flush, six high"
    )


def test_all_fifty_two_cards_make_a_royal_flush():
    assert evaluate(parse_cards(" ".join(
        r + s for s in "CDHS" for r in "23456789TJQKA"
    ))).describe() == "Royal flush"


# -- short hands -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "category", "ranks", "words"),
    [
        ("7C", "high_card", (7,), "High card, seven"),
        ("AS AD", "pair", (14,), "Pair of aces"),
        ("AS AD KC", "pair", (14, 13), "Pair of aces, king kicker"),
        ("7S 7D 7H", "three_of_a_kind", (7,), "Three of a kind, sevens"),
        ("5S 5D 9C 9H", "two_pair", (9, 5), "Two pair, nines and fives"),
        ("AS AD AH AC", "four_of_a_kind", (14,), "Four of a kind, aces"),
        ("AS KS QS JS", "high_card", (14, 13, 12, 11), "High card, ace"),  # no 4-card flush
        ("6S 2D", "high_card", (6, 2), "High card, six"),
    ],
)
def test_short_hands_are_what_their_cards_make(hand, category, ranks, words):
    result = value(hand)
    assert (result.category, result.ranks, result.describe()) == (category, ranks, words)
    assert len(result.best_five) == len(hand.split())


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("AS AD 2C", "AS AD"),  # a missing card loses to any card (the example)
        ("AS AD KC", "AH AC QC 3D"),  # ranks compare one by one (the example)
        ("KS KD KH KC 2D", "KS KD KH KC"),
        ("9S 9D 5C 5H 2D", "9S 9D 5C 5H"),
        ("2C", ""),  # any card beats no card
        ("KS KD", "AS"),  # a pair beats a lone ace
        ("2C 2D", "AS KS QS JS"),  # four to a flush or straight is only high card
        ("AS AD AH AC", "AS KD QH JC TS"),  # four cards of a kind beat a five-card straight
        ("AS KD QH JC TS", "AS AD AH"),
    ],
)
def test_short_hands_compare_with_full_ones(better, worse):
    assert value(better) > value(worse)


# -- the good joker (wild) and the bad joker (dead) ------------------------------------------


@pytest.mark.parametrize(
    ("hand", "words", "best_five"),
    [
        ("GJ", "High card, ace", ("GJ=AS",)),
        ("GJ AS", "Pair of aces", ("AS", "GJ=AH")),
        ("GJ 5H 4D 3C AS", "Straight, five high", ("5H", "4D", "3C", "GJ=2S", "AS")),
        ("GJ AS KS QS JS", "Royal flush", ("AS", "KS", "QS", "JS", "GJ=TS")),
        ("GJ 5D 4D 3D 2D", "Straight flush, six high", ("GJ=6D", "5D", "4D", "3D", "2D")),
        ("GJ 9S 9D 4C 4H", "Full house, nines over fours", ("9D", "9S", "GJ=9H", "4C", "4H")),
        ("GJ 2C 7D 9H JS", "Pair of jacks, nine kicker", ("JS", "GJ=JH", "9H", "7D", "2C")),
        ("GJ 2H 5H 9H KH", "Flush, ace high", ("GJ=AH", "KH", "9H", "5H", "2H")),
        ("GJ 7S 7D 7H 2C", "Four of a kind, sevens", ("7D", "7H", "7S", "GJ=7C", "2C")),
        ("GJ QS QD", "Three of a kind, queens", ("QD", "QS", "GJ=QH")),
        ("GJ 8C 8D 3S", "Three of a kind, eights", ("8C", "8D", "GJ=8S", "3S")),
    ],
)
def test_the_good_joker_plays_as_the_best_card_for_the_hand(hand, words, best_five):
    result = value(hand)
    assert result.describe() == words
    assert result.best_five == best_five


def test_a_wild_may_copy_a_held_card_by_default():
    # Five of a kind, and a flush holding the ace of its suit twice (A-A beats A-K-Q).
    assert value("GJ AS AD AH AC").best_five == ("AC", "AD", "AH", "AS", "GJ=AS")
    double_ace = value("GJ AH 5H 9H KH")
    assert double_ace.ranks == (14, 14, 13, 9, 5)
    assert double_ace > value("AS KS QS 9S 5S")


def test_no_copies_the_wild_must_be_a_card_the_hand_lacks():
    four = value("GJ AS AD AH AC", **NO_COPIES)
    assert (four.describe(), four.ranks) == ("Four of a kind, aces", (14, 13))
    assert four.best_five == ("AC", "AD", "AH", "AS", "GJ=KS")
    assert value("GJ GJ KS KD KH 2C", **NO_COPIES).ranks == (13, 14)  # the spare wild: an ace
    flush = value("GJ AH 5H 9H KH", **NO_COPIES)
    assert flush.ranks == (14, 13, 12, 9, 5) and flush.best_five[2] == "GJ=QH"
    assert value("GJ AS", **NO_COPIES).best_five == ("AS", "GJ=AH")
    # Without a copy to make, the rule changes nothing.
    assert value("GJ 9S 9D 4C 4H", **NO_COPIES) == value("GJ 9S 9D 4C 4H")
    # Several wilds are different cards too: no five of a kind even from wilds alone.
    assert value("GJ GJ GJ GJ GJ", **NO_COPIES).describe() == "Royal flush"
    assert value("GJ GJ GJ GJ GJ").describe() == "Five of a kind, aces"


def test_wilds_capped_a_hand_uses_no_more_wilds_than_natural_cards():
    assert value("GJ", **WILDS_CAPPED).category == "no_hand"
    assert value("GJ", **WILDS_CAPPED).best_five == ()
    assert value("GJ 7C", **WILDS_CAPPED).describe() == "Pair of sevens"
    assert value("GJ GJ 7C", **WILDS_CAPPED).describe() == "Pair of sevens"
    assert value("GJ GJ 7C").describe() == "Three of a kind, sevens"
    # Seed 004: A-K-Q of hearts and two wilds is a royal flush under the rule.
    assert value("AH KH QH GJ GJ", **WILDS_CAPPED).describe() == "Royal flush"
    # Seed 004's A-K and three wilds: two wilds may play, so three aces (see docs/hands.md).
    capped = value("AH KH GJ GJ GJ", **WILDS_CAPPED)
    assert (capped.describe(), capped.ranks) == ("Three of a kind, aces", (14, 13))
    assert value("AH KH GJ GJ GJ").describe() == "Royal flush"


def test_both_options_together():
    both = {**NO_COPIES, **WILDS_CAPPED}
    assert value("GJ GJ AS AD", **both).describe() == "Four of a kind, aces"
    assert value("GJ GJ GJ AS AD", **both).describe() == "Four of a kind, aces"
    assert value("GJ GJ GJ AS AD", **both).ranks == (14,)  # the third wild may not play
    assert value("GJ GJ GJ AS AD", **both).best_five == ("AD", "AS", "GJ=AH", "GJ=AC")
    assert value("GJ GJ GJ AS AD", **NO_COPIES).ranks == (14, 13)  # the third is a king
    assert value("GJ GJ GJ AS AD").describe() == "Five of a kind, aces"


def test_the_bad_joker_is_worth_nothing_alone():
    assert value("BJ").category == "no_hand"
    assert value("BJ AS") == value("AS")
    assert value("BJ AS").best_five == ("AS",)
    assert value("BJ 9S 9D 4C 4H 2D") == value("9S 9D 4C 4H 2D")


def test_both_jokers_together_are_unbeatable():
    both = value("GJ BJ")
    assert (both.category, both.describe(), both.best_five) == (
        "unbeatable", "Unbeatable: both jokers", ("GJ", "BJ"))
    assert both > value("GJ AS AD AH AC")
    assert both == value("2C BJ 7D GJ 9H")
    for options in (NO_COPIES, WILDS_CAPPED):
        assert value("GJ BJ", **options).category == "unbeatable"


def test_the_morgan_maneuver_ties_with_every_unbeatable_hand():
    morgan = HandValue.unbeatable("Morgan Maneuver")
    assert morgan.describe() == "Unbeatable: Morgan Maneuver"
    assert (morgan.category, morgan.reason, morgan.best_five) == (
        "unbeatable", "Morgan Maneuver", ())
    assert morgan == value("GJ BJ") == HandValue.unbeatable("house decision")
    assert hash(morgan) == hash(value("GJ BJ"))
    assert morgan > value("GJ GJ GJ GJ GJ")
    with pytest.raises(ValueError, match="needs a reason"):
        HandValue.unbeatable("  ")


def test_several_jokers_of_each_power():
    assert value("GJ GJ").describe() == "Pair of aces"
    assert value("GJ GJ GJ 2C").describe() == "Four of a kind, twos"
    assert value("BJ BJ KS").describe() == "High card, king"


# -- the value object ------------------------------------------------------------------------


def test_a_value_is_immutable_hashable_and_picklable():
    result = value("KS KH 7D 7C KD")
    with pytest.raises(AttributeError):
        result.key = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.category = "flush"  # type: ignore[misc]
    assert {result: "x"}[value("KC KD 7S 7H KH")] == "x"
    assert pickle.loads(pickle.dumps(result)) == result
    assert pickle.loads(pickle.dumps(result)).best_five == result.best_five
    morgan = pickle.loads(pickle.dumps(HandValue.unbeatable("Morgan Maneuver")))
    assert morgan.describe() == "Unbeatable: Morgan Maneuver"


def test_comparison_with_other_types_is_refused():
    result = value("AS")
    assert result != 5 and result != "AS"
    with pytest.raises(TypeError):
        _ = result < 5  # type: ignore[operator]


def test_repr_shows_the_cards_and_the_words():
    assert repr(value("GJ AS")) == "<HandValue pair [AS GJ=AH] 'Pair of aces'>"


def test_options_do_not_change_hands_without_a_wild():
    for options in (NO_COPIES, WILDS_CAPPED):
        assert value("AS AD KC 7H 2D", **options) == value("AS AD KC 7H 2D")
        assert value("AS JS 9S 5S 3S 2D", **options).describe() == "Flush, ace high"


def test_any_iterable_of_cards_is_accepted():
    cards = parse_cards("KS KH 7D 7C KD")
    expected = evaluate(cards)
    assert evaluate(tuple(cards)) == expected
    assert evaluate(card for card in cards) == expected
    assert evaluate(iter(parse_cards("GJ 7D 7C"))).describe() == "Three of a kind, sevens"
    assert evaluate(set(cards)) == expected


# -- ranking bowlers -------------------------------------------------------------------------


def test_rank_hands_groups_ties_best_first_in_input_order():
    hands = {
        "Ann": parse_cards("KS KD 2C"),
        "Bob": parse_cards("AS 2D"),
        "Cy": parse_cards("KH KC 2H"),
        "Di": [],
        "Ed": parse_cards("GJ BJ"),
        "Flo": HandValue.unbeatable("Morgan Maneuver"),
    }
    assert rank_hands(hands) == [["Ed", "Flo"], ["Ann", "Cy"], ["Bob"], ["Di"]]
    assert rank_hands({}) == []


def test_rank_hands_passes_the_options_on():
    hands = {"Ann": parse_cards("GJ AS AD AH AC"), "Bob": parse_cards("KS QS JS TS 9S")}
    assert rank_hands(hands) == [["Ann"], ["Bob"]]
    assert rank_hands(hands, wild_may_duplicate=False) == [["Bob"], ["Ann"]]
    with pytest.raises(TypeError):
        rank_hands(hands, wild_may_duplicates=False)


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("joker", ["JOKER-A", "JOKER-B"])
def test_a_joker_without_a_power_is_an_error_naming_it(joker):
    with pytest.raises(UnpoweredJokerError, match=joker) as excinfo:
        value(f"AS KD {joker}")
    assert isinstance(excinfo.value, ValueError) and isinstance(excinfo.value, HandError)


@pytest.mark.parametrize("hand", ["AS AS", "AS KD AS 2C 3H", "2C 3C 4C 5C 2C 9D 9H", "GJ TD TD"])
def test_a_repeated_card_is_an_error_naming_it(hand):
    repeated = next(token for token in hand.split() if hand.split().count(token) > 1)
    with pytest.raises(DuplicateCardError, match=f"{repeated} is in the hand twice"):
        value(hand)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("AS KD", "use parse_cards"),
        (None, "not NoneType"),
        (5, "not int"),
        ([("A", "S")], "not \\('A', 'S'\\)"),
        (["AS", "KD"], "not 'AS'"),
        ([*parse_cards("AS KD"), None], "not None"),
        (Card(14, "S"), "not one card"),
    ],
)
def test_things_that_are_not_cards_are_refused_clearly(cards, message):
    with pytest.raises(TypeError, match=message):
        evaluate(cards)


@pytest.mark.parametrize("option", ["wild_may_duplicate", "max_wilds_vs_naturals"])
def test_options_must_be_true_or_false(option):
    with pytest.raises(TypeError, match=f"{option} must be True or False"):
        evaluate(parse_cards("AS KD"), **{option: "no"})


# -- the lookup tables, against plain definitions --------------------------------------------


def test_the_rank_tables_match_their_definitions():
    for mask in range(1 << 13):
        ranks = [rank for rank in range(14, 1, -1) if mask >> (rank - 2) & 1]
        for count in range(6):
            top = ranks[:count] + [0] * (count - len(ranks[:count]))
            packed = 0
            for rank in top:
                packed = packed << 4 | rank
            assert TOP_RANKS[count][mask] == packed
        for gaps in range(5):
            fits = [top for top, straight in STRAIGHTS
                    if bin(straight & ~mask).count("1") <= gaps]
            assert STRAIGHT_WITH_GAPS[gaps][mask] == max(fits, default=0)


def test_every_five_card_rank_pattern_has_its_own_weight_sum():
    # The five-card fast path values a hand by the sum of its rank weights alone.
    patterns = [ranks for ranks in itertools.combinations_with_replacement(range(13), 5)
                if ranks[0] != ranks[4]]  # no rank five times
    sums = {sum(RANK_WEIGHTS[rank] for rank in ranks) for ranks in patterns}
    assert len(sums) == len(patterns) == 6175
    assert max(sums) < len(FIVE_CARD_KEYS)


def test_the_five_card_fast_path_agrees_with_the_general_one():
    # Every rank pattern of five cards (suits dealt in turn: never a flush), through the fast
    # path and through the general one (an option sends a hand there; without a wild it
    # changes nothing).
    for ranks in itertools.combinations_with_replacement(range(2, 15), 5):
        if ranks[0] == ranks[4]:
            continue
        cards = [Card(rank, "CDHS"[place % 4]) for place, rank in enumerate(ranks)]
        assert evaluate(cards) == evaluate(cards, wild_may_duplicate=False), cards
        assert evaluate(cards).best_five == evaluate(cards, wild_may_duplicate=False).best_five


def test_a_card_keeps_its_code_out_of_its_identity_and_through_pickle():
    card = parse_cards("AS")[0]
    assert card == Card(14, "S") and hash(card) == hash(Card(14, "S"))
    assert repr(card) == "Card('AS')"
    assert pickle.loads(pickle.dumps(card))._code == card._code


def test_a_card_without_its_code_is_still_valued():
    # As a card unpickled from before cards kept their code would be: the evaluator falls
    # back to reading rank and suit.
    cards = parse_cards("KS KH 7D 7C KD")
    object.__delattr__(cards[2], "_code")
    assert evaluate(cards).describe() == "Full house, kings over sevens"
    assert evaluate([*cards, *parse_cards("2C GJ")]).describe() == "Four of a kind, kings"
