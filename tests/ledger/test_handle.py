"""Commands against a match: the rules through ``handle``, refusals that change nothing, and
the audit trail.  Every command in these tests also checks that ``handle`` left its input
untouched and that the invariants hold (see ``helpers.Match``)."""

from __future__ import annotations

import json
import random

import pytest

from alley_poker.ledger import (
    CommandRefused,
    InvariantViolation,
    MatchState,
    check_invariants,
    event_to_record,
    handle,
    replay,
)
from alley_poker.ledger import commands as c
from tests.ledger.helpers import DESK, FEED, START, Match


def test_create_records_the_rule_book_and_test_mode():
    match = Match(start=False, rules={"streak_cap": 4}, ante_cents=250)
    created = match.events[0]
    assert created.type == "match_created" and created.seq == 1
    assert created.data["rules"]["streak_cap"] == 4 and created.data["test_mode"] is True
    assert created.data["actor"] == DESK and created.data["ante_cents"] == 250
    assert match.state.status == "open"


@pytest.mark.parametrize(("command", "reason"), [
    (c.CreateMatch("m1", ["Ann"], actor=DESK), "2-12 bowlers, not 1"),
    (c.CreateMatch("m1", ["Ann", "Ann"], actor=DESK), "listed twice"),
    (c.CreateMatch("m1", ["Ann", " Bob"], actor=DESK), "start or end with a space"),
    (c.CreateMatch("m1", ["Ann", "Bob"], games=0, actor=DESK), "games must be"),
    (c.CreateMatch("m1", ["Ann", "Bob"], ante_cents=50, actor=DESK), "below the house ante"),
    (c.CreateMatch("m1", ["Ann", "Bob"], rules={"streak_cap": "x"}, actor=DESK),
     "rules: streak_cap"),
    (c.CreateMatch("m2", ["Ann", "Bob"], actor=DESK), "not 'm1'"),
    (c.StartMatch(actor=DESK), "does not exist"),
])
def test_bad_creation_is_refused(command, reason):
    state = MatchState.empty("m1")
    with pytest.raises(CommandRefused, match=reason):
        handle(state, command, rng=random.Random(1), now=START)
    assert state.snapshot() == MatchState.empty("m1").snapshot()


def test_the_match_waits_for_every_consent():
    match = Match(start=False, ante_cents=500)
    match.do(c.ConsentToAnte("Ann", actor="bowler:Ann"))
    match.refused(c.StartMatch(actor=DESK), "from Bob")
    match.refused(c.ConsentToAnte("Bob", actor="bowler:Ann"), "or the desk may consent for Bob")
    match.refused(c.ConsentToAnte("Ann", actor="bowler:Ann"), "already consented")
    match.do(c.ConsentToAnte("Bob", actor="bowler:Bob"))
    match.do(c.StartMatch(actor=DESK))
    assert match.state.pot_cents == 1000 and match.state.paid == {"Ann": 500, "Bob": 500}
    assert len(match.state.pile) == 54


def test_start_records_the_whole_pile_order():
    match = Match()
    started = next(e for e in match.events if e.type == "match_started")
    assert sorted(started.data["pile"]) == sorted(match.state.pile)
    assert len(set(started.data["pile"])) == 54
    assert started.data["powers"] == {"JOKER-A": "good", "JOKER-B": "bad"}


def test_impossible_balls_are_refused_with_the_reason():
    match = Match()
    match.ball("Ann", 7)
    match.refused(c.RecordBall("Ann", None, 4, actor=FEED), "only 3 pins standing")
    match.refused(c.RecordBall("Zed", None, 4, actor=FEED), "no bowler 'Zed'")
    match.refused(c.RecordBall("Ann", 2, 4, actor=FEED), "game must be 1 to 1")
    match.refused(c.RecordBall("Ann", None, -1, actor=FEED), "cannot knock down -1")
    match.refused(c.RecordBall("Ann", None, 3, actor=""), "names its actor")


def test_games_are_bowled_in_order():
    match = Match(games=2)
    match.refused(c.RecordBall("Ann", 2, 4, actor=FEED), "has not finished game 1")
    match.balls("Ann", *[10] * 12)
    match.refused(c.RecordBall("Ann", 1, 4, actor=FEED), "game 1 is already complete")
    match.ball("Ann", 3)
    assert match.state.current_game("Ann") == 2


