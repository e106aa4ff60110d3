"""The USBC split definition, on the issue's leaves, every pair of pins, and properties."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alley_poker.bowling import BowlingError, Game, format_leave, is_split, parse_leave

SPLITS = ["7-10", "4-6", "2-7", "3-10", "5-7-10", "7-9", "2-3", "4-5", "5-6", "7-8", "9-10",
          "8-10", "4-7-10", "4-6-7-10", "6-7-10", "4-10", "4-9", "2-9", "5-10", "3-7", "8-9",
          "4-5-8"]  # 4-5-8: pin 2 is down immediately ahead of and between 4 and 5
NOT_SPLITS = ["1-2-10", "2-4", "3-6-10", "2-8", "3-9", "2-4-5-8", "3-5-6-9", "6-10", "1-7-10",
              "2-4-7", "5-8-9", "7", "10", "none", "1-2-3-4-5-6-7-8-9-10"]


@pytest.mark.parametrize("leave", SPLITS)
def test_splits(leave):
    assert is_split(parse_leave(leave))


@pytest.mark.parametrize("leave", NOT_SPLITS)
def test_not_splits(leave):
    assert not is_split(parse_leave(leave))


# Pairs one ball can take together, read off the pin diagram: diagonal neighbours, and the
# sleepers hidden directly behind another pin.  Every other pair without the head pin is split.
TOUCHING_PAIRS = {
    (2, 4), (2, 5), (3, 5), (3, 6), (4, 7), (4, 8), (5, 8), (5, 9), (6, 9), (6, 10),
    (2, 8), (3, 9),
}


@pytest.mark.parametrize("pair", list(combinations(range(2, 11), 2)), ids=format_leave)
def test_every_pair_without_head_pin(pair):
    assert is_split(pair) == (pair not in TOUCHING_PAIRS)


MIRROR = {1: 1, 2: 3, 3: 2, 4: 6, 5: 5, 6: 4, 7: 10, 8: 9, 9: 8, 10: 7}
leaves = st.sets(st.integers(1, 10))


@given(leaves)
def test_head_pin_standing_is_never_a_split(leave):
    assert not is_split(leave | {1})


@given(st.integers(1, 10))
def test_single_pin_is_never_a_split(pin):
    assert not is_split([pin])


@given(leaves)
def test_split_is_left_right_symmetric(leave):
    assert is_split(leave) == is_split({MIRROR[pin] for pin in leave})


@given(leaves)
def test_a_split_needs_two_pins_and_the_head_pin_down(leave):
    if is_split(leave):
        assert len(leave) >= 2 and 1 not in leave


@given(leaves)
def test_leave_text_round_trip(leave):
    assert parse_leave(format_leave(leave)) == leave


@given(leaves.filter(lambda leave: len(leave) < 10))
def test_first_ball_split_is_computed_from_the_leave(leave):
    game = Game()
    ball = game.roll(10 - len(leave), standing=leave)
    assert ball.split == is_split(leave)
    assert ball.mark.startswith("S") == ball.split


@given(leaves.filter(lambda leave: 2 <= len(leave) < 10))
def test_split_is_never_computed_for_a_second_ball(leave):
    game = Game()
    game.roll(0)
    assert not game.roll(10 - len(leave), standing=leave).split


def test_is_split_refuses_bad_pins():
    with pytest.raises(BowlingError, match="there is no pin 12"):
        is_split([7, 12])
