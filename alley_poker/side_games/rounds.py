"""A bracket's rounds decided from the games the scorer sent, ties by the bracket's rule.

Round ``r`` is decided on the bracket's counted game ``games[r - 1]``, scratch or with each
bowler's handicap for that game; the higher score goes through.  A tie is decided by the tie
rule (:data:`~alley_poker.side_games.settings.TIE_RULES`): ``next_game`` compares the next
counted games in the bracket's order (then the one after), and when those tie too (or there
are none: the final) a roll-off the desk records; ``roll_off`` goes to the roll-off at once;
``split`` is ``next_game`` except that a tied final shares first and second prize.  Nothing
is stored here: a corrected game simply decides again (a paid bracket is the night's business,
:mod:`.night`).

>>> from alley_poker.side_games.draw import Bracket
>>> from alley_poker.side_games.settings import BracketSettings
>>> rules = BracketSettings(games=(1, 2, 3), scoring="handicap", entry_cents=500,
...                         payouts_cents=(3000, 1000))
>>> bracket = Bracket(1, (1, 2, 3, 4, 5, 6, 7, None))
>>> scores = {(b, g): GameScore(150 + b * g, handicap=10) for b in range(1, 8)
...           for g in (1, 2, 3)}
>>> outcome = decide_bracket(bracket, rules, scores)
>>> [(m.round, m.sides, m.winner, m.how) for m in outcome.matches][3:]
[(1, (7, None), 7, 'bye'), (2, (2, 4), 4, 'score'), (2, (6, 7), 7, 'score'), \
(3, (4, 7), 7, 'score')]
>>> outcome.payouts, outcome.size
({4: 1000, 7: 2500}, 7)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from alley_poker.bowling import Game
from alley_poker.side_games.draw import Bracket
from alley_poker.side_games.money import split_cents
from alley_poker.side_games.settings import ROUNDS, BracketSettings


@dataclass(frozen=True)
class GameScore:
    """One bowler's finished game: pins, the league's handicap for it, strikes in it.  An
    ``absent`` game (the desk marked the bowler absent for it) counts below any bowled one:
    it loses its round to a bowler who bowled, and counts as not bowled in a pot."""

    scratch: int
    handicap: int = 0
    strikes: int = 0
    absent: bool = False

    def counted(self, scoring: str) -> int:
        if self.absent:
            return -1
        return self.scratch + (self.handicap if scoring == "handicap" else 0)

    @classmethod
    def of(cls, game: Game, handicap: int = 0) -> GameScore:
        """A finished bowling game's score (the league's handicap for it given, e.g.
        ``league.handicap.for_average(average)``).

        >>> GameScore.of(Game.from_rolls([10, 10, 7, 2] + [9, 0] * 7), handicap=12)
        GameScore(scratch=118, handicap=12, strikes=2, absent=False)
        """
        if not game.is_complete:
            raise ValueError("only a finished game decides a round")
        return cls(game.score(), handicap, sum(ball.is_strike for ball in game.balls))


#: A match in a bracket: (bracket number, round 1..3, match index in the round, 0-based).
MatchKey = tuple[int, int, int]
Scores = Mapping[tuple[int, int], GameScore]     # (bowler, game) -> its score


@dataclass(frozen=True)
class Match:
    """One head-to-head game.  ``status``: ``decided``; ``scores`` (a game it needs is not in
    yet); ``roll_off`` (tied: the desk records the roll-off's winner); ``earlier`` (a side is
    not known until an earlier round is decided, that side is None).  In round one a None
    side is the bye.  ``how``: ``score``, ``bye``, ``next game N``, ``roll-off``, ``split``."""

    key: MatchKey
    game: int
    sides: tuple[int | None, int | None]
    status: str
    winner: int | None = None
    how: str = ""

    @property
    def round(self) -> int:
        return self.key[1]

    @property
    def loser(self) -> int | None:
        if self.winner is None:
            return None
        a, b = self.sides
        return b if self.winner == a else a


@dataclass(frozen=True)
class BracketOutcome:
    """A bracket as its games stand: seven matches (round one first) and, once the final is
    decided, its payouts."""

    number: int
    size: int
    matches: tuple[Match, ...]
    payouts: dict[int, int]

    @property
    def finished(self) -> bool:
        final = self.matches[-1]
        return final.status == "decided"

    def alive(self) -> tuple[int, ...]:
        """Bowlers who have lost no match yet (the winner too, once it is over)."""
        out = {m.loser for m in self.matches if m.status == "decided"} - {None}
        seats = [s for m in self.matches if m.round == 1 for s in m.sides]
        return tuple(b for b in seats if b is not None and b not in out)

    def next_match(self, bowler: int) -> Match | None:
        """The bowler's next undecided match here (None when out or when it is over)."""
        if bowler not in self.alive():
            return None
        for match in self.matches:
            if match.status != "decided" and bowler in match.sides:
                return match
        return None