def test_streak_spans_games_when_configured():
    match = Match(games=2, rules={"streak_spans_games": True, "first_strike_bonus": 0})
    match.balls("Ann", *[9, 0] * 9, 10, 10, 10)   # ends game 1 on three strikes (2, 3, 3)
    assert len(match.state.hands["Ann"]) == 8
    match.ball("Ann", 10)                       # game 2, frame 1: the streak carries: 3
    assert len(match.state.hands["Ann"]) == 11


def test_streak_resets_between_games_by_default():
    match = Match(games=2, rules={"first_strike_bonus": 0})
    match.balls("Ann", *[9, 0] * 9, 10, 10, 10)
    match.ball("Ann", 10)
    assert len(match.state.hands["Ann"]) == 10


def test_gutter_detection_flag_only_ignores_inference():
    match = Match(rules={"gutter_detection": "flag_only"})
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.balls("Ann", 0, 0)                   # no flag: not a gutter ball under flag_only
    assert match.state.pending_for("Ann") == []
    match.ball("Ann", 0, gutter=True)
    assert [d["kind"] for d in match.state.pending_for("Ann")] == ["lose_card"]


def test_full_rack_detection_ignores_a_false_flag():
    match = Match(rules={"gutter_detection": "full_rack"})
    match.ball("Ann", 0, gutter=False)
    assert match.state.hole["Ann"] == -1


def test_a_flag_saying_not_a_gutter_wins_by_default():
    match = Match()
    match.ball("Ann", 0, gutter=False)         # e.g. the ball hit the pins' deck but missed
    assert match.state.hole["Ann"] == 0


def test_choices_validated_against_a_state_that_moved_on():
    """Bob chooses to steal Ann's QS, but Ann already lost it: refused, decision stays open."""
    match = Match()
    match.stack("AS", "KS", "QS", "2C")
    match.ball("Ann", 10)                              # AS KS QS
    match.ball("Bob", 8, standing=[7, 10])
    match.ball("Bob", 2)                               # split pickup: 2C and a steal
    match.ball("Ann", 0, gutter=True)                  # Ann must lose a card
    match.do(c.DecideLoseCard("Ann", "QS", actor="bowler:Ann"))
    match.refused(c.DecideSteal("Bob", "Ann", "QS", actor="bowler:Bob"), "Ann does not hold QS")
    assert [d["kind"] for d in match.state.pending_for("Bob")] == ["steal"]
    match.refused(c.DecideSteal("Bob", "Bob", "2C", actor="bowler:Bob"), "from themselves")
    match.refused(c.DecideSteal("Bob", "Ann", "KS", actor="bowler:Ann"), "desk may decide for Bob")
    match.do(c.DecideSteal("Bob", "Ann", "KS", actor="commissioner:pat"))
    assert match.hand("Bob") == ["2C", "KS"] and match.hand("Ann") == ["AS"]
    closed = [e for e in match.events if e.type == "decision_closed"][-1]
    assert closed.data["actor"] == "commissioner:pat"


def test_lose_card_refusals():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.ball("Ann", 0, gutter=True)
    match.refused(c.DecideLoseCard("Ann", "2D", actor="bowler:Ann"), "Ann does not hold 2D")
    match.refused(c.DecideLoseCard("Ann", "XX", actor="bowler:Ann"), "bad card 'XX'")
    match.refused(c.DecideGuess("Ann", "up", actor="bowler:Ann"), "'left' or 'right'")
    match.do(c.DecideGuess("Ann", "left", actor="bowler:Ann"))
    match.refused(c.DecideLoseCard("Ann", "AS", actor="bowler:Ann"), "waiting for the ball")
    match.refused(c.DecideGuess("Ann", "right", actor="bowler:Ann"), "already made")
    guess = match.state.pending_for("Ann")[0]["guess"]
    assert guess["side"] == "left" and guess["at"].endswith("Z")
    match.do(c.RecordGuessOutcome("Ann", "right", actor="bowler:Ann"))
    match.refused(c.RecordGuessOutcome("Ann", "right", actor="bowler:Ann"), "no guess waiting")
    match.do(c.DecideLoseCard("Ann", "KS", actor="bowler:Ann"))
    assert match.hand("Ann") == ["AS", "QS"]


def test_guess_not_offered_when_the_house_says_no():
    match = Match(rules={"guess_allowed": False})
    match.stack("AS")
    match.ball("Ann", 9)
    match.ball("Ann", 1)
    match.ball("Ann", 0, gutter=True)
    match.refused(c.DecideGuess("Ann", "left", actor="bowler:Ann"), "house rules")


