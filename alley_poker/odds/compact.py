"""A match state as the fast odds engine plays it: plain ints, lists and bitmasks.

:func:`compile_start` reads a :class:`~alley_poker.ledger.MatchState` once per state (never
per run) into a :class:`Start`: cards as small ints (0-51 the standard cards, 52 and 53 the
physical jokers), the hidden pile as a list of them in canonical order, each seat's hand,
hole, acquisitions (only what the Morgan Maneuver reads), the decisions still open, and each
seat's bowling position (frame, ball, the pins standing as a 10-bit mask).  A run copies the
few small lists it changes; nothing else is copied.

:class:`HandJudge` values hands through the project's evaluator
(:func:`alley_poker.hands.evaluate`) with the match's options, cached by the cards held, and
makes the automatic choice of a card to lose exactly as
:func:`alley_poker.ledger.values.automatic_loss` does.

>>> judge = HandJudge(wild_may_duplicate=True, max_wilds_vs_naturals=False, morgan=True)
>>> pair_of_aces = (CARD_ID["AS"], CARD_ID["AD"])
>>> judge.key(pair_of_aces, GOOD_A) > judge.key((CARD_ID["KS"],), GOOD_A)
True
>>> judge.automatic_loss([CARD_ID["2C"], CARD_ID["AS"], CARD_ID["AD"]], GOOD_A) == CARD_ID["2C"]
True
"""

from __future__ import annotations

from dataclasses import dataclass

from alley_poker.bowling import PINS, Game, is_split
from alley_poker.cards import FULL_DECK, Card, parse_card
from alley_poker.hand_keys import (
    EMPTY_HAND,
    NO_COPIES,
    UNBEATABLE_KEY,
    WILDS_CAPPED,
    card_code,
    key_with_wilds,
    natural_key,
    usable_wilds,
)
from alley_poker.ledger.games import rebuild_game
from alley_poker.ledger.state import JOKERS, MatchState

#: Every card of the deck as the ledger writes it, by its id; the jokers are 52 and 53.
CARD_TEXT: tuple[str, ...] = tuple(sorted(str(card) for card in FULL_DECK
                                           if not card.is_joker)) + JOKERS
CARD_ID: dict[str, int] = {text: index for index, text in enumerate(CARD_TEXT)}
JOKER_A, JOKER_B = CARD_ID["JOKER-A"], CARD_ID["JOKER-B"]
#: Which physical joker holds the good power: the whole of ``powers`` in one int.
GOOD_A, GOOD_B = JOKER_A, JOKER_B
#: The evaluator's card for each standard card id, its encoding, and its place in the
#: evaluator's order of cards (rank, then suit).
_CARDS: tuple[Card, ...] = tuple(parse_card(text) for text in CARD_TEXT[:52])
CARD_CODE: tuple[int, ...] = tuple(card_code(card.rank, card.suit) for card in _CARDS)
CARD_ORDER: tuple[int, ...] = tuple(sorted(_CARDS).index(card) for card in _CARDS)
#: Above every field of an encoded hand (hand_keys: the rank weights end below bit 300).
_JOKERS_SHIFT = 320

#: Pins as a 10-bit mask (bit ``pin - 1``) and back.
FULL_RACK = (1 << 10) - 1
MASK_PINS: tuple[frozenset[int], ...] = tuple(
    frozenset(pin for pin in range(1, 11) if mask >> (pin - 1) & 1) for mask in range(1024))
PIN_MASK: dict[frozenset[int], int] = {pins: mask for mask, pins in enumerate(MASK_PINS)}
#: The USBC split test of every leave, worked out once (bowling.is_split).
SPLIT: tuple[bool, ...] = tuple(is_split(pins) for pins in MASK_PINS)
POPCOUNT: tuple[int, ...] = tuple(mask.bit_count() for mask in range(1024))

#: Decision kinds as ints (the open decisions a run starts with).
LOSE_CARD, STEAL, END_DRAW, BUY = range(4)
_KIND = {"lose_card": LOSE_CARD, "steal": STEAL, "end_draw": END_DRAW, "buy": BUY}