def decide_bracket(bracket: Bracket, settings: BracketSettings, scores: Scores,
                   roll_offs: Mapping[MatchKey, int] | None = None) -> BracketOutcome:
    """Every match of ``bracket`` as ``scores`` (and the desk's ``roll_offs``) decide it."""
    roll_offs = roll_offs or {}
    matches: list[Match] = []
    sides: list[int | None] = list(bracket.slots)
    known = [True] * len(sides)
    for round_number in range(1, ROUNDS + 1):
        winners: list[int | None] = []
        winners_known: list[bool] = []
        for index in range(len(sides) // 2):
            key = (bracket.number, round_number, index)
            pair = (sides[2 * index], sides[2 * index + 1])
            if not (known[2 * index] and known[2 * index + 1]):
                match = Match(key, settings.games[round_number - 1], pair, "earlier")
            else:
                match = _decide(key, pair, settings, scores, roll_offs.get(key))
            matches.append(match)
            winners.append(match.winner)
            winners_known.append(match.status == "decided")
        sides, known = winners, winners_known
    return BracketOutcome(bracket.number, len(bracket.bowlers), tuple(matches),
                          _payouts(matches[-1], settings, len(bracket.bowlers)))


def _decide(key: MatchKey, sides: tuple[int | None, int | None], settings: BracketSettings,
            scores: Scores, roll_off: int | None) -> Match:
    round_number = key[1]
    game = settings.games[round_number - 1]
    a, b = sides
    if a is None or b is None:
        return Match(key, game, sides, "decided", a if b is None else b, "bye")
    if settings.tie_rule == "roll_off":
        tie_breakers: tuple[int, ...] = ()
    else:
        tie_breakers = settings.games[round_number:]
    for number, counted in enumerate((game, *tie_breakers)):
        score_a, score_b = scores.get((a, counted)), scores.get((b, counted))
        if score_a is None or score_b is None:
            return Match(key, game, sides, "scores")
        pins_a, pins_b = score_a.counted(settings.scoring), score_b.counted(settings.scoring)
        if pins_a != pins_b:
            how = "score" if number == 0 else f"next game {counted}"
            return Match(key, game, sides, "decided", a if pins_a > pins_b else b, how)
    if settings.tie_rule == "split" and round_number == ROUNDS:
        return Match(key, game, sides, "decided", None, "split")
    if roll_off in sides:
        return Match(key, game, sides, "decided", roll_off, "roll-off")
    return Match(key, game, sides, "roll_off")


def _payouts(final: Match, settings: BracketSettings, size: int) -> dict[int, int]:
    if final.status != "decided":
        return {}
    prizes = settings.prizes_cents(size)
    if final.how == "split":
        return split_cents(sum(prizes), [s for s in final.sides if s is not None])
    paid = {final.winner: prizes[0]}
    if len(prizes) > 1 and final.loser is not None:
        paid[final.loser] = prizes[1]
    return {bowler: cents for bowler, cents in sorted(paid.items()) if bowler is not None}