def test_expiry_waits_for_the_deadline():
    match = Match(rules={"lose_card_deadline_s": 60})
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.ball("Ann", 0, gutter=True)
    match.refused(c.ExpireDecision("Ann"), "is not due until")
    match.later(60)
    match.do(c.ExpireDecision("Ann"))
    assert match.hand("Ann") == ["AS", "KS"]        # losing QS leaves the strongest hand


def test_a_second_loss_with_no_card_left_goes_into_the_hole():
    match = Match()
    match.stack("AS")
    match.balls("Ann", 9, 1)                           # AS
    match.ball("Ann", 0, gutter=True)                  # decision 1
    match.ball("Ann", 0)
    match.ball("Ann", 0, gutter=True)                  # decision 2 (AS still held)
    match.do(c.DecideLoseCard("Ann", "AS", actor="bowler:Ann"))
    match.later(3600)
    match.do(c.ExpireDecision("Ann"))
    assert match.state.hole["Ann"] == -1 and match.state.pending_for("Ann") == []


def test_stacking_is_refused_outside_test_mode():
    match = Match(test_mode=False)
    match.refused(c.StackPile(["AS"], actor=DESK), "not created in test mode")


def test_stack_names_cards_in_the_pile_only():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.refused(c.StackPile(["AS"], actor=DESK), "AS is not in the draw pile (Ann holds it)")
    match.refused(c.StackPile(["2C", "2C"], actor=DESK), "named twice")


def test_empty_pile_skip_rule():
    rules = {"strike_cards": 10, "streak_cap": 10, "first_strike_bonus": 0,
             "empty_pile": "skip"}
    match = Match(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"], rules=rules)
    for bowler in ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]:
        match.ball(bowler, 10)
    assert [len(match.state.hands[b]) for b in match.state.bowlers] == [10, 10, 10, 10, 10, 4]
    assert sum(1 for e in match.events if e.type == "draw_skipped") == 6


def test_commissioner_only_actions():
    match = Match()
    match.refused(c.CommissionerVoidMatch(actor="bowler:Ann"), "only the desk may do this")
    match.refused(c.HollandDaze("Ann", actor="bowler:Bob"), "or reported by the scorer")
    match.refused(c.CommissionerConfirmResult(actor=DESK), "no result to confirm")
    match.refused(c.CommissionerUndoLastAction(actor=DESK), "nothing the desk did")


def test_add_and_remove_bowlers_only_before_the_first_ball():
    match = Match()
    match.do(c.CommissionerAddBowler("Cy", "late arrival", actor=DESK))
    assert match.state.paid["Cy"] == 100 and match.state.pot_cents == 300
    match.refused(c.CommissionerAddBowler("Cy", actor=DESK), "already in the match")
    match.do(c.CommissionerRemoveBowler("Ann", actor=DESK))
    assert match.state.bowlers == ["Bob", "Cy"] and match.state.pot_cents == 200
    match.refused(c.CommissionerRemoveBowler("Bob", actor=DESK), "at least 2 bowlers")
    match.ball("Bob", 3)
    match.refused(c.CommissionerAddBowler("Dee", actor=DESK), "only before the first ball")


def _finish_one_game(match: Match) -> None:
    """Everyone bowls 9-0 frames until their game is complete."""
    while match.state.status == "playing":
        for bowler in match.state.bowlers:
            if match.state.current_game(bowler) <= match.state.games:
                match.balls(bowler, 9, 0)


