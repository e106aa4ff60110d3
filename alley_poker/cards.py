"""Playing cards: the 54 physical cards, their text notation, and the draw pile.

A Bowling Poker deck is the 52 standard cards plus two physical jokers, ``JOKER-A`` and
``JOKER-B``.  Which joker is *good* (wild) and which is *bad* (dead) is match state that the
ledger tracks and swaps, so a physical joker carries no power.  Where a power is given (the
evaluator, scenarios) a joker is written ``GJ`` (good) or ``BJ`` (bad).

>>> parse_cards("AS KH 10d GJ")
[Card('AS'), Card('KH'), Card('TD'), Card('GJ')]
>>> " ".join(str(c) for c in parse_cards("as ♥q JOKER-B"))
'AS QH JOKER-B'
>>> parse_cards("")
[]
>>> parse_card("1X")
Traceback (most recent call last):
...
alley_poker.cards.CardParseError: bad card '1X': rank must be one of 2-9, T/10, J, Q, K, A
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from alley_poker.hand_keys import card_code

RANKS = "23456789TJQKA"
SUITS = "CDHS"
RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {rank: ("sixes" if rank == 6 else name + "s") for rank, name in RANK_NAMES.items()}

_RANK_BY_CHAR = {char: value for value, char in enumerate(RANKS, start=2)}
_SUIT_ALIASES = {"C": "C", "D": "D", "H": "H", "S": "S", "♣": "C", "♦": "D", "♥": "H", "♠": "S",
                 "♧": "C", "♢": "D", "♡": "H", "♤": "S"}

#: Joker kinds.  The physical ids name a card of the deck; the powers name a role in a hand.
JOKER_A = "JOKER-A"
JOKER_B = "JOKER-B"
GOOD = "good"
BAD = "bad"
_JOKER_TEXT = {JOKER_A: JOKER_A, JOKER_B: JOKER_B, GOOD: "GJ", BAD: "BJ"}
_JOKER_BY_TEXT = {"JOKER-A": JOKER_A, "JOKER-B": JOKER_B, "GJ": GOOD, "BJ": BAD}


class CardParseError(ValueError):
    """A card token that is not valid card notation; the message names the token."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card.  Standard cards have ``rank`` 2..14 (ace high) and ``suit`` in ``CDHS``.

    A joker has ``rank`` 0, ``suit`` ``""`` and ``joker`` set to its physical id
    (``"JOKER-A"``/``"JOKER-B"``) or to a power (``"good"``/``"bad"``) where one is given.

    >>> Card(14, "S").is_joker, Card.joker_with_power("good").is_wild
    (False, True)
    >>> sorted(parse_cards("KD 2S AC 2C"))
    [Card('2C'), Card('2S'), Card('KD'), Card('AC')]
    """

    rank: int
    suit: str
    joker: str = ""
    #: The card as the hand evaluator encodes it (:func:`alley_poker.hand_keys.card_code`),
    #: worked out once here because the evaluator reads it for every card of every hand and
    #: one attribute is the cheapest thing Python can read.  Not part of the card's identity.
    _code: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.joker:
            if self.joker not in _JOKER_TEXT or self.rank != 0 or self.suit:
                raise CardParseError(f"bad joker card: joker={self.joker!r}")
        elif self.rank not in RANK_NAMES or self.suit not in SUITS or len(self.suit) != 1:
            raise CardParseError(f"bad card: rank={self.rank!r} suit={self.suit!r}")
        object.__setattr__(self, "_code", card_code(self.rank, self.suit))

    @classmethod
    def joker_with_power(cls, power: str) -> Card:
        """The joker written ``GJ`` (power ``"good"``) or ``BJ`` (power ``"bad"``)."""
        if power not in (GOOD, BAD):
            raise CardParseError(f"bad joker power {power!r}: must be 'good' or 'bad'")
        return cls(0, "", power)

    @classmethod
    def physical_joker(cls, joker_id: str) -> Card:
        """The physical joker ``JOKER-A`` or ``JOKER-B``."""
        if joker_id not in (JOKER_A, JOKER_B):
            raise CardParseError(f"bad joker id {joker_id!r}: must be JOKER-A or JOKER-B")
        return cls(0, "", joker_id)

    @property
    def is_joker(self) -> bool:
        return bool(self.joker)

    @property
    def is_physical_joker(self) -> bool:
        return self.joker in (JOKER_A, JOKER_B)

    @property
    def is_wild(self) -> bool:
        """True for a joker holding the good power (``GJ``)."""
        return self.joker == GOOD

    @property
    def is_dead(self) -> bool:
        """True for a joker holding the bad power (``BJ``)."""
        return self.joker == BAD

    def __str__(self) -> str:
        if self.joker:
            return _JOKER_TEXT[self.joker]
        return RANKS[self.rank - 2] + self.suit

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def parse_card(token: str) -> Card:
    """Parse one card token: ``AS``, ``10d``, ``♥Q``, ``GJ``, ``BJ``, ``JOKER-A``.

    >>> parse_card("10♦"), parse_card("gj"), parse_card("joker-b")
    (Card('TD'), Card('GJ'), Card('JOKER-B'))
    """
    if not isinstance(token, str):
        raise CardParseError(f"bad card {token!r}: expected text such as 'AS'")
    text = token.strip().upper()
    if text in _JOKER_BY_TEXT:
        return Card(0, "", _JOKER_BY_TEXT[text])
    if len(text) < 2:
        raise CardParseError(
            f"bad card {token!r}: too short (a card is a rank and a suit, e.g. 'AS')"
        )
    # The suit may come first when written with a symbol (♥Q), otherwise last.
    if text[0] in _SUIT_ALIASES and text[0] not in SUITS:
        suit_char, rank_text = text[0], text[1:]
    else:
        rank_text, suit_char = text[:-1], text[-1]
    if rank_text == "10":
        rank_text = "T"
    if rank_text not in _RANK_BY_CHAR:
        raise CardParseError(
            f"bad card {token!r}: rank must be one of 2-9, T/10, J, Q, K, A"
        )
    if suit_char not in _SUIT_ALIASES:
        raise CardParseError(f"bad card {token!r}: suit must be one of C, D, H, S (or ♣♦♥♠)")
    return Card(_RANK_BY_CHAR[rank_text], _SUIT_ALIASES[suit_char])


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse space- or comma-separated card notation (or an iterable of tokens) into cards.

    >>> parse_cards("AS, KH")
    [Card('AS'), Card('KH')]
    >>> parse_cards(["2c", "GJ"])
    [Card('2C'), Card('GJ')]
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of :func:`parse_cards`.

    >>> format_cards(parse_cards("as 10h gj"))
    'AS TH GJ'
    """
    return " ".join(str(card) for card in cards)


_SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_JOKER_WORDS = {"GJ": "good joker", "BJ": "bad joker", JOKER_A: "joker A", JOKER_B: "joker B"}


def card_text(token: str) -> str:
    """A card as a person reads it: the rank and the suit's symbol, or the joker in words.

    >>> card_text("7C"), card_text("TH"), card_text("GJ")
    ('7♣', '10♥', 'good joker')
    """
    text = token.strip().upper()
    if text in _JOKER_WORDS:
        return _JOKER_WORDS[text]
    rank, suit = text[:-1], text[-1]
    return ("10" if rank == "T" else rank) + _SUIT_SYMBOLS.get(suit, suit)


STANDARD_CARDS: tuple[Card, ...] = tuple(
    Card(rank, suit) for suit in SUITS for rank in range(2, 15)
)
PHYSICAL_JOKERS: tuple[Card, ...] = (Card.physical_joker(JOKER_A), Card.physical_joker(JOKER_B))
#: The 54 physical cards of a Bowling Poker deck, in a fixed canonical order.
FULL_DECK: tuple[Card, ...] = STANDARD_CARDS + PHYSICAL_JOKERS


class EmptyDeckError(LookupError):
    """A draw from a draw pile that holds no card."""


class Deck:
    """A draw pile: cards drawn from the top, returned cards go in and the pile is reshuffled.

    The random source is injected: a ``random.SystemRandom()`` in play, a seeded
    ``random.Random(n)`` in tests and the simulator.

    >>> deck = Deck.full(random.Random(7))
    >>> len(deck)
    54
    >>> card = deck.draw()
    >>> len(deck), card in deck
    (53, False)
    >>> deck.put_back(card); len(deck), card in deck
    (54, True)
    >>> Deck([], random.Random(1)).draw()
    Traceback (most recent call last):
    ...
    alley_poker.cards.EmptyDeckError: the draw pile is empty
    """

    def __init__(self, cards: Sequence[Card], rng: random.Random, *, shuffle: bool = False):
        self._cards: list[Card] = list(cards)  # index 0 is the top of the pile
        if len(set(self._cards)) != len(self._cards):
            raise ValueError("a draw pile cannot hold the same card twice")
        self._rng = rng
        if shuffle:
            self.shuffle()

    @classmethod
    def full(cls, rng: random.Random) -> Deck:
        """All 54 physical cards, shuffled with ``rng``."""
        return cls(FULL_DECK, rng, shuffle=True)

    def __len__(self) -> int:
        return len(self._cards)

    def __contains__(self, card: object) -> bool:
        return card in self._cards

    def __iter__(self):
        return iter(self._cards)

    @property
    def order(self) -> tuple[Card, ...]:
        """The pile from top to bottom (what a shuffle event records)."""
        return tuple(self._cards)

    def shuffle(self) -> tuple[Card, ...]:
        """Shuffle the pile and return its new order, top first."""
        self._rng.shuffle(self._cards)
        return self.order

    def draw(self) -> Card:
        """Take the top card."""
        if not self._cards:
            raise EmptyDeckError("the draw pile is empty")
        return self._cards.pop(0)

    def put_back(self, card: Card, *, reshuffle: bool = True) -> None:
        """Return ``card`` to the pile and (by default) reshuffle it, as the house rules say."""
        if card in self._cards:
            raise ValueError(f"{card} is already in the draw pile")
        self._cards.append(card)
        if reshuffle:
            self.shuffle()
