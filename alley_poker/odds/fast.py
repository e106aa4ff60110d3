"""The fast odds engine: compact runs (balls seat by seat, then the cards), warm from one
ball to the next, exact once only the cards are left (docs/odds.md, "The fast engine").

A run is each seat's script of balls (:mod:`alley_poker.odds.scripts`) and then the card play
over all of them (:mod:`alley_poker.odds.rollout`).  The balls are much of a run's cost, and
a seat's script depends only on that seat: its position, its streak and its ball model.
So :class:`WarmRuns` keeps each match's scripts (up to :attr:`WarmRuns.keep` runs) and the
next state's runs reuse them for every seat whose position, streak and model have not
changed: after a ball only the bowler who bowled it is bowled again (from the new position),
after a decision nobody is.  A reused script is an independent sample of the same
distribution the run would draw afresh (the seat's balls never depend on anything that
changed), and each is used once per state, so the estimate stays unbiased with no
reweighting: only the cost goes down.  The card play is always run anew, from the new state's
cards.

Both the balls and the card play run compiled (:mod:`alley_poker.odds.compiled`) when the
module is built, drawing the very random numbers the Python draws: the same odds, several
times sooner.

>>> import random
>>> from alley_poker.odds.practice import PracticeMatch
>>> match = PracticeMatch(("Ann", "Bob", "Cy"), seed=5).play(12)
>>> warm = WarmRuns()
>>> odds = fast_win_odds(match.state, iterations=200, seed=1, warm=warm)
>>> round(sum(b.win for b in odds.bowlers.values()), 9), odds.iterations
(1.0, 200)
>>> _ = match.play(13)                       # one more ball: one seat's scripts change
>>> after = fast_win_odds(match.state, iterations=200, seed=2, warm=warm)
>>> warm.reused_seats > 0
True
"""

from __future__ import annotations

import random
import threading
from array import array
from collections import OrderedDict
from collections.abc import Mapping

from alley_poker.ledger import MatchState
from alley_poker.odds import compiled
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.compact import PIN_MASK, HandJudge, Start, compile_start, judge_for
from alley_poker.odds.exact import enumerate_rest
from alley_poker.odds.profiles import CentreAverages, profiles_for
from alley_poker.odds.rollout import play_cards, shares
from alley_poker.odds.scripts import ScriptRules, invent_leave, seat_script
from alley_poker.odds.types import LIVE, BowlerOdds, MatchOdds, from_result

_JUDGES: dict[str, HandJudge] = {}


def _judge(rules) -> HandJudge:
    key = f"{rules.wild_may_duplicate}{rules.max_wilds_vs_naturals}{rules.morgan_maneuver}"
    judge = _JUDGES.get(key)
    if judge is None:
        judge = _JUDGES[key] = judge_for(rules)
    return judge


class _Match:
    """One match's kept scripts: those of state ``seq`` (``runs``), and those of the state
    before (``source``) still to be reused, with what each seat's scripts were bowled from."""

    __slots__ = ("runs", "seq", "signature", "source", "source_signature")

    def __init__(self, seq: int, signature: tuple):
        self.seq, self.signature = seq, signature
        self.runs: list[array] = []
        self.source: list[array] = []
        self.source_signature: tuple = ()


