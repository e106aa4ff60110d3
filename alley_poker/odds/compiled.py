"""The fast engine's runs in C (``_card_play.c``): a seat's script of balls in one call
(:func:`bowl`), a batch of runs' card play in another (:func:`play_runs`), the same balls
and winners as :func:`alley_poker.odds.seat_scripts.seat_script` and
:func:`alley_poker.odds.rollout.play_cards` give.

The module is built by ``pip install`` (``setup.py``; optional: a machine without a C
compiler gets the Python engine, which is slower, not different).  :data:`AVAILABLE` says
which one a process has; the live odds warn when it is the Python.

What goes in is plain ``array``s of ints and floats: the state's start
(:func:`start_words`), the runs as :mod:`alley_poker.odds.fast` packs them for
:class:`~alley_poker.odds.fast.WarmRuns` (per run, per seat, its series, its events' count
and its events), a seat's position, each game's form as its tables' running totals
(:func:`form_bytes`).  The random numbers come from the caller's :class:`random.Random`
(its Mersenne Twister state goes in, and comes back for the cards), so the C and the Python
draw the same numbers and make the same runs.
"""

from __future__ import annotations

import random
from array import array

from alley_poker.hand_keys import NO_COPIES, WILDS_CAPPED
from alley_poker.hand_tables import STRAIGHT_WITH_GAPS, TOP_RANKS
from alley_poker.odds.ball_tables import (
    _CLASS_OF,
    _KIND_LEAVES,
    FRAME_OUTCOMES,
    BallTable,
    rates_table,
)
from alley_poker.odds.compact import (
    CARD_CODE,
    CARD_ORDER,
    END_DRAW,
    JOKER_A,
    LOSE_CARD,
    HandJudge,
    Position,
    Start,
)
from alley_poker.odds.seat_scripts import ScriptRules

try:
    import alley_poker.odds._card_play as _card_play
except ImportError:  # not built: the Python card play
    _card_play = None

# _card_play.c numbers the decisions and the jokers as compact does.
AVAILABLE = _card_play is not None and (LOSE_CARD, END_DRAW, JOKER_A) == (0, 2, 52)

# Start flags, as _card_play.c reads them.
_FREAKY, _COURTESY, _LOW_DRAW, _MORGAN, _ODD_TO_FIRST = 1, 2, 4, 8, 16


