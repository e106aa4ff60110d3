"""The words of a match's story (:mod:`alley_poker.ledger.story`): cards, money, balls,
people, as a bowler reads them — never an event's or a command's name.

>>> card_words("QS"), card_words("TD"), card_words("GJ"), card_words("BJ")
('Q♠', '10♦', 'the good joker', 'the bad joker')
>>> money(4000), money(5)
('$40.00', '$0.05')
>>> listing(["Q♠"]), listing(["Q♠", "3♦"]), listing(["Ann", "Bob", "Cy"])
('Q♠', 'Q♠ and 3♦', 'Ann, Bob and Cy')
>>> ball_words({"pins": 10, "mark": "strike"}), ball_words({"pins": 0, "gutter_ball": True})
('strike', 'gutter ball')
>>> ball_words({"pins": 2, "mark": "spare", "split_pickup": True})
'spare (a split picked up)'
>>> ball_words({"pins": 7, "standing": [7, 10], "split": True})
'7 pins, 7-10 left standing (a split)'
>>> ball_words({"pins": 0, "foul": True})
'foul'
>>> where_ball(1, 7, 1, games=1), where_ball(2, 10, 3, games=3)
('Frame 7, ball 1', 'Game 2, frame 10, ball 3')
>>> count_words(1, "card"), count_words(3, "card")
('1 card', '3 cards')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from alley_poker.cards import card_text

_JOKER_WORDS = {"GJ": "the good joker", "BJ": "the bad joker"}


def card_words(shown: str) -> str:
    """A card as the bowler saw it (``GJ``/``BJ`` for jokers by their power then)."""
    return _JOKER_WORDS.get(shown) or card_text(shown)


def money(cents: int) -> str:
    """Cents as dollars, ``$x.yy``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"


def listing(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def count_words(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def ball_words(ball: Mapping[str, Any]) -> str:
    """What a ball was, as the scoreboard would say it."""
    pins = ball.get("pins", 0)
    if ball.get("foul"):
        words = "foul"
    elif ball.get("mark") == "strike":
        words = "strike"
    elif ball.get("mark") == "spare":
        words = "spare"
    elif ball.get("gutter_ball"):
        words = "gutter ball"
    else:
        words = count_words(pins, "pin")
    if ball.get("mark") != "strike" and ball.get("standing"):
        words += ", " + "-".join(str(pin) for pin in ball["standing"]) + " left standing"
        if ball.get("split"):
            words += " (a split)"
    if ball.get("split_pickup"):
        words += " (a split picked up)"
    return words


def where_ball(game: int, frame: int, ball: int, *, games: int) -> str:
    """Where a ball was bowled: the game is named only when the match has more than one."""
    if games > 1:
        return f"Game {game}, frame {frame}, ball {ball}"
    return f"Frame {frame}, ball {ball}"


def sentence(text: str) -> str:
    """Capitalised, with a full stop."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def reason_words(reason: Any) -> str:
    """A reason someone typed, in brackets (nothing when there is none)."""
    reason = str(reason or "").strip()
    return f" ({reason})" if reason else ""


#: What an end-of-match or decision kind is called.
DECISION_WORDS = {"lose_card": "card to give back", "steal": "steal",
                  "end_draw": "extra draw", "buy": "buy"}
