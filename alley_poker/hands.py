"""Poker hands for Bowling Poker: the value of a hand of any size, with jokers.

:func:`evaluate` takes the cards a bowler holds (0 to 54 of them) and returns a
:class:`HandValue`: the best five-card poker hand the cards make, or, with fewer than five
live cards, what those cards make ("as many cards as the player has is used").

>>> from alley_poker.cards import parse_cards
>>> evaluate(parse_cards("KS KH 7D 7C KD 2S 3S")).describe()
'Full house, kings over sevens'
>>> evaluate(parse_cards("AS AD")) < evaluate(parse_cards("AS AD 2C"))
True
>>> evaluate(parse_cards("AS GJ 5H 4D 3C")).best_five
('5H', '4D', '3C', 'GJ=2S', 'AS')

The good joker ``GJ`` is wild; the bad joker ``BJ`` is a dead card, but ``GJ`` and ``BJ``
together are unbeatable.  Two options give the house variants: ``wild_may_duplicate=False``
("No Copies": the wild may only stand for a card the hand does not hold) and
``max_wilds_vs_naturals=True`` ("Wilds": a hand may not use more wilds than it holds natural
cards).  :func:`rank_hands` orders several bowlers' hands, ties together.

How it is fast (:mod:`alley_poker.hand_keys`): each card keeps its own encoding (worked out
when the card is made), and a hand's cards are summed into one integer holding a bit per
card and counts per suit, card and rank, so one AND tells whether anything is unusual (a
flush, a joker, a repeated card).  Five cards without a flush are then valued by one list
index: the sum also adds up a weight per rank, chosen so that every five-card rank pattern
sums to its own number.  Other hands without a flush are valued by one look-up of their rank
counts in a cache.  Otherwise pairs, trips and quads come from AND/OR of the four suit
masks, flushes and straights from tables (:mod:`alley_poker.hand_tables`), and wilds are
placed by reasoning about their best use: never trying substitutions or 5-card subsets.
The value is one integer: category in the high bits, then the tie-break ranks four bits
each.  Which five cards make it is worked out only when asked (:attr:`HandValue.best_five`,
:mod:`alley_poker.hand_explain`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import itemgetter

from alley_poker.cards import BAD, GOOD, Card
from alley_poker.hand_explain import best_five, describe, key_ranks
from alley_poker.hand_keys import (
    CARD_BITS,
    CARD_VALUE,
    CATEGORIES,
    CATEGORY_SHIFT,
    EMPTY_HAND,
    FEW_CARDS,
    FIVE_CARD_KEYS,
    FLAGS_SHIFT,
    JOKER_COUNT_MASK,
    JOKER_SHIFT,
    KEY_BY_RANK_COUNTS,
    NO_COPIES,
    RANK_COUNT_SHIFT,
    UNBEATABLE_KEY,
    UNUSUAL,
    WEIGHT_SHIFT,
    WILDS_CAPPED,
    WILDS_SHIFT,
    key_with_wilds,
    natural_key,
    usable_wilds,
)

__all__ = [
    "CATEGORIES",
    "DuplicateCardError",
    "HandError",
    "HandValue",
    "UnpoweredJokerError",
    "evaluate",
    "rank_hands",
]


class HandError(ValueError):
    """A hand the evaluator cannot value; the message names the offending card."""


class UnpoweredJokerError(HandError):
    """A physical joker (JOKER-A/JOKER-B) given without saying which power it holds."""


class DuplicateCardError(HandError):
    """The same standard card twice in one hand."""


class HandValue(tuple):
    """The poker value of a hand: immutable, hashable, totally ordered by poker strength.

    Two values are equal when they are worth the same, whatever cards make them; suits never
    break ties.  ``key`` is the whole ordering as one integer.

    >>> from alley_poker.cards import parse_cards
    >>> pair = evaluate(parse_cards("AS AD KC 7H 2D"))
    >>> pair.category, pair.ranks, pair.describe()
    ('pair', (14, 13, 7, 2), 'Pair of aces, king kicker')
    >>> pair == evaluate(parse_cards("AH AC KD 7S 2C")), pair > evaluate(parse_cards("KS KD"))
    (True, True)
    >>> HandValue.unbeatable("Morgan Maneuver") == evaluate(parse_cards("GJ BJ 2C"))
    True

    Values come from :func:`evaluate` and :meth:`unbeatable`.  Under the hood a value is a
    tuple ``(key, source[, reason])``, where ``source`` is the encoded hand
    (:mod:`alley_poker.hand_keys`) that :attr:`best_five` is rebuilt from: a tuple is the
    cheapest immutable object Python makes, and one is made per evaluation.  Use the
    properties; the tuple layout is not part of the interface.
    """

    __slots__ = ()

    @classmethod
    def unbeatable(cls, reason: str) -> HandValue:
        """An unbeatable value for a reason outside the cards, e.g. the Morgan Maneuver.

        It ties with every other unbeatable hand, including ``GJ`` with ``BJ``.

        >>> HandValue.unbeatable("Morgan Maneuver").describe()
        'Unbeatable: Morgan Maneuver'
        """
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("an unbeatable hand needs a reason, e.g. 'Morgan Maneuver'")
        return HandValue((UNBEATABLE_KEY, 0, reason.strip()))  # no cards behind it

    key = property(itemgetter(0), doc="The ordering as one integer: higher is better, equal ties.")

    @property
    def category(self) -> str:
        """One of :data:`CATEGORIES`, e.g. ``"full_house"``."""
        return CATEGORIES[self[0] >> CATEGORY_SHIFT]

    @property
    def ranks(self) -> tuple[int, ...]:
        """The tie-break ranks in the order they are compared (2..14, ace 14).

        Group ranks first (the trips, then the pair, of a full house), then kickers high to
        low; a straight gives only its top card (5 for the wheel).  Missing cards of a
        short hand are left out.
        """
        return key_ranks(self[0])

    @property
    def best_five(self) -> tuple[str, ...]:
        """The cards that make the value, in the order they count; a wild shows what it
        stands for (``"GJ=AS"``).  Fewer than five when the hand holds fewer live cards;
        ``("GJ", "BJ")`` for the two jokers; empty for no hand or a Morgan Maneuver."""
        if len(self) > 2:  # unbeatable: by the two jokers (a hand was given) or a ruling
            return ("GJ", "BJ") if self[1] else ()
        return best_five(self[1], self[0])

    @property
    def reason(self) -> str | None:
        """Why an unbeatable value is unbeatable (``"both jokers"``, ``"Morgan Maneuver"``)."""
        return self[2] if len(self) > 2 else None

    def describe(self) -> str:
        """The value in plain English, e.g. ``"Full house, kings over sevens"``."""
        return describe(self[0], self.reason)

    # Comparison is by value only.  Written out (not functools.total_ordering) because
    # sorting and ranking call these a great many times.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is HandValue:
            return self[0] == other[0]  # type: ignore[index]
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if other.__class__ is HandValue:
            return self[0] != other[0]  # type: ignore[index]
        return NotImplemented

    def __lt__(self, other: tuple) -> bool:
        if other.__class__ is HandValue:
            return self[0] < other[0]
        return NotImplemented

    def __le__(self, other: tuple) -> bool:
        if other.__class__ is HandValue:
            return self[0] <= other[0]
        return NotImplemented

    def __gt__(self, other: tuple) -> bool:
        if other.__class__ is HandValue:
            return self[0] > other[0]
        return NotImplemented

    def __ge__(self, other: tuple) -> bool:
        if other.__class__ is HandValue:
            return self[0] >= other[0]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self[0])

    def __repr__(self) -> str:
        cards = " ".join(self.best_five) or "-"
        return f"<HandValue {self.category} [{cards}] {self.describe()!r}>"


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------


def evaluate(
    cards: Iterable[Card], wild_may_duplicate: bool = True, max_wilds_vs_naturals: bool = False
) -> HandValue:
    """The value of the best poker hand that ``cards`` make (any number of cards).

    ``wild_may_duplicate=False`` is the "No Copies" rule: a wild may only stand for a card
    the hand does not hold (so no five of a kind).  ``max_wilds_vs_naturals=True`` is the
    "Wilds" rule: a hand may use no more wilds than it holds natural cards.  Give the
    options by name.  (They are not keyword-only parameters because CPython 3.11 only
    specialises calls to functions without any: about a tenth of a five-card evaluation.)

    >>> from alley_poker.cards import parse_cards
    >>> evaluate(parse_cards("AS GJ AD 9C 9H")).describe()
    'Full house, aces over nines'
    >>> evaluate(parse_cards("AS AD AH AC GJ")).describe()
    'Five of a kind, aces'
    >>> evaluate(parse_cards("AS AD AH AC GJ"), wild_may_duplicate=False).describe()
    'Four of a kind, aces'
    >>> evaluate(parse_cards("GJ"), max_wilds_vs_naturals=True).category
    'no_hand'
    >>> evaluate(parse_cards("BJ 2C GJ")).describe()
    'Unbeatable: both jokers'
    >>> evaluate(parse_cards("AS JOKER-A"))
    Traceback (most recent call last):
    ...
    alley_poker.hands.UnpoweredJokerError: JOKER-A has no power here: give it as GJ or BJ
    """
    # The hot path, written for speed: plain cards summed into one integer (each card keeps
    # its own encoding, Card._code; five unrolled: the commonest size, and the one where loop
    # overhead shows), then one list index (five cards) or one cache look-up.
    # Anything unusual leaves it: a joker, a repeated card, four of a kind, a flush, many
    # cards, options (see hand_keys.UNUSUAL); so does anything that raises, such as an
    # object that is not a card, for the careful path to name.
    try:
        if len(cards) == 5:  # type: ignore[arg-type]
            a, b, c, d, e = cards  # type: ignore[misc]
            hand = EMPTY_HAND + a._code + b._code + c._code + d._code + e._code
            if (not hand & UNUSUAL
                    and wild_may_duplicate is True and max_wilds_vs_naturals is False):
                # The rank weights' sum indexes every five-card rank pattern's value.
                return HandValue((FIVE_CARD_KEYS[hand >> WEIGHT_SHIFT], hand))
            count = 5
        else:
            count = len(cards)  # type: ignore[arg-type]
            hand = EMPTY_HAND
            for card in cards:
                hand += card._code
            if (not hand & UNUSUAL and count <= FEW_CARDS
                    and wild_may_duplicate is True and max_wilds_vs_naturals is False):
                key = KEY_BY_RANK_COUNTS.get(hand >> RANK_COUNT_SHIFT)
                return HandValue((natural_key(hand, count) if key is None else key, hand))
    except Exception:
        return _evaluate_carefully(cards, _option_flags(wild_may_duplicate,
                                                        max_wilds_vs_naturals))
    return _evaluate_unusual(cards, hand, count, wild_may_duplicate, max_wilds_vs_naturals)


def _evaluate_unusual(
    cards: object, hand: int, count: int, wild_may_duplicate: object,
    max_wilds_vs_naturals: object,
) -> HandValue:
    """:func:`evaluate` for what its hot path leaves: options given, a flush, four of a
    kind, many cards, jokers; or a card given twice or a joker without a power, which the
    careful path names."""
    if wild_may_duplicate is True and max_wilds_vs_naturals is False:
        flags = 0
    else:
        flags = _option_flags(wild_may_duplicate, max_wilds_vs_naturals)
    jokers = hand >> JOKER_SHIFT & JOKER_COUNT_MASK
    if (hand & CARD_BITS).bit_count() != count - jokers:
        # A card given twice: its card bits carried, so they count fewer than the cards.
        # (So does a joker count too big for its field.)
        return _evaluate_carefully(cards, flags)
    if not jokers:  # plain, different cards: without a wild the options change nothing
        return HandValue((natural_key(hand, count), hand | flags << FLAGS_SHIFT))
    try:
        powers = [card.joker for card in cards if card.joker]  # type: ignore[attr-defined]
    except AttributeError:  # something that looks like a card but is not one
        return _evaluate_carefully(cards, flags)
    wilds = powers.count(GOOD)
    dead = powers.count(BAD)
    if wilds + dead != jokers:  # a joker without a power
        return _evaluate_carefully(cards, flags)
    return _value_with_jokers(hand, wilds, dead, flags)


def _value_with_jokers(hand: int, wilds: int, dead: int, flags: int) -> HandValue:
    """The value of the natural cards encoded in ``hand`` with good and bad jokers."""
    source = hand | flags << FLAGS_SHIFT | wilds << WILDS_SHIFT
    if wilds and dead:
        return HandValue((UNBEATABLE_KEY, source, "both jokers"))
    usable = usable_wilds((hand & CARD_BITS).bit_count(), wilds, flags)
    return HandValue((key_with_wilds(hand, usable, flags), source))


def rank_hands(
    hands: Mapping[str, Iterable[Card] | HandValue], **options: bool
) -> list[list[str]]:
    """Names grouped best hand first; tied names share a group, in input order.

    A value may be a :class:`HandValue` already (e.g. ``HandValue.unbeatable(...)``).

    >>> from alley_poker.cards import parse_cards
    >>> rank_hands({"Ann": parse_cards("KS KD"), "Bob": parse_cards("AS 2C"),
    ...             "Cy": parse_cards("KH KC"), "Di": []})
    [['Ann', 'Cy'], ['Bob'], ['Di']]
    """
    values = {
        name: cards if isinstance(cards, HandValue) else evaluate(cards, **options)
        for name, cards in hands.items()
    }
    groups: list[list[str]] = []
    last_key = None
    for name in sorted(values, key=lambda who: -values[who].key):  # stable: input order
        key = values[name].key
        if key == last_key:
            groups[-1].append(name)
        else:
            groups.append([name])
            last_key = key
    return groups


def _option_flags(wild_may_duplicate: object, max_wilds_vs_naturals: object) -> int:
    for name, given in (("wild_may_duplicate", wild_may_duplicate),
                        ("max_wilds_vs_naturals", max_wilds_vs_naturals)):
        if not isinstance(given, bool):
            raise TypeError(f"{name} must be True or False, not {given!r}")
    return (0 if wild_may_duplicate else NO_COPIES) | (WILDS_CAPPED if max_wilds_vs_naturals else 0)


def _evaluate_carefully(cards: object, flags: int) -> HandValue:
    """Check every card, then value a hand holding jokers (or raise, naming the bad card)."""
    if isinstance(cards, str | bytes):
        raise TypeError(f"evaluate() takes Card objects, not text {cards!r}: use parse_cards()")
    if isinstance(cards, Card):
        raise TypeError(f"evaluate() takes a collection of cards, not one card ({cards})")
    try:
        cards = tuple(cards)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(
            f"evaluate() takes a collection of Card objects, not {type(cards).__name__}"
        ) from None
    hand = EMPTY_HAND
    wilds = dead = 0
    for card in cards:
        if not isinstance(card, Card):
            raise TypeError(
                f"evaluate() takes Card objects (see parse_cards), not {card!r} "
                f"({type(card).__name__})"
            )
        if card.joker == GOOD:
            wilds += 1
        elif card.joker == BAD:
            dead += 1
        elif card.joker:
            raise UnpoweredJokerError(f"{card} has no power here: give it as GJ or BJ")
        else:
            value = CARD_VALUE[card.suit][card.rank]
            if hand & value & CARD_BITS:
                raise DuplicateCardError(f"{card} is in the hand twice")
            hand += value
    return _value_with_jokers(hand, wilds, dead, flags)
