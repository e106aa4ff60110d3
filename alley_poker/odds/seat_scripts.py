"""The balls of a run, bowled seat by seat: each seat's rest of the match as a *script* of
the few balls the cards care about.

The bowling never looks at the cards, and one bowler's balls never look at another's, so a
run's balls can be bowled one seat at a time, before any card moves: from the seat's
position (:class:`~alley_poker.odds.compact.Position`) to the end of its last game, through
exactly the two calls a bowler's model offers (``profile.for_game(rng)`` for each game left,
the one in progress included, all drawn first; ``form.ball(standing, balls)`` for every
ball).  For the model the engine knows, a plain ``BowlerProfile``, the balls come from
tables of that model's own chances instead (:mod:`alley_poker.odds.ball_tables`: one
``random()`` a ball, or a whole frame of frames 1-9 from a fresh rack; the same
distribution, fewer random numbers).  Each ball is judged as
:meth:`alley_poker.bowling.Game.roll` and :func:`alley_poker.ledger.play.record_ball` judge
it (strike, spare, foul, the gutter ball by the rule book's ``gutter_detection``, the streak
and the cards it earns), and only the balls that move cards are kept, as one int each (an
*event*):

    bits 16-19 game (1-based), 12-15 frame, 8-11 seat, 6-7 ball of the frame,
    2-5 cards earned, 1 strike (the first-strike bonus), 0 gutter ball (a card lost)

so sorting a run's events (ints) puts them in the order the bowlers bowl: the one furthest
behind (game, then frame) first, seat order breaking ties, each seat's balls of a frame in
turn.  A split pickup earns its spare's cards; its steal lapses when nobody answers (the
automatic choice), so it moves nothing and is not kept.

>>> import random
>>> from alley_poker.odds.ball_model import BowlerProfile
>>> from alley_poker.ledger.rules import RuleBook
>>> from alley_poker.odds.compact import FULL_RACK, Position
>>> fresh = Position(0, 1, 1, True, FULL_RACK, 10, False, 0, (), 0, None)
>>> rules = ScriptRules.of(RuleBook.default(), games=1)
>>> events, series = seat_script(fresh, 2, BowlerProfile.for_average("Ann", 200),
...                              random.Random(4), rules)
>>> 0 <= series <= 300, all((event >> 8) & 15 == 2 for event in events)
(True, True)
"""

from __future__ import annotations

import random
from bisect import bisect
from dataclasses import dataclass

from alley_poker.odds.ball_tables import SPARE, STRIKE, ball_table
from alley_poker.odds.compact import FULL_RACK, MASK_PINS, PIN_MASK, POPCOUNT, Position

#: Frames 1-9 from a fresh rack are drawn whole (``ball_tables.frame_table``) when the model
#: has tables; off, every ball is drawn on its own (the tests compare the two).
FRAME_TABLES = True


@dataclass(frozen=True)
class ScriptRules:
    """The rule book's keys a seat's script reads."""

    games: int
    strike_cards: int
    spare_cards: int
    streak_cap: int
    streak_spans_games: bool
    full_rack_gutters: bool   # gutter_detection = "full_rack" (else the scorer's flag)
    scores: bool              # the lowest-score draw needs each game's score

    @classmethod
    def of(cls, rules, games: int) -> ScriptRules:
        return cls(games, rules.strike_cards, rules.spare_cards, rules.streak_cap,
                   rules.streak_spans_games, rules.gutter_detection == "full_rack",
                   rules.lowest_score_draw)


def invent_leave(count: int, rng: random.Random) -> frozenset[int]:
    """Pins standing when a count-only feed said how many but not which: ``count`` pins
    drawn at random (both engines use this, so they agree)."""
    return frozenset(rng.sample(range(1, 11), count))


def game_score(balls: list) -> int:
    """A finished game's score from its balls ``(pins credited, strike, spare, frame,
    ends frame)``, as :attr:`alley_poker.bowling.Game.frames` adds it up: frames 1-9 are a
    strike (10 and the next two balls) or two balls (10 and the next ball for a spare),
    the tenth is its balls."""
    total = index = 0
    for _ in range(9):
        first = balls[index]
        if first[1]:
            total += 10 + balls[index + 1][0] + balls[index + 2][0]
            index += 1
        else:
            second = balls[index + 1]
            total += 10 + balls[index + 2][0] if second[2] else first[0] + second[0]
            index += 2
    for ball in balls[index:]:
        total += ball[0]
    return total


