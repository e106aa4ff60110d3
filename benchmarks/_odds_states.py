"""The odds benchmark's recorded states: practice matches played through the ledger and
stopped early, in the middle and in the last frame, over rule books with and without buys,
six of them with a bowler in the hole (:mod:`benchmarks.odds`, :mod:`benchmarks.odds_reference`).

A module of its own so that the benchmark and its reference both read the states without
importing each other.
"""

from __future__ import annotations

from functools import cache

STAGES = ("early", "middle", "last_frame")
RULE_BOOKS = ({}, {"buy_in": True}, {"buy_in": False})

#: The recorded states: ``_PLAIN`` stopped at fixed points, then ``_IN_THE_HOLE`` states of
#: weak bowlers stopped where one of them is in the hole (early, middle, last frame, twice).
_PLAIN = 54
_IN_THE_HOLE = 6
STATES = _PLAIN + _IN_THE_HOLE
_PER_BOWLER = {"early": 3, "middle": 10, "last_frame": 18}


@cache
def recorded_state(index: int):
    """Recorded state number ``index`` and its tags: rule book, bowlers and stage follow
    from the number."""
    if index >= _PLAIN:
        return _hole_state(index - _PLAIN)
    from benchmarks._practice_match import PracticeMatch

    bowlers = ("Ann", "Bob", "Cy", "Di")[:2 + index % 3]
    rules = RULE_BOOKS[index % len(RULE_BOOKS)]
    stage = STAGES[(index // 3) % len(STAGES)]
    averages = {name: 120 + (37 * (index + seat)) % 100 for seat, name in enumerate(bowlers)}
    match = PracticeMatch(bowlers, seed=1000 + index, rules=rules or None, averages=averages)
    match.play(_PER_BOWLER[stage] * len(bowlers))
    return match.state, _tags(match.state, stage, len(bowlers))


def _hole_state(number: int):
    """The first state of weak bowlers' practice matches (seeds tried in order) that is at
    ``number``'s stage with a bowler in the hole and no decision pending."""
    from benchmarks._practice_match import PracticeMatch

    stage = STAGES[number % len(STAGES)]
    bowlers = ("Ann", "Bob", "Cy")
    first, last = {"early": (1, 4), "middle": (8, 12), "last_frame": (17, 20)}[stage]
    for seed in range(9000 + 1000 * number, 10000 + 1000 * number):
        match = PracticeMatch(bowlers, seed=seed, rules=RULE_BOOKS[number % 2 + 1],
                              averages={name: 100 + 7 * seat
                                        for seat, name in enumerate(bowlers)})
        while match.state.balls_recorded < last * len(bowlers) and match.step():
            state = match.state
            if (state.balls_recorded >= first * len(bowlers) and state.status == "playing"
                    and not state.decisions and any(h < 0 for h in state.hole.values())):
                return state, _tags(state, stage, len(bowlers))
    raise RuntimeError(f"no practice match reached the hole at the {stage} stage")


def _tags(state, stage: str, bowlers: int) -> dict:
    return {
        "stage": stage, "bowlers": bowlers, "buys": bool(state.rules.buy_in),
        "joker_held": any(card.startswith("JOKER") for hand in state.hands.values()
                          for card in hand),
        "in_the_hole": any(hole < 0 for hole in state.hole.values()),
    }
