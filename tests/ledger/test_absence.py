"""A bowler who is not there (docs/rules.md): the desk marks them absent or gone at any time;
one who has not bowled is refunded and taken out, one who has bowled keeps their hand to the
showdown or folds, as the rule book's ``leaving_bowler`` says; and the desk settles a match as
the hands stand whenever it needs to, with its own reason."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.ledger import replay
from alley_poker.ledger.inputs import action_inputs, command_of_input
from alley_poker.ledger.rules import RuleBook
from alley_poker.ledger.settlement import settle
from tests.ledger.helpers import DESK, FEED, Match


def frames(match: Match, bowlers, count: int, pins=(9, 0)) -> None:
    """``count`` frames of ``pins`` for each of ``bowlers`` in turn, as a lane bowls them."""
    for _ in range(count):
        for bowler in bowlers:
            match.balls(bowler, *pins)


def decline_the_end(match: Match) -> None:
    kinds = {"end_draw": c.DecideEndDraw, "buy": c.DecideBuy}
    while match.state.decisions:
        decision = next(iter(match.state.decisions.values()))
        match.do(kinds[decision["kind"]](decision["bowler"], False,
                                         actor=f"bowler:{decision['bowler']}"))


def balances(match: Match) -> None:
    """Every cent paid in is in the pot or paid out, and the night's nets sum to zero once
    the match is closed."""
    state = match.state
    assert sum(state.paid.values()) == state.pot_cents + sum(state.won.values())
    night = settle([state])
    if night.complete:
        assert night.held_cents == 0 and sum(b.net_cents for b in night.bowlers) == 0


def test_a_no_show_removed_after_the_others_bowled_is_refunded_and_the_money_balances():
    match = Match(("Ann", "Bob", "Cy"), ante_cents=250)
    match.stack("AS", "KD")
    frames(match, ("Ann", "Bob"), 3)             # Cy never comes: three frames without him
    match.balls("Ann", 10)                        # AS and KD to Ann
    assert match.state.pot_cents == 750

    events = match.do(c.CommissionerBowlerGone("Cy", reason="never came", actor=DESK))

    assert [e.type for e in events] == ["bowler_gone", "bowler_removed"]
    assert events[0].data["outcome"] == "removed" and events[0].data["reason"] == "never came"
    assert events[1].data["refund_cents"] == 250
    state = match.state
    assert state.bowlers == ["Ann", "Bob"] and "Cy" not in state.paid
    assert state.pot_cents == 500
    balances(match)
    # The match goes on and finishes without him, to the cent.
    frames(match, ("Bob", "Ann"), 1)
    while state.status == "playing":
        for bowler in state.bowlers:
            if state.current_game(bowler) <= state.games:
                match.balls(bowler, 9, 0)
        state = match.state
    decline_the_end(match)
    match.do(c.CommissionerConfirmResult(actor=DESK))
    assert match.state.status == "settled" and match.state.won["Ann"] == 500
    balances(match)
    night = settle([match.state])
    assert {b.bowler: b.net_cents for b in night.bowlers} == {"Ann": 250, "Bob": -250}


def test_the_last_ball_of_the_others_ends_the_match_when_the_no_show_goes():
    match = Match(("Ann", "Bob", "Cy"))
    while match.state.current_game("Ann") <= 1:
        match.balls("Ann", 9, 0)
        match.balls("Bob", 9, 0)
    assert match.state.status == "playing", "the match waits for Cy"
    match.do(c.CommissionerBowlerGone("Cy", reason="no show", actor=DESK))
    assert match.state.status == "ending"
    assert match.state.series == {"Ann": 90, "Bob": 90}
    assert sorted(d["bowler"] for d in match.state.decisions.values()) == ["Ann", "Bob"]


def test_a_no_show_in_a_two_bowler_match_is_voided_not_removed():
    match = Match(("Ann", "Bob"))
    match.balls("Ann", 7, 2)
    refused = match.refused(c.CommissionerBowlerGone("Bob", reason="no show", actor=DESK),
                            "needs at least 2 bowlers")
    assert "void the match" in str(refused)


def test_a_bowler_who_leaves_mid_match_keeps_their_hand_to_the_showdown_by_default():
    assert RuleBook.default().leaving_bowler == "keeps_hand"
    match = Match(("Ann", "Bob", "Cy"), games=2)
    match.stack("AS", "AH", "2C", "3D")
    match.balls("Ann", 10)                       # AS AH, and 2C for the game's first strike
    match.balls("Bob", 9, 0)
    match.balls("Cy", 9, 1)                                  # 3D
    match.do(c.RecordBall("Ann", None, 0, gutter=True, actor=FEED))
    assert [d["kind"] for d in match.state.pending_for("Ann")] == ["lose_card"]

    events = match.do(c.CommissionerBowlerGone("Ann", reason="babysitter called",
                                               actor=DESK))

    assert events[0].type == "bowler_gone" and events[0].data["outcome"] == "keeps_hand"
    closed = next(e for e in events if e.type == "decision_closed")
    assert closed.data["outcome"] == "left", "her card to lose is chosen as at its deadline"
    state = match.state
    assert state.decisions == {} and state.hands["Ann"] == ["AS", "AH"], "2C went"
    assert state.gone == {"Ann": "keeps_hand"} and state.paid["Ann"] == 100
    match.refused(c.RecordBall("Ann", None, 7, actor=FEED), "Ann has left the match")
    # The others bowl both games; the match ends without waiting for Ann.
    while state.status == "playing":
        for bowler in ("Bob", "Cy"):
            if state.current_game(bowler) <= state.games:
                match.balls(bowler, 9, 0)
        state = match.state
    assert state.status == "ending"
    assert "Ann" not in state.lowest and {d["bowler"] for d in state.decisions.values()} <= {
        "Bob", "Cy"}, "no end draw and no buy for a bowler who is not there"
    decline_the_end(match)
    match.do(c.CommissionerConfirmResult(actor=DESK))
    assert match.state.result["winners"] == ["Ann"], "her ace still wins"
    assert match.state.won == {"Ann": 300, "Bob": 0, "Cy": 0}
    balances(match)


def test_a_bowler_who_leaves_mid_match_folds_where_the_rule_book_says_so():
    match = Match(("Ann", "Bob", "Cy"), rules={"leaving_bowler": "folds"})
    match.stack("AS", "AH", "2C", "KD")
    match.balls("Ann", 10)                       # AS AH, and 2C for the game's first strike
    match.balls("Bob", 9, 1)                                 # KD
    match.balls("Cy", 9, 0)

    events = match.do(c.CommissionerBowlerGone("Ann", reason="went home", actor=DESK))

    assert events[0].data["outcome"] == "folds"
    assert sorted(e.data["card"] for e in events if e.type == "card_returned") == ["2C", "AH", "AS"]
    state = match.state
    assert state.hands["Ann"] == [] and "AS" in state.pile and state.paid["Ann"] == 100
    assert state.pot_cents == 300, "her ante stays in the pot"
    while state.status == "playing":
        for bowler in ("Bob", "Cy"):
            if state.current_game(bowler) <= state.games:
                match.balls(bowler, 9, 0)
        state = match.state
    decline_the_end(match)
    match.do(c.CommissionerConfirmResult(actor=DESK))
    result = match.state.result
    assert result["winners"] == ["Bob"] and "Ann" not in result["hands"]
    assert match.state.won == {"Ann": 0, "Bob": 300, "Cy": 0}
    balances(match)


def test_the_last_bowler_still_bowling_cannot_leave_and_a_gone_bowler_cannot_go_twice():
    match = Match(("Ann", "Bob"))
    match.balls("Ann", 9, 0)
    match.balls("Bob", 9, 0)
    match.do(c.CommissionerBowlerGone("Ann", reason="went home", actor=DESK))
    match.refused(c.CommissionerBowlerGone("Ann", reason="again", actor=DESK),
                  "already marked as gone")
    match.refused(c.CommissionerBowlerGone("Bob", reason="went home", actor=DESK),
                  "settle the match as the hands stand instead")
    match.refused(c.CommissionerBowlerGone("Zed", reason="?", actor=DESK), "no bowler 'Zed'")
    match.refused(c.CommissionerBowlerGone("Bob", reason="?", actor="bowler:Ann"),
                  "only the desk")


def test_settle_as_the_hands_stand_mid_game_closes_open_decisions_with_the_desks_reason():
    match = Match(("Ann", "Bob", "Cy"))
    match.stack("AS", "AH", "KD")
    match.balls("Ann", 10)
    match.balls("Bob", 9, 1)
    match.do(c.RecordBall("Ann", None, 0, gutter=True, actor=FEED))
    assert match.state.decisions and match.state.status == "playing"

    events = match.do(c.CommissionerSettleAsHandsStand(reason="lane 3's pinsetter broke",
                                                       actor=DESK))

    closed = [e.data for e in events if e.type == "decision_closed"]
    assert [(d["outcome"], d["reason"]) for d in closed] == [
        ("closed_by_desk", "lane 3's pinsetter broke")]
    assert "night" not in str(closed)
    assert events[-1].data["reason"] == "lane 3's pinsetter broke"
    assert match.state.status == "settled" and match.state.result["winners"] == ["Ann"]
    balances(match)


def test_settle_as_the_hands_stand_leaves_out_a_folded_hand():
    match = Match(("Ann", "Bob", "Cy"), rules={"leaving_bowler": "folds"})
    match.stack("AS", "AH", "2C")
    match.balls("Ann", 10)
    match.balls("Bob", 9, 1)
    match.do(c.CommissionerBowlerGone("Ann", reason="went home", actor=DESK))
    match.do(c.CommissionerSettleAsHandsStand(reason="closing", actor=DESK))
    assert match.state.result["winners"] == ["Bob"]
    assert match.state.won["Bob"] == 300
    balances(match)


def test_a_match_with_a_bowler_gone_replays_and_re_executes_from_its_inputs():
    match = Match(("Ann", "Bob", "Cy"), games=2)
    match.stack("AS", "AH")
    match.balls("Ann", 10)
    match.balls("Bob", 9, 0)
    match.do(c.CommissionerBowlerGone("Cy", reason="never came", actor=DESK))
    match.do(c.RecordBall("Ann", None, 0, gutter=True, actor=FEED))
    match.do(c.CommissionerBowlerGone("Ann", reason="left early", actor=DESK))
    assert replay("m1", match.events) == match.state
    inputs = action_inputs("m1", match.events)
    gone = [i for i in inputs if i["command"] == "CommissionerBowlerGone"]
    assert [i["params"] for i in gone] == [{"bowler": "Cy", "reason": "never came"},
                                           {"bowler": "Ann", "reason": "left early"}]
    assert command_of_input(gone[1]) == c.CommissionerBowlerGone("Ann", "left early",
                                                                 actor=DESK)


def test_a_match_records_the_leaving_rule_only_when_it_is_not_the_default():
    default = Match(("Ann", "Bob"), start=False)
    assert "leaving_bowler" not in default.events[0].data["rules"]
    assert default.state.rules.leaving_bowler == "keeps_hand"
    folding = Match(("Ann", "Bob"), start=False, rules={"leaving_bowler": "folds"})
    assert folding.events[0].data["rules"]["leaving_bowler"] == "folds"
    assert folding.state.rules.leaving_bowler == "folds"
