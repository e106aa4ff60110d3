"""The end of a match in one desk step: decline the end draw, or the buys, for everyone who
has not answered (``CommissionerDeclineForEveryone``), instead of one bowler at a time."""

from __future__ import annotations

import random

from alley_poker.ledger import commands as c
from alley_poker.ledger import decide
from alley_poker.ledger.inputs import actions, command_of_input, input_of
from alley_poker.ledger.state import MatchState
from alley_poker.ledger.undo import undoable_action
from tests.ledger.helpers import DESK, Match

BOWLERS = ("Ann", "Bob", "Cy", "Dee")


def at_the_end_draws() -> Match:
    """Four bowlers bowl out one game; Cy and Dee tie for the lowest series (two draws)."""
    match = Match(BOWLERS, games=1)
    pins = {"Ann": 4, "Bob": 3, "Cy": 0, "Dee": 0}
    while match.state.status == "playing":
        for bowler in BOWLERS:
            if match.state.current_game(bowler) <= 1:
                match.ball(bowler, pins[bowler])
    assert match.state.status == "ending"
    return match


def open_of(match: Match, kind: str) -> list[str]:
    return [d["bowler"] for d in match.state.decisions.values() if d["kind"] == kind]


def test_declining_the_draws_then_the_buys_for_everyone_reaches_the_showdown_in_two_steps():
    match = at_the_end_draws()
    assert open_of(match, "end_draw") == ["Cy", "Dee"]

    events = match.do(c.CommissionerDeclineForEveryone("end_draw", actor=DESK))
    assert len({e.data["action"] for e in events}) == 1, "one desk action"
    closed = [e.data for e in events if e.type == "decision_closed"]
    assert [(d["bowler"], d["outcome"]) for d in closed] == [("Cy", "declined"),
                                                             ("Dee", "declined")]
    assert open_of(match, "buy") == list(BOWLERS), "the buys follow the draws at once"

    events = match.do(c.CommissionerDeclineForEveryone("buy", actor=DESK))
    assert [e.data["bowler"] for e in events if e.type == "decision_closed"] == list(BOWLERS)
    assert not match.state.decisions
    assert match.state.result is not None, "the showdown waits for the desk's confirmation"
    assert sum(match.state.paid.values()) == match.state.pot_cents, "nobody paid for a buy"


def test_only_those_who_have_not_answered_are_declined():
    match = at_the_end_draws()
    match.do(c.CommissionerDeclineForEveryone("end_draw", actor=DESK))
    pot = match.state.pot_cents
    match.do(c.DecideBuy("Bob", True, actor="bowler:Bob"))

    events = match.do(c.CommissionerDeclineForEveryone("buy", actor=DESK))
    assert [e.data["bowler"] for e in events if e.type == "decision_closed"] == \
        ["Ann", "Cy", "Dee"]
    assert match.state.pot_cents == pot + match.state.ante_cents, "Bob's buy stands"


def test_refusals_name_the_problem_and_change_nothing():
    match = at_the_end_draws()
    match.refused(c.CommissionerDeclineForEveryone("end_draw", actor="bowler:Cy"),
                  "only the desk may do this")
    match.refused(c.CommissionerDeclineForEveryone("lose_card", actor=DESK),
                  "only the end-of-match draw ('end_draw') or the buys ('buy') can be declined")
    match.refused(c.CommissionerDeclineForEveryone("buy", actor=DESK),
                  "nobody has an offer to buy a card waiting")


def test_the_desk_can_undo_it_and_every_offer_is_open_again():
    match = at_the_end_draws()
    before = {d["id"]: d for d in match.state.decisions.values()}
    match.do(c.CommissionerDeclineForEveryone("end_draw", actor=DESK))

    last = undoable_action(match.state)
    assert last["what"] == ("the end-of-match draw declined at the desk for everyone who had "
                            "not answered (Cy, Dee)")
    match.do(c.CommissionerUndoLastAction(reason="tapped too soon", action=last["action"],
                                          actor=DESK))
    assert match.state.decisions == before, "the same draws, with their own deadlines"


def test_its_input_is_read_back_and_re_executes_to_the_same_events():
    match = at_the_end_draws()
    match.do(c.CommissionerDeclineForEveryone("end_draw", actor=DESK))
    match.do(c.CommissionerDeclineForEveryone("buy", actor=DESK))

    state = MatchState.empty("m1")
    rerun = []
    for group in actions(match.events):
        record = input_of(state, group)
        if record["command"] == "CommissionerDeclineForEveryone":
            command = command_of_input(record)
            produced = decide(state, command, rng=random.Random(0), now=group[0].at)[0]
            assert produced == group
            rerun.append(command)
        for event in group:
            state.apply(event)
    assert rerun == [c.CommissionerDeclineForEveryone("end_draw", actor=DESK),
                     c.CommissionerDeclineForEveryone("buy", actor=DESK)]