class WarmRuns:
    """Scripts kept between the states of each match (one per pool process).

    At most ``keep`` runs a match, ``matches`` matches, and ``budget`` bytes in all (each
    run's array counted with its object's own ~64 bytes): a run of a twelve-bowler,
    three-game match is 2 KB, so without a byte budget 32 such matches would keep 0.8 GB in
    each pool process at 100 lanes.  Past the budget a state's runs are not kept (its next
    state runs cold); the oldest matches go first when a new one comes."""

    #: What one kept run costs beyond its words (the array object), in bytes.
    RUN_OVERHEAD = 64

    def __init__(self, keep: int = 12_000, matches: int = 32, budget: int = 32 << 20):
        self.keep, self.matches, self.budget = keep, matches, budget
        self._by_match: OrderedDict[str, _Match] = OrderedDict()
        self._lock = threading.Lock()
        self.kept_bytes = 0       # the runs kept now, in all matches
        self.reused_seats = 0     # figures for tests and benchmarks
        self.bowled_seats = 0

    def _size(self, runs: list[array]) -> int:
        return sum(len(run) for run in runs) * 4 + len(runs) * self.RUN_OVERHEAD

    def open(self, match_id: str, seq: int, signature: tuple) -> _Match | None:
        """The kept scripts for a run of state ``seq``; None for a state older than the
        one kept (a late chunk: it runs cold and keeps nothing)."""
        with self._lock:
            entry = self._by_match.get(match_id)
            if entry is None or entry.seq < seq:
                fresh = _Match(seq, signature)
                if entry is not None:
                    self.kept_bytes -= self._size(entry.source)  # the older state's left
                    fresh.source = entry.runs
                    fresh.source_signature = entry.signature
                self._by_match[match_id] = entry = fresh
                while len(self._by_match) > self.matches:
                    self._drop(self._by_match.popitem(last=False)[1])
            elif entry.seq > seq or entry.signature != signature:
                return None
            self._by_match.move_to_end(match_id)
            return entry

    def keep_run(self, entry: _Match, run: array) -> None:
        """Keep ``run`` of ``entry``'s state for its next state, while there is room."""
        if len(entry.runs) >= self.keep:
            return
        size = len(run) * 4 + self.RUN_OVERHEAD
        with self._lock:
            while self.kept_bytes + size > self.budget and len(self._by_match) > 1:
                oldest = next(iter(self._by_match))
                if self._by_match[oldest] is entry:
                    break
                self._drop(self._by_match.pop(oldest))
            if self.kept_bytes + size > self.budget:
                return
            self.kept_bytes += size
        entry.runs.append(run)

    def reuse_run(self, entry: _Match) -> array | None:
        """A run of the state before, each used once (None when none is left)."""
        with self._lock:
            if not entry.source:
                return None
            run = entry.source.pop()
            self.kept_bytes -= len(run) * 4 + self.RUN_OVERHEAD
        return run

    def _drop(self, entry: _Match) -> None:
        self.kept_bytes -= self._size(entry.runs) + self._size(entry.source)

    def forget(self, match_id: str) -> None:
        with self._lock:
            entry = self._by_match.pop(match_id, None)
            if entry is not None:
                self._drop(entry)


def _signature(start: Start, profiles: list) -> tuple:
    """What each seat's scripts depend on: its name, position (streak included), model."""
    return tuple((start.bowlers[seat], start.positions[seat], profiles[seat])
                 for seat in range(len(start.bowlers)))