class HandJudge:
    """Hand values (the evaluator's integer keys) and the automatic card loss, cached.

    A hand is encoded as :func:`alley_poker.hands.evaluate` encodes it (the sum of its cards'
    :func:`~alley_poker.hand_keys.card_code`) and valued by the same functions of
    :mod:`alley_poker.hand_keys` that ``evaluate`` calls (``natural_key``, or
    ``key_with_wilds`` with the wilds the house options allow), without building card
    objects: the same integer ``evaluate(...).key`` gives, which the tests check.  The sum
    holds a bit per card, so it names the hand exactly and is the cache's key.
    """

    __slots__ = ("_cache", "_flags", "morgan")

    #: Cached values at most; then the cache starts over (a long night's worth of hands).
    LIMIT = 200_000

    def __init__(self, *, wild_may_duplicate: bool, max_wilds_vs_naturals: bool,
                 morgan: bool):
        self._flags = ((0 if wild_may_duplicate else NO_COPIES)
                       | (WILDS_CAPPED if max_wilds_vs_naturals else 0))
        self.morgan = morgan
        self._cache: dict[int, int] = {}

    @property
    def flags(self) -> int:
        """The evaluator's options (``hand_keys.NO_COPIES``, ``WILDS_CAPPED``)."""
        return self._flags

    def key(self, cards, good: int) -> int:
        """The value of ``cards`` (ids) when joker ``good`` holds the good power."""
        hand = EMPTY_HAND
        count = wild = dead = 0
        for card in cards:
            if card < JOKER_A:
                hand += CARD_CODE[card]
                count += 1
            elif card == good:
                wild += 1
            else:
                dead += 1
        return self._coded(hand, count, wild, dead)

    def _coded(self, hand: int, count: int, wild: int, dead: int) -> int:
        """The value of the natural cards encoded as ``hand`` (``count`` of them) beside
        ``wild`` good jokers and ``dead`` bad ones."""
        # Jokers are told apart above the cards' own fields.
        cache_key = hand | (wild << 2 | dead) << _JOKERS_SHIFT
        value = self._cache.get(cache_key)
        if value is None:
            if len(self._cache) >= self.LIMIT:
                self._cache.clear()
            if wild and dead:
                value = UNBEATABLE_KEY
            elif wild or dead:
                flags = self._flags
                value = key_with_wilds(hand, usable_wilds(count, wild, flags), flags)
            else:
                value = natural_key(hand, count)
            self._cache[cache_key] = value
        return value

    def automatic_loss(self, hand: list[int], good: int) -> int:
        """The card whose loss leaves the strongest hand; between equals, the lowest card
        (as the evaluator's cards order: rank, then suit; a joker lowest, BJ below GJ).

        Losing a card never makes a hand stronger (the evaluator values the best five
        cards a hand can make, and a hand without a card can make fewer), so no loss
        leaves more than the whole hand is worth.  The cards are therefore tried lowest
        first, and the first whose loss leaves the hand's whole value is the choice: the
        strongest, and the lowest of the equals.  A big hand almost always has one among
        its lowest cards (outside its best five), so one or two evaluations replace one
        per card.  When none does (a short hand: every card counts), every card has been
        tried and the best is taken, as :func:`alley_poker.ledger.values.automatic_loss`
        takes it (the tests compare the two on random hands under every option).
        """
        code = EMPTY_HAND
        naturals: list[int] = []
        wild = dead = 0
        for card in hand:
            if card < JOKER_A:
                code += CARD_CODE[card]
                naturals.append(card)
            elif card == good:
                wild += 1
            else:
                dead += 1
        if not hand:
            raise ValueError("no card to lose")
        count = len(naturals)
        whole = self._coded(code, count, wild, dead)
        bad = JOKER_B if good == JOKER_A else JOKER_A
        best_value = best = None
        # The bad joker, the good one, then the natural cards, lowest first.
        if dead:
            value = self._coded(code, count, wild, dead - 1)
            if value == whole:
                return bad
            best_value, best = value, bad
        if wild:
            value = self._coded(code, count, wild - 1, dead)
            if value == whole:
                return good
            if best is None or value > best_value:
                best_value, best = value, good
        naturals.sort(key=CARD_ORDER.__getitem__)
        for card in naturals:
            value = self._coded(code - CARD_CODE[card], count - 1, wild, dead)
            if value == whole:
                return card
            if best is None or value > best_value:
                best_value, best = value, card
        return best

    def value(self, hand: list[int], good: int, acquired: int, first_drawn: int) -> int:
        """The showdown's value: the Morgan Maneuver (the only card acquired is a joker
        the bowler drew and still holds) is unbeatable, else the evaluator's."""
        if (self.morgan and acquired == 1 and first_drawn >= JOKER_A
                and first_drawn in hand):
            return UNBEATABLE_KEY
        return self.key(hand, good)


@dataclass(frozen=True)
class Position:
    """Where a seat's bowling stands: the game in progress (0-based; ``games`` once done),
    what its next ball faces, its balls so far (for the score) and the series so far."""

    game: int
    frame: int
    ball: int
    full_rack: bool
    standing: int           # pins standing as a mask; -1: the feed gave only the count
    count: int              # how many pins stand
    rack_first: bool        # this ball is the second of its rack (a spare is possible)
    balls_in_game: int
    credited: tuple         # the game's balls so far: (pins, strike, spare, frame, ends)
    series: int             # scores of the seat's completed games
    streak: tuple | None    # the ledger's [kind, cards] of the last mark, as a tuple


