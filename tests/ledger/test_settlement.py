"""The night's settlement, checked against figures worked out by hand."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.ledger.settlement import settle
from tests.ledger.helpers import DESK, Match


def finish(match: Match) -> None:
    """Everyone bowls 9-0 frames to the end, declines the draw and the buy; result confirmed."""
    while match.state.status == "playing":
        for bowler in match.state.bowlers:
            if match.state.current_game(bowler) <= match.state.games:
                match.balls(bowler, 9, 0)
    for kind, command in (("end_draw", c.DecideEndDraw), ("buy", c.DecideBuy)):
        for decision in [d for d in match.state.decisions.values() if d["kind"] == kind]:
            bowler = decision["bowler"]
            match.do(command(bowler, False, actor=f"bowler:{bowler}"))
    match.do(c.CommissionerConfirmResult(actor=DESK))


def test_a_night_of_three_matches_settles_to_the_cent():
    # Match 1: Ann and Bob, $1 ante each; Ann is dealt the ace and wins the $2 pot.
    first = Match(("Ann", "Bob"))
    first.stack("AS", "KS")
    first.balls("Ann", 9, 1)
    first.balls("Bob", 9, 1)
    finish(first)
    assert first.state.status == "settled" and first.state.result["winners"] == ["Ann"]

    # Match 2: Ann, Bob and Cy at $2.50; Cy's king beats the others' queen and jack: $7.50.
    second = Match(("Ann", "Bob", "Cy"), ante_cents=250)
    second.stack("QH", "JH", "KD")
    second.balls("Ann", 9, 1)
    second.balls("Bob", 9, 1)
    second.balls("Cy", 9, 1)
    finish(second)
    assert second.state.result["winners"] == ["Cy"]

    # Match 3: voided after a frame; both antes go back.
    third = Match(("Bob", "Cy"))
    third.balls("Bob", 9, 1)
    third.do(c.CommissionerVoidMatch(reason="lane broke down", actor=DESK))

    night = settle([first.state, second.state, third.state])

    by_name = {money.bowler: (money.paid_cents, money.won_cents, money.net_cents)
               for money in night.bowlers}
    assert by_name == {
        "Ann": (100 + 250, 200, 200 - 350),     # paid 3.50, won the 2.00 pot: -1.50
        "Bob": (100 + 250 + 0, 0, -350),       # third match refunded
        "Cy": (250 + 0, 750, 500),             # won the 7.50 pot on a 2.50 ante
    }
    assert sum(net for _paid, _won, net in by_name.values()) == 0
    assert (night.paid_cents, night.won_cents, night.held_cents, night.complete) == (
        950, 950, 0, True)
    assert [m.status for m in night.matches] == ["settled", "settled", "void"]


def test_money_in_an_unfinished_match_is_held_not_lost():
    playing = Match(("Ann", "Bob"), ante_cents=300)
    night = settle([playing.state])
    assert [(m.bowler, m.net_cents) for m in night.bowlers] == [("Ann", -300), ("Bob", -300)]
    assert (night.held_cents, night.complete) == (600, False)
    report = night.as_dict()
    assert report["totals"] == {"paid_cents": 600, "won_cents": 0, "held_cents": 600,
                                "complete": False}


def test_a_match_in_play_at_the_close_is_settled_as_the_hands_stand():
    match = Match(("Ann", "Bob", "Cy"))
    match.stack("AS", "AH", "KD")
    match.balls("Ann", 10)                       # a strike: AS and AH
    match.balls("Bob", 9, 1)                      # a spare: KD
    match.do(c.RecordBall("Ann", None, 0, gutter=True, actor="feed:lane-3"))
    assert match.state.decisions, "Ann's card to lose is pending"
    assert match.state.status == "playing"
    ann_hand = list(match.state.hands["Ann"])

    match.do(c.CommissionerSettleAsHandsStand(reason="the night closed", actor=DESK))

    state = match.state
    assert state.status == "settled" and state.decisions == {}
    assert state.hands["Ann"] == ann_hand, "a pending card loss is not taken at the close"
    assert state.result["winners"] == ["Ann"] and state.won == {"Ann": 300, "Bob": 0, "Cy": 0}
    assert state.pot_cents == 0
    assert sum(state.paid.values()) == state.pot_cents + sum(state.won.values())
    types = [e.type for e in match.events]
    assert "buy_paid" not in types and not any(
        e.type == "decision_opened" and e.data["kind"] in ("end_draw", "buy")
        for e in match.events)
    assert types[-1] == "match_settled" and match.events[-1].data["reason"] == "the night closed"
    night = settle([state])
    assert (night.complete, night.held_cents, night.unsettled) == (True, 0, [])


def test_settle_as_the_hands_stand_is_refused_for_a_finished_or_unstarted_match():
    unstarted = Match(("Ann", "Bob"), start=False)
    refused = unstarted.refused(c.CommissionerSettleAsHandsStand(actor=DESK))
    assert "only a match in play" in str(refused) and "void it instead" in str(refused)
    played = Match(("Ann", "Bob"))
    finish(played)
    refused = played.refused(c.CommissionerSettleAsHandsStand(actor=DESK))
    assert "is settled" in str(refused)
    bowler = Match(("Ann", "Bob"))
    assert "only the desk" in str(bowler.refused(
        c.CommissionerSettleAsHandsStand(actor="bowler:Ann")))
    assert bowler.state.status == "playing"
