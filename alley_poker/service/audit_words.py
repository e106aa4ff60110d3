"""Each stored event in plain words, for the people reading the audit log at the desk.

The ``summary`` column keeps the raw ``key=value`` words (complete, for a spreadsheet); this
is what a person reads: money as dollars, cards as faces, who did what to whom.  An event type
without a sentence of its own falls back to its name in words plus the raw summary, so a new
event is never hidden.

>>> describe("match_created", {"bowlers": ["Ann", "Bob"], "games": 3, "ante_cents": 100})
'Match created for Ann and Bob: 3 games, ante $1.00 each'
>>> describe("match_started", {"antes": {name: 100 for name in "ABCDEF"}})
'Match started: ante $1.00 each, agreed by all 6'
>>> describe("card_drawn", {"bowler": "Ann", "card": "TD", "reason": "strike"})
'Ann drew 10♦ (strike)'
>>> describe("ball_recorded", {"bowler": "Ann", "game": 1, "frame": 4, "ball": 2, "pins": 3,
...                            "standing": [7, 10], "split": True, "mark": "spare"})
'Ann, game 1 frame 4 ball 2: 3 pins, 7-10 left standing, a split, spare'
>>> describe("new_kind", {"bowler": "Ann", "x": 1}, raw="bowler=Ann x=1")
'New kind: bowler=Ann x=1'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
JOKERS = {"GJ": "the good joker", "BJ": "the bad joker",
          "JOKER-A": "joker A", "JOKER-B": "joker B"}


def money(cents: Any) -> str:
    """Cents as dollars.

    >>> money(150), money(-5)
    ('$1.50', '−$0.05')
    """
    cents = int(cents or 0)
    sign = "−" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"


def card(code: Any) -> str:
    text = str(code)
    if text in JOKERS:
        return JOKERS[text]
    if len(text) == 2 and text[1] in SUITS:
        return ("10" if text[0] == "T" else text[0]) + SUITS[text[1]]
    return text


def names(people: Any) -> str:
    people = [str(p) for p in people or ()]
    if len(people) <= 1:
        return "".join(people) or "nobody"
    return ", ".join(people[:-1]) + " and " + people[-1]


def _why(data: dict[str, Any], key: str = "reason") -> str:
    reason = data.get(key)
    return f" ({reason})" if reason else ""


def _ball(d: dict[str, Any]) -> str:
    words = [f"{d.get('pins', 0)} pin{'' if d.get('pins') == 1 else 's'}"]
    if d.get("gutter"):
        words = ["gutter"]
    if d.get("foul"):
        words.append("foul")
    if d.get("standing"):
        words.append("-".join(str(pin) for pin in d["standing"]) + " left standing")
    if d.get("split"):
        words.append("a split")
    if d.get("mark"):
        words.append(str(d["mark"]))
    return (f"{d.get('bowler')}, game {d.get('game')} frame {d.get('frame')} ball "
            f"{d.get('ball')}: " + ", ".join(words))


def _started(d: dict[str, Any]) -> str:
    antes = d.get("antes") or {}
    amounts = set(antes.values())
    if len(amounts) == 1:
        return f"Match started: ante {money(amounts.pop())} each, agreed by all {len(antes)}"
    return "Match started: antes " + ", ".join(f"{b} {money(c)}" for b, c in antes.items())


def _closed(d: dict[str, Any]) -> str:
    choice = d.get("choice")
    if isinstance(choice, dict):
        choice = " ".join(card(v) if k == "card" else str(v) for k, v in choice.items())
    elif isinstance(choice, str):
        choice = card(choice)
    return (f"{d.get('bowler')}'s decision {d.get('decision_id')} closed: "
            f"{str(d.get('outcome', '')).replace('_', ' ')}" + (f" ({choice})" if choice else "")
            + _why(d))


#: What became of a bowler the desk marked not here.
GONE_WORDS = {"removed": "had not bowled, taken out of the match",
              "keeps_hand": "left, keeps the hand to the showdown",
              "folds": "left, hand folded"}


SENTENCES: dict[str, Callable[[dict[str, Any]], str]] = {
    "match_created": lambda d: (f"Match created for {names(d.get('bowlers'))}: "
                                f"{d.get('games')} game{'' if d.get('games') == 1 else 's'}, "
                                f"ante {money(d.get('ante_cents'))} each"),
    "consent_recorded": lambda d: (f"{d.get('bowler')} agreed to the "
                                   f"{money(d.get('ante_cents'))} ante"),
    "match_started": _started,
    "bowler_added": lambda d: f"{d.get('bowler')} added (paid {money(d.get('ante_paid'))})",
    "bowler_removed": lambda d: (f"{d.get('bowler')} removed, "
                                 f"{money(d.get('refund_cents'))} refunded"),
    "bowler_gone": lambda d: (f"{d.get('bowler')} marked not here: "
                              + GONE_WORDS.get(str(d.get("outcome")), str(d.get("outcome")))
                              + _why(d)),
    "pile_shuffled": lambda d: "Pile shuffled" + _why(d, "why"),
    "pile_stacked": lambda d: "Pile stacked by the desk (test mode)",
    "ball_recorded": _ball,
    "ball_corrected": lambda d: (f"{d.get('bowler')}'s game {d.get('game')} corrected"
                                 + _why(d)),
    "card_drawn": lambda d: f"{d.get('bowler')} drew {card(d.get('card'))}" + _why(d),
    "card_taken": lambda d: (f"{d.get('bowler')} took {card(d.get('card'))} from "
                             f"{d.get('from_bowler')}" + _why(d)),
    "card_returned": lambda d: (f"{d.get('bowler')} gave back {card(d.get('card'))}"
                                + _why(d, "why")),
    "draw_skipped": lambda d: f"No card for {d.get('bowler')}" + _why(d, "why"),
    "jokers_swapped": lambda d: f"Jokers swapped: {card(d.get('trigger'))} was drawn",
    "hole_deepened": lambda d: f"{d.get('bowler')}'s hole got deeper" + _why(d, "why"),
    "hole_paid_off": lambda d: f"{d.get('bowler')} paid off a hole" + _why(d),
    "decision_opened": lambda d: (f"{d.get('bowler')} must decide: "
                                  f"{str(d.get('kind', '')).replace('_', ' ')}" + _why(d)),
    "decision_closed": _closed,
    "guess_made": lambda d: f"{d.get('bowler')} guessed the ball comes back {d.get('side')}",
    "guess_resolved": lambda d: (f"{d.get('bowler')}'s ball came back {d.get('side')}: "
                                 + ("guessed right" if d.get("correct") else "guessed wrong")),
    "guess_voided": lambda d: f"{d.get('bowler')}'s guess voided by the desk" + _why(d),
    "holland_daze": lambda d: f"Holland-daze ruled for {d.get('bowler')}" + _why(d),
    "review_raised": lambda d: (f"Review {d.get('id')} raised for {d.get('bowler')}: "
                                f"{d.get('description')}"),
    "review_closed": lambda d: f"Review {d.get('id')} {d.get('outcome')}" + _why(d),
    "match_ending": lambda d: "Last balls bowled: lowest series " + names(d.get("lowest")),
    "end_phase": lambda d: f"End of match: {d.get('stage')}",
    "buy_paid": lambda d: f"{d.get('bowler')} bought a card for {money(d.get('cents'))}",
    "automatic_win": lambda d: (f"{d.get('bowler')} wins outright with "
                                f"{card(d.get('card'))}"),
    "showdown": lambda d: "Showdown: " + names(d.get("winners")) + " win" + (
        "" if len(d.get("winners") or ()) > 1 else "s") + " " + ", ".join(
        f"{b} {money(c)}" for b, c in (d.get("shares") or {}).items()),
    "payout": lambda d: f"{d.get('bowler')} paid {money(d.get('cents'))}",
    "match_settled": lambda d: "Result confirmed, match settled" + _why(d),
    "result_undone": lambda d: "Result undone" + _why(d) + (
        ": payouts taken back from " + names(d.get("reversed")) if d.get("reversed") else ""),
    "match_voided": lambda d: "Match voided" + _why(d) + (
        ": refunded " + ", ".join(f"{b} {money(c)}" for b, c in d["refunds"].items())
        if d.get("refunds") else ""),
    "action_undone": lambda d: (f"Undone: everything from event {d.get('undone_from')} on"
                                + _why(d)),
}


def describe(event_type: str, data: dict[str, Any], raw: str = "") -> str:
    """One plain sentence about an event (the pile's order is never part of it); ``raw``,
    the event's key=value summary, stands in for a type that has no sentence."""
    sentence = SENTENCES.get(event_type)
    if sentence is not None:
        try:
            return sentence(data)
        except (TypeError, ValueError, AttributeError, KeyError):
            pass  # an old event of another shape: the fallback below still says what it is
    title = event_type.replace("_", " ").capitalize()
    return f"{title}: {raw}" if raw else title
