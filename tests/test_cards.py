"""Cards: notation, identity, the 54-card deck and the draw pile."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alley_poker.cards import (
    FULL_DECK,
    Card,
    CardParseError,
    Deck,
    EmptyDeckError,
    format_cards,
    parse_card,
    parse_cards,
)


def test_the_deck_has_52_standard_cards_and_two_physical_jokers():
    assert len(FULL_DECK) == 54
    assert len(set(FULL_DECK)) == 54
    jokers = [card for card in FULL_DECK if card.is_joker]
    assert [str(j) for j in jokers] == ["JOKER-A", "JOKER-B"]
    assert not any(j.is_wild or j.is_dead for j in jokers), "a physical joker carries no power"


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("AS", "AS"), ("as", "AS"), ("10d", "TD"), ("10D", "TD"), ("Th", "TH"), ("2c", "2C"),
        ("♠A", "AS"), ("A♠", "AS"), ("Q♥", "QH"), ("K♦", "KD"), ("9♣", "9C"),
        ("GJ", "GJ"), ("bj", "BJ"), ("JOKER-A", "JOKER-A"), ("joker-b", "JOKER-B"),
    ],
)
def test_notation_accepts_the_usual_spellings(token, expected):
    assert str(parse_card(token)) == expected


@pytest.mark.parametrize(
    ("token", "named_problem"),
    [
        ("1S", "rank"), ("11H", "rank"), ("AX", "suit"), ("A", "too short"), ("", "too short"),
        ("JOKER-C", "rank"), ("ZZ", "rank"),
    ],
)
def test_a_bad_token_is_refused_by_name(token, named_problem):
    with pytest.raises(CardParseError) as excinfo:
        parse_card(token)
    assert repr(token) in str(excinfo.value)
    assert named_problem in str(excinfo.value)
    assert isinstance(excinfo.value, ValueError)


def test_parse_cards_names_the_bad_token_in_a_list():
    with pytest.raises(CardParseError, match="'QQ'"):
        parse_cards("AS KH QQ")


def test_non_text_is_a_clear_error_not_a_crash():
    with pytest.raises(CardParseError, match="expected text"):
        parse_card(14)  # type: ignore[arg-type]


def test_joker_powers_are_distinct_from_physical_jokers():
    good, bad = Card.joker_with_power("good"), Card.joker_with_power("bad")
    assert good.is_wild and not good.is_dead
    assert bad.is_dead and not bad.is_wild
    assert good != Card.physical_joker("JOKER-A")
    with pytest.raises(CardParseError):
        Card.joker_with_power("ugly")
    with pytest.raises(CardParseError):
        Card(15, "S")


@given(st.lists(st.sampled_from(FULL_DECK), max_size=20))
def test_notation_round_trips(cards):
    assert parse_cards(format_cards(cards)) == cards


def test_drawing_and_returning_conserves_every_card():
    deck = Deck.full(random.Random(42))
    hand = [deck.draw() for _ in range(10)]
    assert len(deck) == 44
    assert not set(hand) & set(deck)
    for card in hand:
        deck.put_back(card)
    assert sorted(deck) == sorted(FULL_DECK)


def test_a_seeded_rng_makes_a_reproducible_shuffle_and_shuffles_differ():
    assert Deck.full(random.Random(3)).order == Deck.full(random.Random(3)).order
    assert Deck.full(random.Random(3)).order != Deck.full(random.Random(4)).order


def test_returning_a_card_reshuffles_the_pile():
    deck = Deck.full(random.Random(5))
    card = deck.draw()
    before = deck.order
    deck.put_back(card)
    assert deck.order[:-1] != before or deck.order[-1] != card


def test_the_pile_refuses_duplicates_and_empty_draws():
    deck = Deck.full(random.Random(1))
    with pytest.raises(ValueError, match="already in the draw pile"):
        deck.put_back(FULL_DECK[0])
    with pytest.raises(ValueError, match="twice"):
        Deck([FULL_DECK[0], FULL_DECK[0]], random.Random(1))
    empty = Deck([], random.Random(1))
    with pytest.raises(EmptyDeckError):
        empty.draw()
    assert len(empty) == 0
