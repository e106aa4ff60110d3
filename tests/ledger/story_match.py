"""A varied match for the story's tests: jokers swapped, a steal, the hole, a desk ball undone,
a correction and its review applied, courtesy draws from an empty pile, a wrong ball-return
guess, an extra draw declined, a buy, the showdown and the desk's confirmation.

The same steps run in memory (:func:`varied_match_events`, the scenario runner) and through
a real service (:func:`play_varied_match`, for the web tests).
"""

from __future__ import annotations

import json

from alley_poker.ledger import commands as c
from alley_poker.scenario.runner import run_scenario
from alley_poker.scenario.steps import (
    ball_command,
    commissioner_command,
    correct_command,
    decide_command,
)
from tests.web.conftest import start_stacked_match

DESK = "commissioner:test-desk"
SLOTS = {(1, 1): "Ann", (2, 1): "Bob", (2, 2): "Cy"}


def _steps() -> list[dict]:
    S: list[dict] = []
    S.append({"setup": {"bowlers": ["Ann", "Bob", "Cy"], "games": 1}})
    S.append({"stack": ["GJ", "2C", "3C", "4C"]})
    S.append({"ball": {"bowler": "Ann", "pins": 10}})
    S.append({"ball": {"bowler": "Bob", "pins": 8, "standing": [7, 10]}})
    S.append({"ball": {"bowler": "Bob", "pins": 2}})
    S.append({"decide": {"bowler": "Bob", "kind": "steal", "from": "Ann", "card": "3C"}})
    S.append({"ball": {"bowler": "Cy", "pins": 0, "gutter": True}})
    S.append({"ball": {"bowler": "Cy", "pins": 0}})
    # frame 2
    S.append({"ball": {"bowler": "Ann", "pins": 0, "gutter": True}})
    S.append({"ball": {"bowler": "Ann", "pins": 9}})
    S.append({"ball": {"bowler": "Bob", "pins": 10, "by": "desk"}})
    S.append({"commissioner": {"action": "undo", "reason": "entered for the wrong bowler"}})
    S.append({"stack": ["JOKER-A", "5D", "6D"]})
    S.append({"ball": {"bowler": "Bob", "pins": 10}})
    S.append({"ball": {"bowler": "Cy", "pins": 10}})
    # frame 3: a correction
    S.append({"ball": {"bowler": "Ann", "pins": 10}})
    S.append({"correct": {"bowler": "Ann", "game": 1, "frame": 3, "ball": 1, "pins": 9,
                          "reason": "pinsetter misread"}})
    S.append({"commissioner": {"action": "apply_review", "reason": "remedy as suggested"}})
    S.append({"ball": {"bowler": "Ann", "pins": 1}})
    S.append({"ball": {"bowler": "Bob", "pins": 10}})
    S.append({"ball": {"bowler": "Cy", "pins": 7}})
    S.append({"ball": {"bowler": "Cy", "pins": 1}})
    for frame in range(4, 11):
        for who in ("Ann", "Bob"):
            S.append({"ball": {"bowler": who, "pins": 10}})
        if frame < 10:
            S.append({"ball": {"bowler": "Cy", "pins": 7}})
            S.append({"ball": {"bowler": "Cy", "pins": 1}})
    for who in ("Ann", "Bob"):
        S.append({"ball": {"bowler": who, "pins": 10}})
        S.append({"ball": {"bowler": who, "pins": 10}})
    # Cy's last frame: a gutter ball gives his only card back, so the pile holds one to buy
    S.append({"ball": {"bowler": "Cy", "pins": 0, "gutter": True}})
    S.append({"decide": {"bowler": "Cy", "kind": "guess", "side": "left"}})
    S.append({"guess_outcome": {"bowler": "Cy", "side": "right"}})
    S.append({"decide": {"bowler": "Cy", "kind": "lose_card", "card": "6D"}})
    S.append({"ball": {"bowler": "Cy", "pins": 1}})
    S.append({"decide": {"bowler": "Cy", "kind": "end_draw", "accept": False}})
    S.append({"decide": {"bowler": "Bob", "kind": "buy", "accept": True}})
    S.append({"commissioner": {"action": "confirm", "reason": "hands checked"}})
    return S


STEPS = _steps()


def varied_match_events() -> list:
    """The match's events, run in memory by the scenario runner (deals as the steps stack)."""
    run = run_scenario([json.dumps(step) for step in STEPS])
    assert run.error is None, run.error
    assert run.state.status == "settled"
    return run.events


def play_varied_match(service, match_id: str = "m1") -> None:
    """The same match through a service (test mode, so the steps can stack the pile)."""
    start_varied_match(service, match_id)
    bowl_varied_match(service, match_id)


def start_varied_match(service, match_id: str = "m1") -> None:
    """The match created and started (its bowlers may get phone codes now)."""
    start_stacked_match(service, match_id, SLOTS)


def bowl_varied_match(service, match_id: str = "m1") -> None:
    """Every step after the setup, to the desk's confirmation."""
    for step in STEPS[1:]:
        ((kind, body),) = step.items()
        if kind == "stack":
            command = c.StackPile(list(body), actor=DESK)
        elif kind == "ball":
            command = ball_command(step)[0]
        elif kind == "decide":
            command = decide_command(dict(body))
        elif kind == "guess_outcome":
            command = c.RecordGuessOutcome(body["bowler"], body["side"],
                                           actor=f"bowler:{body['bowler']}")
        elif kind == "correct":
            command = correct_command(dict(body), "feed:test")
        else:
            body = dict(body)
            if body["action"] == "apply_review":
                body["review"] = next(iter(service.state(match_id).reviews))
            command = commissioner_command({"commissioner": body})
        service.execute(match_id, command)
    assert service.state(match_id).status == "settled"
