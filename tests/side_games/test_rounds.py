"""A bracket's rounds decided from the games: ties by each rule, reverse brackets, handicap,
the bye, a corrected game re-deciding a round, and a paid bracket that a correction changes
waiting on the desk."""

from __future__ import annotations

import pytest

from alley_poker.side_games import (
    PayBracket,
    RecordRollOff,
    ResolveChange,
    SideGameError,
)
from alley_poker.side_games.draw import Bracket
from alley_poker.side_games.rounds import GameScore, decide_bracket
from tests.side_games.nights import drawn_night, handicap_brackets

EIGHT = Bracket(1, (1, 2, 3, 4, 5, 6, 7, 8))


def scores_where(winners_by_game: dict[int, set[int]], **fixed):
    """Each bowler scores 200 on a game where they are in the winners' set, else 150."""
    found = {(b, g): GameScore(200 if b in winners_by_game.get(g, set()) else 150)
             for b in range(1, 9) for g in (1, 2, 3)}
    found.update(fixed)
    return found


def match(outcome, round_number, index):
    return outcome.matches[{1: 0, 2: 4, 3: 6}[round_number] + index]


def test_higher_score_goes_through_round_by_round_and_the_final_pays_first_and_second():
    scores = scores_where({1: {1, 3, 5, 7}, 2: {1, 5}, 3: {5}})
    outcome = decide_bracket(EIGHT, handicap_brackets(scoring="scratch"), scores)
    assert [m.winner for m in outcome.matches] == [1, 3, 5, 7, 1, 5, 5]
    assert outcome.payouts == {1: 1000, 5: 3000}
    assert outcome.alive() == (5,)


def test_reverse_brackets_count_game_three_first():
    # Game 3 decides round one: 2, 4, 6, 8 win it; game 1 (the final) goes to 8.
    scores = scores_where({3: {2, 4, 6, 8}, 2: {4, 8}, 1: {8}})
    outcome = decide_bracket(EIGHT, handicap_brackets(games=(3, 2, 1)), scores)
    assert [m.game for m in outcome.matches] == [3, 3, 3, 3, 2, 2, 1]
    assert [m.winner for m in outcome.matches] == [2, 4, 6, 8, 4, 8, 8]
    # Round one is decided before game 1 is bowled at all.
    early = {key: s for key, s in scores.items() if key[1] == 3}
    reverse = decide_bracket(EIGHT, handicap_brackets(games=(3, 2, 1)), early)
    assert [m.status for m in reverse.matches[:4]] == ["decided"] * 4
    assert reverse.matches[4].status == "scores"


def test_handicap_turns_a_scratch_loss_into_a_win():
    scores = scores_where({})
    scores[1, 1] = GameScore(180, handicap=40)      # 220 with handicap
    scores[2, 1] = GameScore(200, handicap=5)       # 205
    scratch = decide_bracket(EIGHT, handicap_brackets(scoring="scratch"), scores)
    handicap = decide_bracket(EIGHT, handicap_brackets(scoring="handicap"), scores)
    assert match(scratch, 1, 0).winner == 2 and match(handicap, 1, 0).winner == 1


def test_a_tie_goes_to_the_next_counted_game_then_to_a_roll_off():
    scores = scores_where({2: {2}})                 # 1 and 2 tie game 1; 2 wins game 2
    outcome = decide_bracket(EIGHT, handicap_brackets(), scores)
    assert (match(outcome, 1, 0).winner, match(outcome, 1, 0).how) == (2, "next game 2")
    level = scores_where({})                        # everyone ties every game
    tied = decide_bracket(EIGHT, handicap_brackets(), level)
    assert match(tied, 1, 0).status == "roll_off"
    assert match(tied, 2, 0).status == "earlier" and match(tied, 2, 0).sides == (None, None)
    rolled = decide_bracket(EIGHT, handicap_brackets(), level, {(1, 1, 0): 2})
    assert (match(rolled, 1, 0).winner, match(rolled, 1, 0).how) == (2, "roll-off")
    # A tie-break game not bowled yet: the match waits on it.
    waiting = {key: s for key, s in level.items() if key[1] == 1}
    assert match(decide_bracket(EIGHT, handicap_brackets(), waiting), 1, 0).status == "scores"


def test_the_roll_off_rule_skips_the_next_game():
    scores = scores_where({2: {2}})
    outcome = decide_bracket(EIGHT, handicap_brackets(tie_rule="roll_off"), scores)
    assert match(outcome, 1, 0).status == "roll_off"


def test_a_tied_final_splits_first_and_second_under_the_split_rule_to_the_cent():
    # 1 and 5 reach the final (game 3) and tie it; $7.00 + $2.99 + $0.01 organiser.
    settings = handicap_brackets(entry_cents=125, payouts_cents=(700, 299), organiser_cents=1,
                                 tie_rule="split", seven_bowler_brackets=False)
    scores = scores_where({1: {1, 3, 5, 7}, 2: {1, 5}, 3: {1, 5}})
    outcome = decide_bracket(EIGHT, settings, scores)
    assert match(outcome, 3, 0).how == "split"
    assert outcome.payouts == {1: 500, 5: 499}          # the odd cent: lower bowler id
    # An earlier round's tie under "split" still goes to the next game.
    assert match(decide_bracket(EIGHT, settings, scores_where({1: {3, 5, 7}, 2: {2}})),
                 1, 0).winner == 2