def fast_win_odds(state: MatchState, *, iterations: int = 400, seed: int = 0,
                  profiles: Mapping[str, BowlerProfile] | None = None,
                  centre: CentreAverages | None = None,
                  averages: Mapping[str, int] | None = None,
                  warm: WarmRuns | None = None, enumerate_limit: int | None = None
                  ) -> MatchOdds | None:
    """The odds of ``state`` by the fast engine; the arguments are
    :func:`alley_poker.odds.win_odds`'s, and ``warm`` keeps scripts from state to state.
    Once every ball is bowled the odds are enumerated (``iterations`` is then the number of
    branches)."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    if state.result is not None:
        return from_result(state)
    if state.status not in LIVE:
        return None
    start = compile_start(state)
    judge = _judge(state.rules)
    bowlers = start.bowlers
    if not start.playing:
        exact = enumerate_rest(start, judge, *(() if enumerate_limit is None
                                               else (enumerate_limit,)))
        if exact is not None:
            wins, cents, branches = exact
            return MatchOdds(state.match_id, state.seq, branches, {
                bowler: BowlerOdds(wins[seat], cents[seat])
                for seat, bowler in enumerate(bowlers)}, exact=False, enumerated=True)
    if profiles is None:
        profiles = profiles_for(state.balls, centre or CentreAverages(), averages)
    models = [profiles.get(bowler) or CentreAverages().profile(bowler) for bowler in bowlers]
    rng = random.Random(seed)
    # The cards draw from a generator of their own, so the same runs' card play picks the
    # same cards whichever card play (C or Python) plays it.
    card_rng = random.Random(rng.getrandbits(64))
    script = _script_maker(start, models, state.rules, state.games, rng)
    seats = range(len(bowlers))
    entry = reuse = None
    if warm is not None:
        signature = _signature(start, models)
        entry = warm.open(state.match_id, state.seq, signature)
        if entry is not None and len(entry.source_signature) == len(signature):
            reuse = [entry.source_signature[seat] == signature[seat] for seat in seats]
            if not any(reuse):
                reuse = None
    runs = array("I")
    for _ in range(iterations):
        kept = warm.reuse_run(entry) if reuse is not None else None
        # A run is kept as one array: for each seat its series, its events' count, its events.
        packed = array("I")
        at = 0
        for seat in seats:
            if kept is not None:
                count = kept[at + 1]
                if reuse[seat]:
                    packed.extend(kept[at:at + 2 + count])
                    warm.reused_seats += 1
                at += 2 + count
            if kept is None or not reuse[seat]:
                packed.frombytes(script(seat))
                if warm is not None:
                    warm.bowled_seats += 1
        if entry is not None:
            warm.keep_run(entry, packed)
        runs.extend(packed)
    wins, cents = _play_runs(start, judge, runs, iterations, card_rng)
    return MatchOdds(state.match_id, state.seq, iterations, {
        bowler: BowlerOdds(wins[seat] / iterations, cents[seat] / iterations)
        for seat, bowler in enumerate(bowlers)}, exact=False)


def _script_maker(start: Start, models: list, rules, games: int, rng: random.Random):
    """The function that bowls a seat's script for a run, packed as a run keeps it (its
    series, its events' count, its events, as uint32 bytes): compiled when it is built and
    every model has tables, else :func:`~alley_poker.odds.scripts.seat_script`.  Each
    game's form comes from ``rng``; the balls from a generator of their own, so both ways
    bowl the same balls."""
    script_rules = ScriptRules.of(rules, games)
    positions = start.positions
    balls = random.Random(rng.getrandbits(64))
    if not COMPILED_BALLS or not all(type(model) is BowlerProfile for model in models):

        def in_python(seat: int) -> bytes:
            events, total = seat_script(positions[seat], seat, models[seat], rng,
                                        script_rules, balls)
            return array("I", (total, len(events), *events)).tobytes()

        return in_python

    state = compiled.twister(balls)
    words = compiled.rules_words(script_rules)
    at = [None if pos.standing < 0 else compiled.position_words(pos, seat, pos.standing)
          for seat, pos in enumerate(positions)]
    done = [array("I", (pos.series, 0)).tobytes() for pos in positions]
    form_bytes = compiled.form_bytes

    def compiled_script(seat: int) -> bytes:
        pos = positions[seat]
        if pos.game >= games:
            return done[seat]
        game_rates = models[seat].game_rates
        forms = tuple([form_bytes(game_rates(rng)) for _ in range(pos.game, games)])
        position = at[seat]
        if position is None:  # a count-only feed: which pins stand is invented per run
            position = compiled.position_words(
                pos, seat, PIN_MASK[invent_leave(pos.count, rng)])
        return compiled.bowl(position, words, forms, state)

    return compiled_script


#: The C card play when it is built (:mod:`alley_poker.odds.compiled`); the tests turn it off
#: to hold the two to the same winners.
COMPILED_CARDS = compiled.AVAILABLE
#: The C bowling likewise.
COMPILED_BALLS = compiled.AVAILABLE


def _play_runs(start: Start, judge: HandJudge, runs: array, count: int,
               card_rng: random.Random) -> tuple[list[float], list[float]]:
    """Each seat's wins (a tie of *k* as 1/*k*) and cents summed over ``count`` packed runs
    (per run, per seat: its series, its events' count, its events), the cards drawn from
    ``card_rng``."""
    if COMPILED_CARDS:
        words = compiled.start_words(start, judge)
        if words is not None:
            return compiled.play_runs(words, runs, count, card_rng)
    seats = len(start.bowlers)
    wins = [0.0] * seats
    cents = [0.0] * seats
    pick = _picker(card_rng)
    at = 0
    for _ in range(count):
        events: list[int] = []
        series = []
        for _seat in range(seats):
            total, length = runs[at], runs[at + 1]
            series.append(total)
            events.extend(runs[at + 2:at + 2 + length])
            at += 2 + length
        events.sort()
        winners = play_cards(start, judge, events, series, pick)
        for seat in winners:
            wins[seat] += 1 / len(winners)
        for seat, share in shares(start, winners).items():
            cents[seat] += share
    return wins, cents


def _picker(rng: random.Random):
    """A uniform index below ``n`` (``int(random() * n)``: off by at most 2**-53 for the
    pile's 54 cards, far below any sampling error, and several times cheaper than
    ``randrange``)."""
    uniform = rng.random

    def pick(n: int) -> int:
        return int(uniform() * n)

    return pick


__all__ = ["WarmRuns", "fast_win_odds"]