def _tables() -> array:
    words = array("I")
    for table in TOP_RANKS:
        words.extend(table)
    for table in STRAIGHT_WITH_GAPS:
        words.extend(table)
    # Each card's suit block and rank (its bit in the encoding is 13 * block + rank - 2).
    bits = [(code & ((1 << 52) - 1)).bit_length() - 1 for code in CARD_CODE]
    words.extend(bit // 13 for bit in bits)
    words.extend(bit % 13 for bit in bits)
    words.extend(CARD_ORDER)
    return words


# -- the balls ------------------------------------------------------------------------------

#: The conversion classes of a leave (ball_tables._CLASS_OF), numbered for the C tables.
_CLASSES: tuple = tuple(dict.fromkeys(_CLASS_OF))
_CLASS_INDEX = {cls: index for index, cls in enumerate(_CLASSES)}
_MAX_LEAVES, _MAX_CLASSES = 64, 32  # as _card_play.c's MAX_LEAVES and CLASSES
if len(_CLASSES) > _MAX_CLASSES or any(len(leaves) > _MAX_LEAVES for leaves, _ in _KIND_LEAVES):
    AVAILABLE = False  # the ball tables outgrew the C's: the Python engine plays


def _ball_tables() -> tuple[array, array, array, array]:
    outcomes = array("i")
    for kind, pins, second, lost, gutter in FRAME_OUTCOMES:
        outcomes.extend((kind, pins, second, lost, gutter))
    leaves, totals = array("i"), array("d")
    for kind_leaves, kind_totals in _KIND_LEAVES:
        leaves.append(len(kind_leaves))
        leaves.extend(kind_leaves)
        leaves.extend([0] * (_MAX_LEAVES - len(kind_leaves)))
        totals.extend(kind_totals)
        totals.extend([0.0] * (_MAX_LEAVES - len(kind_totals)))
    classes = array("i", (_CLASS_INDEX[cls] for cls in _CLASS_OF))
    return outcomes, leaves, totals, classes


def _form_bytes(table: BallTable) -> bytes:
    """One game's form as _card_play.c's FormTable: the running totals of
    :class:`~alley_poker.odds.ball_tables.BallTable`, the frames' and, for every conversion
    class, the gutter and clearing totals ``BallTable._later`` works out."""
    rates = table._rates
    words = array("d", (table.foul, table.gutter, table.strike))
    words.extend(table.kinds)
    words.extend(table.frames()[1])
    gutter = rates.foul + rates.gutter2
    for cls in _CLASSES:
        words.extend((gutter, gutter + (1 - gutter) * rates.conversion_of(*cls)))
    words.extend([0.0] * (2 * (_MAX_CLASSES - len(_CLASSES))))
    return words.tobytes()


#: Each form's bytes, by its table (as many as ball_tables keeps tables).
_FORMS: dict[BallTable, bytes] = {}
_FORMS_KEPT = 16_384


def form_bytes(rates) -> bytes:
    """The C table of a game bowled at ``rates`` (``BowlerProfile.game_rates``)."""
    table = rates_table(rates)
    words = _FORMS.get(table)
    if words is None:
        if len(_FORMS) >= _FORMS_KEPT:
            _FORMS.clear()
        words = _FORMS[table] = _form_bytes(table)
    return words


def rules_words(rules: ScriptRules) -> array:
    return array("i", (rules.games, rules.strike_cards, rules.spare_cards, rules.streak_cap,
                       rules.streak_spans_games, rules.full_rack_gutters, rules.scores))


def position_words(pos: Position, seat: int, mask: int) -> array:
    """A seat's position as ``bowl`` reads it, its pins standing ``mask``."""
    kind, due = (0, 0) if pos.streak is None else (_STREAK[pos.streak[0]], pos.streak[1])
    words = array("i", (pos.game, pos.frame, pos.ball, pos.full_rack, mask, pos.rack_first,
                        pos.balls_in_game, pos.series, kind, due, seat, len(pos.credited)))
    for pins, strike, spare, _frame, _ends in pos.credited:
        words.extend((pins, strike, spare))
    return words


_STREAK = {"strike": 1, "spare": 2}


def twister(rng: random.Random) -> array:
    """``rng``'s Mersenne Twister as ``bowl`` moves it on: its 624 words, then its index."""
    return array("I", rng.getstate()[1])


def bowl(position: array, rules: array, forms: tuple[bytes, ...], state: array) -> bytes:
    """A seat's script from ``position`` (as fast.py packs it: series, events' count,
    events), its games bowled in ``forms``, the balls drawn from the twister ``state``."""
    return _card_play.bowl(position, rules, forms, state)


def evaluator_flags(judge: HandJudge) -> int:
    return judge.flags & (NO_COPIES | WILDS_CAPPED)


def start_words(start: Start, judge: HandJudge) -> array | None:
    """``start`` as ``_card_play.c`` reads it; None when it does not fit (more than 16
    seats, a first-strike game beyond 31), so the Python card play takes it."""
    seats = len(start.bowlers)
    if seats > 16 or any(not 0 <= game < 32 for game in start.first_strike):
        return None
    rules = start.rules
    flags = ((_FREAKY if rules.freaky_friday else 0)
             | (_COURTESY if rules.empty_pile == "courtesy_shuffle" else 0)
             | (_LOW_DRAW if start.playing and rules.lowest_score_draw else 0)
             | (_MORGAN if judge.morgan else 0)
             | (_ODD_TO_FIRST if start.odd_to_first else 0))
    words = array("i", (seats, flags, evaluator_flags(judge), rules.first_strike_bonus,
                        start.pot_cents, start.good,
                        sum(1 << (card - 52) for card in start.armed),
                        sum(1 << game for game in start.first_strike),
                        len(start.pile)))
    words.extend(start.pile)
    for seat in range(seats):
        hand = start.hands[seat]
        words.extend((start.hole[seat], start.acquired[seat], start.first_drawn[seat],
                      start.handicap_series[seat], len(hand)))
        words.extend(hand)
    words.append(len(start.decisions))
    for kind, seat in start.decisions:
        words.extend((kind, seat))
    return words


def play_runs(start: array, runs: array, count: int, rng: random.Random
              ) -> tuple[list[float], list[float]]:
    """Each seat's wins (a tie of *k* as 1/*k*) and cents summed over ``count`` runs,
    drawing from ``rng`` (whose state moves on as the Python card play would move it)."""
    version, internal, gauss = rng.getstate()
    state = array("I", internal[:-1])
    (wins, cents), index = _card_play.play_runs(start, runs, count, state, internal[-1])
    rng.setstate((version, (*state, index), gauss))
    return wins, cents


def hand_value(cards, good: int, judge: HandJudge) -> int:
    """The C evaluator's key of ``cards`` (for the tests that hold it to the judge's)."""
    return _card_play.hand_value(array("i", cards), good, evaluator_flags(judge))


def automatic_loss(cards, good: int, judge: HandJudge) -> int:
    """The C automatic card loss (for the tests)."""
    return _card_play.lose_card(array("i", cards), good, evaluator_flags(judge))


if AVAILABLE:
    _card_play.setup(_tables())
    _card_play.setup_balls(*_ball_tables())


__all__ = ["AVAILABLE", "automatic_loss", "bowl", "form_bytes", "hand_value", "play_runs",
           "position_words", "rules_words", "start_words", "twister"]