def test_a_bye_goes_through_and_a_seven_bracket_pays_one_entry_less_first():
    seven = Bracket(2, (1, None, 3, 4, 5, 6, 7, 8))
    scores = scores_where({1: {3, 5, 7}, 2: {1, 5}, 3: {1}})
    outcome = decide_bracket(seven, handicap_brackets(), scores)
    assert (match(outcome, 1, 0).winner, match(outcome, 1, 0).how) == (1, "bye")
    assert outcome.payouts == {1: 2500, 5: 1000} and outcome.size == 7


def test_a_corrected_game_re_decides_an_unpaid_round():
    night = drawn_night({b: 1 for b in range(1, 9)})
    bracket = night.night.book("hdcp").drawn[0]
    a, b = bracket.slots[0], bracket.slots[1]
    night.score(a, 1, 190)
    night.score(b, 1, 180)
    assert match(night.night.brackets("hdcp")[0], 1, 0).winner == a
    night.score(b, 1, 200)                                   # the scorer's correction
    assert match(night.night.brackets("hdcp")[0], 1, 0).winner == b
    assert night.score(b, 1, 200) == []                      # the same game again: nothing


def finished_night():
    night = drawn_night({b: 1 for b in range(1, 9)})
    for bowler in range(1, 9):
        for game in (1, 2, 3):
            night.score(bowler, game, 100 + bowler * 10)     # the higher id wins every game
    return night


def test_a_paid_bracket_is_never_re_decided_silently():
    night = finished_night()
    night.do(PayBracket("hdcp", 1))
    assert night.night.book("hdcp").paid[1].payouts == {7: 1000, 8: 3000}
    with pytest.raises(SideGameError, match="paid already"):
        night.do(PayBracket("hdcp", 1))
    night.score(7, 3, 290)                                   # a corrected final game
    money = night.night.money()
    assert money.payouts_cents == 4000 and money.balanced   # still what was paid
    [change] = night.night.pending_changes()
    assert (change.game, change.bracket) == ("hdcp", 1)
    assert change.paid.payouts == {7: 1000, 8: 3000} and change.now.payouts == {7: 3000, 8: 1000}
    with pytest.raises(SideGameError, match="say why"):
        night.do(ResolveChange("hdcp", 1, accept=True, reason=" "))
    night.do(ResolveChange("hdcp", 1, accept=True, reason="scorer corrected frame 10"))
    assert night.night.pending_changes() == []
    assert night.night.book("hdcp").paid[1].payouts == {7: 3000, 8: 1000}
    assert night.night.money().balanced


def test_the_desk_may_keep_a_paid_result_until_the_games_change_again():
    night = finished_night()
    night.do(PayBracket("hdcp", 1))
    night.score(7, 3, 290)
    night.do(ResolveChange("hdcp", 1, accept=False, reason="paid out in cash already"))
    assert night.night.pending_changes() == []
    night.score(7, 3, 180)                   # changed again (a tie now): asked again
    [change] = night.night.pending_changes()
    assert change.now is None                                # undecided: waits on a roll-off
    with pytest.raises(SideGameError, match="roll-off"):
        night.do(ResolveChange("hdcp", 1, accept=True, reason="tie"))
    night.score(7, 3, 170)                                   # back as paid: nothing to ask
    assert night.night.pending_changes() == []


def test_a_tie_waits_for_the_desks_roll_off():
    night = drawn_night({b: 1 for b in range(1, 9)}, tie_rule="roll_off")
    a, b = night.night.book("hdcp").drawn[0].slots[:2]
    night.score(a, 1, 180)
    night.score(b, 1, 180)
    with pytest.raises(SideGameError, match="between bowlers"):
        night.do(RecordRollOff("hdcp", 1, 1, 0, winner=99))
    with pytest.raises(SideGameError, match="no tied match"):
        night.do(RecordRollOff("hdcp", 1, 1, 1, winner=a))
    night.do(RecordRollOff("hdcp", 1, 1, 0, winner=b))
    assert match(night.night.brackets("hdcp")[0], 1, 0).winner == b
    # The bowler's phone: who they face next, still alive.
    [mine] = night.night.bowler_brackets(b)
    assert mine.alive and mine.next_match.round == 2 and mine.opponent is None
    [theirs] = night.night.bowler_brackets(a)
    assert not theirs.alive and theirs.next_match is None
    # The kiosk's still-alive list: everyone but the roll-off's loser, in bracket 1.
    assert night.night.still_alive() == {bowler: [("hdcp", 1)]
                                         for bowler in range(1, 9) if bowler != a}


def test_an_absent_bowler_loses_the_round_to_one_who_bowled():
    from alley_poker.side_games import MarkAbsent

    night = drawn_night({b: 1 for b in range(1, 9)})
    a, b = night.night.book("hdcp").drawn[0].slots[:2]
    night.score(a, 1, 95)
    night.do(MarkAbsent(b, 1))
    first = match(night.night.brackets("hdcp")[0], 1, 0)
    assert (first.winner, first.how) == (a, "score")
    with pytest.raises(SideGameError, match="bowled game 1"):
        night.do(MarkAbsent(a, 1))
    night.score(b, 1, 140)                       # came after all: the game bowled replaces it
    assert match(night.night.brackets("hdcp")[0], 1, 0).winner == b