def test_end_of_match_sequence_and_settlement():
    match = Match()
    match.stack("AS", "KS")
    match.balls("Ann", 9, 1)                           # AS; Ann's series is higher
    match.balls("Bob", 9, 1)                           # KS
    _finish_one_game(match)
    state = match.state
    assert state.status == "ending" and state.series == {"Ann": 100, "Bob": 100}
    assert [d["kind"] for d in state.decisions.values()] == ["end_draw", "end_draw"]
    match.refused(c.DecideBuy("Ann", True, actor="bowler:Ann"), "no offer to buy a card waiting")
    match.refused(c.CommissionerConfirmResult(actor=DESK), "still open")
    match.do(c.DecideEndDraw("Ann", False, actor="bowler:Ann"))
    match.do(c.DecideEndDraw("Bob", False, actor="bowler:Bob"))
    assert [d["kind"] for d in state.decisions.values()] == ["buy", "buy"]
    match.do(c.DecideBuy("Ann", False, actor="bowler:Ann"))
    match.do(c.DecideBuy("Bob", False, actor="bowler:Bob"))
    assert state.result["winners"] == ["Ann"] and state.status == "ending"
    match.refused(c.RecordBall("Ann", None, 3, actor=FEED), "while the match is playing")
    match.do(c.CommissionerConfirmResult(actor=DESK))
    assert state.status == "settled" and state.won == {"Ann": 200, "Bob": 0}
    match.refused(c.DecideBuy("Ann", True, actor="bowler:Ann"), "is settled")
    # A confirmed result is undone by compensating events, then confirmed again.
    match.do(c.CommissionerUndoResult("wrong winner keyed", actor=DESK))
    assert state.status == "ending" and state.won == {"Ann": 0, "Bob": 0}
    assert state.pot_cents == 200
    match.do(c.CommissionerConfirmResult(actor=DESK))
    assert state.won == {"Ann": 200, "Bob": 0}
    types = [e.type for e in match.events]
    assert types.count("payout") == 2 and types.count("result_undone") == 1
    assert match.replayed() == state


def test_end_draw_expiry_declines_for_an_unbeatable_hand():
    match = Match()
    match.stack("GJ")
    match.balls("Ann", 9, 1)                            # a Morgan Maneuver
    match.balls("Bob", 10)                              # Bob scores more
    _finish_one_game(match)
    assert [d["kind"] for d in match.state.pending_for("Ann")] == ["end_draw"]
    match.later(10_000)
    match.do(c.ExpireDecision("Ann"))
    assert match.hand("Ann") == ["GJ"]


def test_odd_cents_to_the_house():
    match = Match(["Ann", "Bob", "Cy"], rules={"odd_cents": "house", "lowest_score_draw": False,
                                                "buy_in": False}, ante_cents=101)
    _finish_one_game(match)                            # nobody holds a card: a 3-way tie
    assert match.state.result["shares"] == {"Ann": 101, "Bob": 101, "Cy": 101}
    match = Match(["Ann", "Bob"], rules={"odd_cents": "house", "lowest_score_draw": False,
                                         "buy_in": False}, ante_cents=101)
    match.stack("AS", "AH", "AD")
    match.balls("Ann", 10)
    _finish_one_game(match)
    match.do(c.CommissionerConfirmResult(actor=DESK))
    assert match.state.won == {"Ann": 202, "Bob": 0} and match.state.pot_cents == 0


def test_a_match_voided_before_it_starts_is_void_with_nothing_dealt():
    match = Match(("Ann", "Bob"), start=False)
    match.do(c.ConsentToAnte("Ann", actor="bowler:Ann"))
    match.do(c.CommissionerVoidMatch(reason="Bob never showed", actor=DESK))
    assert match.state.status == "void"
    assert match.state.pile == [] and match.state.pot_cents == 0
    assert replay("m1", match.events) == match.state
    match.refused(c.StartMatch(actor=DESK), "is void")


def test_void_refunds_and_ends_everything():
    match = Match()
    match.ball("Ann", 0, gutter=True)
    match.do(c.CommissionerVoidMatch("power cut", actor=DESK))
    assert match.state.status == "void" and match.state.pot_cents == 0
    match.refused(c.RecordBall("Bob", None, 3, actor=FEED), "is void")
    match.refused(c.CommissionerVoidMatch(actor=DESK), "is void")


def test_undo_restores_the_state_before_the_last_action():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.ball("Ann", 0, gutter=True)
    before = match.state.snapshot()
    match.do(c.DecideLoseCard("Ann", "KS", actor=DESK))  # for Ann, at the desk
    match.do(c.CommissionerUndoLastAction("chose by mistake", actor=DESK))
    assert match.hand("Ann") == ["AS", "KS", "QS"]
    assert [d["kind"] for d in match.state.pending_for("Ann")] == ["lose_card"]
    match.refused(c.CommissionerUndoLastAction(actor=DESK), "nothing the desk did")
    undone = match.events[-1]
    assert undone.type == "action_undone" and undone.data["reason"] == "chose by mistake"
    restored = match.state.snapshot()
    assert {k: v for k, v in restored.items() if k not in ("seq", "undo_point")} == {
        k: v for k, v in before.items() if k not in ("seq", "undo_point")}
    assert match.replayed() == match.state


