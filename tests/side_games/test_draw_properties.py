"""Properties of the bracket draw: for any entries, nobody is twice in a bracket or meets
themselves, every entry is placed or comes back, the draw follows from the seed and the set of
entries only (never the order they were recorded in), and no round-one match-up repeats when
no bowler has more than four entries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from alley_poker.fairness.deal import Drbg
from alley_poker.side_games.draw import DrawPreview, bracket_count, draw_brackets, preview
from alley_poker.side_games.rounds import GameScore, decide_bracket
from tests.side_games.nights import handicap_brackets

SALT = "tue-2026-11-24/2026-11-24"

entries_strategy = st.dictionaries(st.integers(1, 60), st.integers(1, 10), max_size=40)
seeds = st.binary(min_size=32, max_size=32)


def draw(entries, seed, number=1, *, sevens=True):
    stream = Drbg(seed, SALT).stream("bracket-draw", number)
    return draw_brackets(entries, seven_bowler_brackets=sevens, stream=stream)


@settings(max_examples=40, deadline=None)
@given(entries_strategy, seeds, st.booleans())
def test_nobody_twice_in_a_bracket_and_every_entry_placed_or_back(entries, seed, sevens):
    drawn = draw(entries, seed, sevens=sevens)
    placed: dict[int, int] = {}
    for bracket in drawn.brackets:
        bowlers = bracket.bowlers
        assert len(set(bowlers)) == len(bowlers), "a bowler twice in one bracket"
        assert len(bowlers) == 8 or (sevens and len(bowlers) == 7)
        assert len(bracket.slots) == 8
        for bowler in bowlers:
            placed[bowler] = placed.get(bowler, 0) + 1
    for bowler, count in entries.items():
        assert placed.get(bowler, 0) + drawn.unplaced.get(bowler, 0) == count
    assert set(drawn.unplaced) <= set(entries)
    assert len(drawn.brackets) == bracket_count(entries, seven_bowler_brackets=sevens)
    told = preview(entries, seven_bowler_brackets=sevens)      # what the desk saw before
    assert (told.brackets, told.left_over) == (len(drawn.brackets), sum(drawn.unplaced.values()))
    assert told.sevens == sum(len(b.bowlers) == 7 for b in drawn.brackets)


@settings(max_examples=40, deadline=None)
@given(entries_strategy, seeds)
def test_nobody_meets_themselves_in_any_round(entries, seed):
    drawn = draw(entries, seed)
    scores = {(b, g): GameScore(100 + (b * 37 + g * 11) % 150, handicap=b % 30)
              for b in entries for g in (1, 2, 3)}
    for bracket in drawn.brackets:
        outcome = decide_bracket(bracket, handicap_brackets(), scores)
        for match in outcome.matches:
            a, b = match.sides
            assert a is None or a != b
        assert outcome.finished
        assert sum(outcome.payouts.values()) == sum(
            handicap_brackets().prizes_cents(len(bracket.bowlers)))


@settings(max_examples=40, deadline=None)
@given(entries_strategy, seeds, st.randoms(use_true_random=False))
def test_the_same_seed_and_entries_give_the_same_brackets_in_any_order(entries, seed, rnd):
    shuffled = list(entries.items())
    rnd.shuffle(shuffled)
    assert draw(dict(shuffled), seed) == draw(entries, seed)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.integers(1, 40), st.integers(1, 4), max_size=40), seeds)
def test_no_round_one_match_up_repeats_when_nobody_has_more_than_four_entries(entries, seed):
    assert draw(entries, seed).repeated_match_ups == 0


def test_a_different_seed_or_use_draws_differently():
    entries = {b: 2 for b in range(1, 17)}
    first = draw(entries, bytes(range(32)))
    assert first != draw(entries, bytes(32))
    assert first != draw(entries, bytes(range(32)), number=2)    # the second game draws apart
    assert first == draw(entries, bytes(range(32)))


def test_the_entries_fill_as_many_brackets_as_they_can():
    # 15 singles: one full bracket and one of seven (with a bye), or one and 7 back.
    singles = {b: 1 for b in range(1, 16)}
    assert bracket_count(singles, seven_bowler_brackets=True) == 2
    eights_only = draw(singles, bytes(32), sevens=False)
    assert len(eights_only.brackets) == 1
    assert set(eights_only.unplaced.values()) == {1} and len(eights_only.unplaced) == 7
    # A bowler cannot be in more brackets than there are: the extra entries come back.
    heavy = {1: 10, **{b: 1 for b in range(2, 9)}}
    drawn = draw(heavy, bytes(32))
    assert [len(b.bowlers) for b in drawn.brackets] == [8] and drawn.unplaced == {1: 9}
    # Full brackets are preferred to sevens when both place every entry (56 = 7x8 = 8x7).
    assert bracket_count({b: 7 for b in range(1, 9)}, seven_bowler_brackets=True) == 7


def test_fourteen_bowlers_and_an_unfilled_ninth_bracket():
    """The issue's demo night: 14 bowlers buy 68 entries, 9 brackets' worth bar four."""
    entries = {b: (6 if b <= 10 else 2) for b in range(1, 15)}   # 72 - 4 = 68
    assert sum(entries.values()) == 68
    with_sevens = draw(entries, bytes(range(32)))
    assert sorted(len(b.bowlers) for b in with_sevens.brackets) == [7] * 4 + [8] * 5
    assert with_sevens.unplaced == {}
    # The desk saw it before the draw: nine brackets, four of seven, two entries short of ten.
    assert preview(entries, seven_bowler_brackets=True) == DrawPreview(9, 4, 0, 2)
    without = draw(entries, bytes(range(32)), sevens=False)
    assert len(without.brackets) == 8 and sum(without.unplaced.values()) == 4