def seat_script(pos: Position, seat: int, profile, rng: random.Random,
                rules: ScriptRules, balls: random.Random | None = None
                ) -> tuple[list[int], int]:
    """The rest of one seat's match: its events (see the module) and its scratch series.

    Each game's form comes from ``rng`` (all of them first), the balls from ``balls``
    (``rng`` when not given): so the compiled bowling (:mod:`alley_poker.odds.compiled`),
    given the same forms and the state of ``balls``, bowls the same balls."""
    events: list[int] = []
    game, games = pos.game, rules.games
    series = pos.series
    if game >= games:
        return events, series
    balls = balls or rng
    forms = [profile.for_game(rng) for _ in range(game, games)]
    scores = rules.scores
    spans = rules.streak_spans_games
    cap = rules.streak_cap
    full_rack_gutters = rules.full_rack_gutters
    strike_cards, spare_cards = rules.strike_cards, rules.spare_cards
    form = forms[0]
    table = ball_table(form)
    uniform = balls.random
    use_frames = FRAME_TABLES
    if table is not None and use_frames:
        frames, frame_totals = table.frames()
    frame, number, full, mask, first = pos.frame, pos.ball, pos.full_rack, pos.standing, \
        pos.rack_first
    if mask < 0:
        mask = PIN_MASK[invent_leave(pos.count, rng)]
    in_game = pos.balls_in_game
    credited = list(pos.credited)
    streak = pos.streak
    head = ((game + 1) << 4 | frame) << 4 | seat
    while True:
        if number == 1 and frame < 10 and table is not None and use_frames:
            # A whole frame from a fresh rack in one draw (ball_tables.frame_table), judged
            # as the balls below judge its one or two balls.
            kind, pins, second, lost, gutter = frames[bisect(frame_totals, uniform())]
            previous = streak if in_game or spans else None
            if kind == STRIKE:
                due = strike_cards
                if previous is not None and previous[0] == "strike":
                    due = max(due, min(previous[1] + 1, cap))
                streak = ("strike", due)
                events.append(head << 8 | due << 2 | 2)
                in_game += 1
                if scores:
                    credited.append((10, True, False, frame, True))
            else:
                if lost:  # the first ball a gutter at a full rack: both ways of telling
                    events.append(head << 8 | 1)
                if kind == SPARE:
                    due = spare_cards
                    if previous is not None and previous[0] == "spare":
                        due = max(due, min(previous[1] + 1, cap))
                    streak = ("spare", due)
                    if due:
                        events.append((head << 2 | 1) << 6 | due << 2)
                else:
                    streak = None
                    # A second ball's gutter costs a card by the scorer's flag only: the
                    # "full_rack" detection never counts a frame's second ball (below, its
                    # ``full`` is False even after a foul or a gutter left ten pins).
                    if gutter and not full_rack_gutters:
                        events.append((head << 2 | 1) << 6 | 1)
                in_game += 2
                if scores:
                    credited.append((pins, False, False, frame, False))
                    credited.append((second, False, kind == SPARE, frame, True))
            frame += 1
            head = ((game + 1) << 4 | frame) << 4 | seat
            continue
        count = POPCOUNT[mask]
        if table is not None:
            pins, after, foul, gutter = table.ball(mask, uniform)
        else:
            pins, leave, foul, gutter = form.ball(MASK_PINS[mask], balls)
            if foul:
                pins, after = 0, mask
            else:
                after = PIN_MASK[leave]
        left = count - pins
        strike = full and not foul and pins == 10
        spare = first and not foul and left == 0
        if frame < 10:
            ends = strike or number == 2
        else:
            ends = number == 3 or (number == 2 and first and not spare)
        previous = None if in_game == 0 and not spans else streak
        if strike or spare:
            kind = "strike" if strike else "spare"
            due = strike_cards if strike else spare_cards
            if previous is not None and previous[0] == kind:
                due = max(due, min(previous[1] + 1, cap))
            streak = (kind, due)
        else:
            due = 0
            streak = None if ends else previous
        if foul:
            lost = False
        elif full_rack_gutters:
            lost = full and pins == 0
        else:
            lost = gutter
        if due or strike or lost:
            events.append(((head << 2 | number - 1) << 6) | due << 2 | strike << 1 | lost)
        in_game += 1
        if scores:
            credited.append((pins, strike, spare, frame, ends))
        if ends:
            if frame == 10:
                if scores:
                    series += game_score(credited)
                game += 1
                if game >= games:
                    return events, series
                form = forms[game - pos.game]
                table = ball_table(form)
                if table is not None and use_frames:
                    frames, frame_totals = table.frames()
                frame, in_game, credited = 1, 0, []
            else:
                frame += 1
            head = ((game + 1) << 4 | frame) << 4 | seat
            number, full, mask, first = 1, True, FULL_RACK, False
        elif left == 0:  # the 10th frame's fill ball at a fresh rack
            number, full, mask, first = number + 1, True, FULL_RACK, False
        else:
            number, full, mask, first = number + 1, False, after, True