def test_correction_that_owes_cards_and_a_dismissed_review():
    match = Match()
    match.stack("AS", "KS")
    match.ball("Ann", 9)
    match.do(c.CorrectBall("Ann", 1, 1, 1, 10, reason="missed strike", actor=FEED))
    (review,) = match.state.reviews.values()
    assert review["remedy"] == {"take_back": [], "deal": 3, "lose": 0}
    assert "dealt 0 cards; the corrected balls earn 3" in review["description"]
    assert match.hand("Ann") == []                      # never silently re-dealt
    match.do(c.CommissionerApplyReview(review["id"], actor=DESK))
    assert match.hand("Ann") == ["AS", "KS", match.hand("Ann")[2]]
    match.do(c.CorrectBall("Ann", 1, 1, 1, 10, reason="same again", actor=FEED))
    assert match.state.reviews == {}                    # nothing differs: no review
    match.ball("Ann", 0, gutter=True)
    match.do(c.CorrectBall("Ann", 1, 2, 1, 2, actor=FEED))
    (review,) = match.state.reviews.values()
    assert review["difference"]["losses"] == -1
    match.refused(c.CommissionerDismissReview(review["id"], actor="feed:x"), "only the desk")
    match.do(c.CommissionerDismissReview(review["id"], "bowler kept it", actor=DESK))
    assert match.state.reviews == {}


def test_correction_making_a_later_ball_impossible_is_refused():
    match = Match()
    match.balls("Ann", 10, 10)
    match.refused(c.CorrectBall("Ann", 1, 1, 1, 9, actor=FEED),
                  "recorded ball 2 of Ann's game 1 is impossible")
    match.refused(c.CorrectBall("Ann", 1, 5, 1, 9, actor=FEED), "no recorded ball 1 in frame 5")


def test_handle_is_pure_and_events_are_json_safe():
    match = Match()
    match.stack("AS", "KS", "QS")
    events = match.ball("Ann", 10)
    assert [e.seq for e in events] == list(range(events[0].seq, events[-1].seq + 1))
    assert all(e.at.tzinfo is not None for e in events)
    records = [event_to_record(e) for e in match.events]
    assert json.loads(json.dumps(records)) == records


def test_apply_refuses_events_out_of_order():
    match = Match()
    stranger = MatchState.empty("other")
    with pytest.raises(InvariantViolation, match="applied to match 'other'"):
        stranger.apply(match.events[0])
    fresh = MatchState.empty("m1")
    with pytest.raises(InvariantViolation, match="seq 2 does not follow 0"):
        fresh.apply(match.events[1])


def test_invariants_catch_a_duplicated_card():
    match = Match()
    match.stack("AS")
    match.balls("Ann", 9, 1)
    match.state.hands["Bob"].append("AS")
    with pytest.raises(InvariantViolation, match="AS is in 2 places"):
        check_invariants(match.state)


def test_showdown_waits_for_a_card_loss_still_pending():
    match = Match(rules={"lowest_score_draw": False, "buy_in": False})
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.balls("Ann", *[9, 0] * 8, 9)
    match.balls("Bob", *[9, 0] * 10)
    match.ball("Ann", 0, gutter=True)                  # Ann's last ball: a gutter ball
    state = match.state
    assert state.status == "ending" and state.result is None
    assert [d["kind"] for d in state.pending_for("Ann")] == ["lose_card"]
    match.refused(c.CommissionerConfirmResult(actor=DESK), "Ann's choice of a card to lose")
    match.do(c.DecideLoseCard("Ann", "AS", actor="bowler:Ann"))
    assert state.result["winners"] == ["Ann"]
    assert state.result["hands"]["Ann"]["hand"] == ["KS", "QS"]


def test_a_feed_may_report_a_holland_daze_and_it_lapses_pending_choices():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.ball("Ann", 0, gutter=True)
    match.do(c.HollandDaze("Ann", "scorer: wrong-lane correction", actor="feed:lane-4"))
    assert match.state.hands["Ann"] == [] and match.state.pending_for("Ann") == []
    assert len(match.state.pile) == 54
    kinds = [(e.type, e.data.get("outcome")) for e in match.events[-6:]]
    assert ("decision_closed", "lapsed") in kinds


def test_rules_doc_explains_every_option():
    from pathlib import Path

    from alley_poker.ledger import RuleBook

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    for key in RuleBook.model_fields:
        if key != "name":
            assert f"`{key}`" in text or f"`{key} =" in text, key


