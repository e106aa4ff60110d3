"""Values in the tablet's pages as people read them (Jinja filters ``cards``, ``money`` and
``counted``).

Cards: 10♥ (red suits in red), jokers in words.  Money: dollars with a real minus sign, never
broken over two lines in a narrow table cell.

>>> str(cards_markup(["TH", "GJ=AS", "<b>"]))
'<span class="card-text suit-H">10♥</span> <span class="card-text suit-S">good joker as A♠</span> \
<span class="card-text">&lt;B&gt;</span>'
>>> str(money_markup(-250)), str(money_markup(1205))
('<span class="money">−$2.50</span>', '<span class="money">$12.05</span>')
>>> counted(1, "match"), counted(2, "match"), counted(0, "bowler"), counted([7], "night")
('1 match', '2 matches', '0 bowlers', '1 night')
"""

from __future__ import annotations

from collections.abc import Iterable

from markupsafe import Markup, escape

from alley_poker.cards import card_text


def _one(token: str) -> Markup:
    shown, _, stands_for = token.partition("=")
    words = card_text(shown) + (f" as {card_text(stands_for)}" if stands_for else "")
    suit = (stands_for or shown).strip().upper()[-1:]
    css = f"card-text suit-{suit}" if suit in "CDHS" and suit else "card-text"
    return Markup('<span class="{}">{}</span>').format(css, escape(words))


def cards_markup(tokens: Iterable[str] | None) -> Markup:
    """A hand's card codes (``GJ=AS``: a joker standing for a card) as spans, space apart."""
    return Markup(" ").join(_one(token) for token in tokens or ())


def money_markup(cents: int) -> Markup:
    """Cents as dollars, ``−$2.50``, kept on one line."""
    sign = "−" if cents < 0 else ""
    return Markup('<span class="money">{}${}.{:02d}</span>').format(
        sign, abs(cents) // 100, abs(cents) % 100)


def counted(count: int | Iterable[object], noun: str, plural: str | None = None) -> str:
    """``count`` (a number, or a list to count) and ``noun`` agreeing: "1 match", "2 matches"."""
    number = count if isinstance(count, int) else len(list(count))
    if number == 1:
        return f"1 {noun}"
    many = plural or (noun + "es" if noun.endswith(("s", "sh", "ch", "x")) else noun + "s")
    return f"{number} {many}"