@dataclass(frozen=True)
class Start:
    """Everything a run of one state starts from (read-only; a run copies what it changes)."""

    match_id: str
    seq: int
    bowlers: tuple[str, ...]
    playing: bool
    games: int
    pile: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    good: int
    armed: frozenset[int]
    hole: tuple[int, ...]
    acquired: tuple[int, ...]       # how many cards each seat acquired (draws, takes)
    first_drawn: tuple[int, ...]    # the card of a seat's first acquisition by draw, else -1
    first_strike: frozenset[int]    # games whose first-strike bonus has gone
    decisions: tuple[tuple[int, int], ...]  # (kind, seat), oldest first
    positions: tuple[Position, ...]
    handicap_series: tuple[int, ...]  # added to each series when the low is by handicap
    pot_cents: int
    odd_to_first: bool
    rules: object                   # the RuleBook


def _position(state: MatchState, bowler: str) -> Position:
    streak = state.streak[bowler]
    streak = None if streak is None else (streak[0], streak[1])
    series = 0
    if not state.in_play(bowler):
        # A bowler who left bowls no more: in every run they have finished as they are.
        series = sum(rebuild_game(balls).score_so_far() for balls in state.balls[bowler])
        return Position(state.games, 0, 0, False, 0, 0, False, 0, (), series, streak)
    for number, balls in enumerate(state.balls[bowler]):
        game = rebuild_game(balls)
        if not game.is_complete:
            return _in_game(number, game, series, streak)
        series += game.score()
    return Position(state.games, 0, 0, False, 0, 0, False, 0, (), series, streak)


#: Added to the judged series of a bowler who left, so no run offers them the lowest-score
#: draw (the ledger judges the lowest among those still bowling).  The runs may still offer
#: them a buy the ledger would not: the odds of a match someone left are that much rougher.
LEFT_SERIES = 1_000_000


def _in_game(number: int, game: Game, series: int, streak) -> Position:
    standing = game.standing_pins
    at = game._next  # what the next ball faces, rack's first ball included
    credited = tuple((ball.pins, ball.is_strike, ball.is_spare, ball.frame, ball.ends_frame)
                     for ball in game.balls)
    # A count-only feed never said which pins stood: -1 until a run invents a leave.
    mask = -1 if standing is None else PIN_MASK[frozenset(standing)]
    return Position(number, at.frame, at.ball, at.full_rack, mask, at.standing_count,
                    at.rack_first_ball is not None, len(game.balls),
                    credited, series, streak)


def compile_start(state: MatchState) -> Start:
    """The compact form of a live ``state`` (status playing or ending, no result)."""
    rules = state.rules
    bowlers = tuple(state.bowlers)
    seat = {bowler: index for index, bowler in enumerate(bowlers)}
    good = GOOD_A if state.powers.get("JOKER-A") == "good" else GOOD_B
    first_drawn = []
    for bowler in bowlers:
        acquired = state.acquired[bowler]
        first_drawn.append(CARD_ID[acquired[0][0]] if acquired and acquired[0][1] == "draw"
                           else -1)
    by_handicap = rules.lowest_score_draw_by == "handicap"
    return Start(
        match_id=state.match_id, seq=state.seq, bowlers=bowlers,
        playing=state.status == "playing", games=state.games,
        pile=tuple(sorted(CARD_ID[card] for card in state.pile)),
        hands=tuple(tuple(CARD_ID[card] for card in state.hands[b]) for b in bowlers),
        good=good, armed=frozenset(CARD_ID[card] for card in state.armed),
        hole=tuple(state.hole[b] for b in bowlers),
        acquired=tuple(len(state.acquired[b]) for b in bowlers),
        first_drawn=tuple(first_drawn),
        first_strike=frozenset(state.first_strike),
        decisions=tuple((_KIND[d["kind"]], seat[d["bowler"]])
                        for d in state.decisions.values()),
        positions=tuple(_position(state, b) for b in bowlers),
        handicap_series=tuple(((state.handicaps.get(b, 0) * state.games) if by_handicap else 0)
                              + (0 if state.in_play(b) else LEFT_SERIES) for b in bowlers),
        pot_cents=state.pot_cents, odd_to_first=rules.odd_cents == "first_seated",
        rules=rules)


def judge_for(rules) -> HandJudge:
    """The hand judge of a rule book."""
    return HandJudge(wild_may_duplicate=rules.wild_may_duplicate,
                     max_wilds_vs_naturals=rules.max_wilds_vs_naturals,
                     morgan=rules.morgan_maneuver)


__all__ = ["CARD_ID", "CARD_TEXT", "FULL_RACK", "MASK_PINS", "PINS", "PIN_MASK", "SPLIT",
           "HandJudge", "Position", "Start", "compile_start", "judge_for"]