def test_undo_skips_the_scorers_balls_and_takes_back_the_ruling():
    """The reproduction of issue 13 in the ledger: a Holland-daze, scorer balls after it, then
    undo: the ruling is taken back, every scorer ball stays where it was."""
    match = Match(("Ann", "Bob", "Cal"))
    match.stack("AS", "KS", "QS", "2C", "3C", "4C")
    match.ball("Ann", 10)                              # Ann: AS KS QS
    ruling = match.do(c.HollandDaze("Ann", "wrong lane", actor=DESK))
    assert match.hand("Ann") == []
    match.ball("Cal", 10)                              # the scorer bowls on
    match.ball("Bob", 7)
    cal_cards = match.hand("Cal")
    from alley_poker.ledger.undo import undoable_action
    last = undoable_action(match.state)
    assert last["action"] == ruling[0].seq and last["bowler"] == "Ann"
    assert last["what"] == "the Holland-daze ruling on Ann"
    assert "Ann's 3 cards (A♠ K♠ Q♠) return to their hand" in last["undo"]
    assert "2 later actions" in last["undo"]
    match.do(c.CommissionerUndoLastAction("tapped the wrong bowler", action=last["action"],
                                          actor=DESK))
    assert sorted(match.hand("Ann")) == ["AS", "KS", "QS"]
    assert match.hand("Cal") == cal_cards              # dealt the same cards as before
    assert [(b["frame"], b["ball"], b["pins"]) for b in match.state.balls["Cal"][0]] == \
        [(1, 1, 10)]
    assert [(b["frame"], b["ball"], b["pins"]) for b in match.state.balls["Bob"][0]] == \
        [(1, 1, 7)]
    assert match.replayed() == match.state
    match.refused(c.CommissionerUndoLastAction(actor=DESK),
                  "nothing the desk did that can be undone")


def test_undo_names_the_action_and_refuses_when_another_became_last():
    match = Match()
    first = match.do(c.HollandDaze("Ann", actor=DESK))
    second = match.do(c.HollandDaze("Bob", actor=DESK))
    refused = match.refused(c.CommissionerUndoLastAction(action=first[0].seq, actor=DESK),
                            f"is now #{second[0].seq}: the Holland-daze ruling on Bob")
    assert refused.field == "action"


def test_a_scorer_ball_alone_is_never_undone():
    match = Match()
    match.ball("Ann", 10)
    match.refused(c.CommissionerUndoLastAction(actor=DESK), "scorer's balls")
    assert match.state.balls["Ann"][0][0]["pins"] == 10


def test_undo_of_a_desk_ball_returns_its_cards_and_keeps_later_scorer_balls():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.do(c.RecordBall("Ann", None, 10, actor=DESK))  # entered at the desk by mistake
    match.ball("Bob", 3)
    match.do(c.CommissionerUndoLastAction("entered twice", actor=DESK))
    assert match.state.balls["Ann"][0] == [] and match.hand("Ann") == []
    assert match.state.pile[:3] == ["AS", "KS", "QS"]
    assert [b["pins"] for b in match.state.balls["Bob"][0]] == [3]


def test_undo_refused_when_a_later_ball_of_the_bowler_would_move():
    match = Match()
    match.do(c.RecordBall("Ann", None, 7, actor=DESK))
    match.ball("Ann", 2)                               # the scorer's second ball of frame 1
    before = match.state.snapshot()
    match.refused(c.CommissionerUndoLastAction(actor=DESK), "correct the ball instead")
    assert match.state.snapshot() == before


def test_undo_re_applies_bowler_choices_made_since():
    match = Match()
    match.stack("AS", "KS", "QS")
    match.ball("Ann", 10)
    match.do(c.HollandDaze("Bob", actor=DESK))         # Bob held nothing: a harmless ruling
    match.ball("Ann", 0, gutter=True)
    match.do(c.DecideLoseCard("Ann", "KS", actor="bowler:Ann"))
    match.do(c.CommissionerUndoLastAction(actor=DESK))
    assert sorted(match.hand("Ann")) == ["AS", "QS"]   # her choice still stands
    assert match.state.decisions == {}
    assert match.replayed() == match.state


def test_undo_after_settlement_is_refused_with_the_way_forward():
    match = Match()
    match.do(c.CommissionerVoidMatch("rain", actor=DESK))
    match.refused(c.CommissionerUndoLastAction(actor=DESK), "void")
