"""The fast odds engine: compact runs (balls seat by seat, then the cards), warm from one
ball to the next, exact once only the cards are left (docs/odds.md, "The fast engine").

A run is each seat's script of balls (:mod:`alley_poker.odds.seat_scripts`) and then the card play
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
>>> from benchmarks._practice_match import PracticeMatch
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

import json
import random
import threading
from array import array
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from itertools import accumulate, chain

from alley_poker.ledger import MatchState
from alley_poker.odds import compiled
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.odds.compact import PIN_MASK, HandJudge, Start, compile_start, judge_for
from alley_poker.odds.exact import enumerate_rest
from alley_poker.odds.profiles import CentreAverages, profiles_for
from alley_poker.odds.rollout import play_cards, shares
from alley_poker.odds.seat_scripts import ScriptRules, invent_leave, seat_script
from alley_poker.odds.types import LIVE, BowlerOdds, MatchOdds, known_without_running

_JUDGES: dict[str, HandJudge] = {}


def _judge(rules) -> HandJudge:
    key = f"{rules.wild_may_duplicate}{rules.max_wilds_vs_naturals}{rules.morgan_maneuver}"
    judge = _JUDGES.get(key)
    if judge is None:
        judge = _JUDGES[key] = judge_for(rules)
    return judge


class _Match:
    """One match's kept scripts, seat by seat: those of state ``seq`` (``runs[seat]``), and
    those of the state before (``source[seat]``) still to be reused, kept only for the seats
    whose scripts were bowled from what they are bowled from now.  A seat's scripts are
    kept in packs, one a chunk: the scripts end to end, and where each ends."""

    __slots__ = ("kept", "opened", "runs", "seq", "signature", "source", "source_signature")

    def __init__(self, seq: int, signature: tuple, opened: int = 0):
        self.seq, self.signature, self.opened = seq, signature, opened
        self.kept = 0             # runs kept of this state (each seat's scripts)
        self.runs: list[list[tuple[bytes, array]]] = [[] for _ in signature]
        self.source: list[list[tuple[bytes, array]]] = [[] for _ in signature]
        self.source_signature: tuple = ()


class WarmRuns:
    """Scripts kept between the states of each match (one per pool process).

    At most ``keep`` runs a match, ``matches`` matches, and ``budget`` bytes in all (each
    script's words and 4 bytes for where it ends): a run of a twelve-bowler, three-game
    match is 2 KB, so without a byte budget 64 such matches would keep 2 GB in each pool
    process.  Past the budget a match's runs make room by dropping those of a match no new
    state has come for while every other match had one (a match over, or a lane pair gone
    quiet), else they are not kept (its next state runs cold): a busy centre whose matches'
    runs do not all fit keeps those of as many as fit, where dropping the oldest would drop
    the very match whose ball comes next, and so every match's, in turn.  Past ``matches``
    the oldest goes.  64 matches, 16,000 runs (most states settle within them) and 128
    MB: a 100-lane centre has 50 lane pairs and a few matches starting and ending between
    balls; a league night's 2-4 bowlers kept about 90 MB at 50 pairs (at 32 matches, a
    round-robin of 50 pairs found every match's runs gone: every state ran cold)."""

    #: What one kept pack costs beyond its words and ends (its two objects).
    PACK_OVERHEAD = 120

    def __init__(self, keep: int = 16_000, matches: int = 64, budget: int = 128 << 20):
        self.keep, self.matches, self.budget = keep, matches, budget
        self._by_match: OrderedDict[str, _Match] = OrderedDict()
        self._lock = threading.Lock()
        self.kept_bytes = 0       # the scripts kept now, in all matches
        self._states = 0          # new states opened, in all matches (how old an entry is)
        self.reused_seats = 0     # figures for tests and benchmarks
        self.bowled_seats = 0

    def _size(self, seats: list[list[tuple[bytes, array]]]) -> int:
        return sum(self._pack_size(pack) for packs in seats for pack in packs)

    def _pack_size(self, pack: tuple[bytes, array]) -> int:
        return len(pack[0]) + 4 * len(pack[1]) + self.PACK_OVERHEAD

    def open(self, match_id: str, seq: int, signature: tuple) -> _Match | None:
        """The kept scripts for a run of state ``seq``; None for a state older than the
        one kept (a late chunk: it runs cold and keeps nothing)."""
        with self._lock:
            entry = self._by_match.get(match_id)
            if entry is None or entry.seq < seq:
                self._states += 1
                fresh = _Match(seq, signature, self._states)
                if entry is not None:
                    self.kept_bytes -= self._size(entry.source)  # the older state's left
                    same_seats = len(entry.signature) == len(signature)
                    for seat, packs in enumerate(entry.runs):
                        # Only the seats bowled from the same position and model are reused;
                        # the others' scripts go now.
                        if same_seats and entry.signature[seat] == signature[seat]:
                            fresh.source[seat] = packs
                        else:
                            self.kept_bytes -= self._size([packs])
                    if same_seats:
                        fresh.source_signature = entry.signature
                self._by_match[match_id] = entry = fresh
                while len(self._by_match) > self.matches:
                    self._drop(self._by_match.popitem(last=False)[1])
            elif entry.seq > seq or entry.signature != signature:
                return None
            self._by_match.move_to_end(match_id)
            return entry

    def reuse(self, entry: _Match, seat: int, count: int) -> list[bytes]:
        """Up to ``count`` scripts of ``seat`` from the state before, each used once."""
        taken: list[bytes] = []
        with self._lock:
            packs = entry.source[seat]
            while packs and len(taken) < count:
                blob, ends = packs.pop()
                self.kept_bytes -= self._pack_size((blob, ends))
                first = max(0, len(ends) - (count - len(taken)))
                if first:  # more than wanted: the rest stays for the state's next chunk
                    cut = ends[first - 1]
                    rest = (blob[:cut], ends[:first])
                    packs.append(rest)
                    self.kept_bytes += self._pack_size(rest)
                    starts = ends[first - 1:-1]
                else:
                    starts = array("I", (0,)) + ends[:-1]
                taken.extend([blob[start:end]
                              for start, end in zip(starts, ends[first:], strict=True)])
        self.reused_seats += len(taken)
        return taken

    def keep_runs(self, entry: _Match, seats: list[list[bytes]]) -> None:
        """Keep ``seats``' scripts (one list a seat, a run's at the same index) of
        ``entry``'s state for its next state, as many runs as there is room for."""
        if not seats or not seats[0]:
            return
        with self._lock:
            room = self.keep - entry.kept
            if room <= 0:
                return
            packs = []
            for scripts in seats:
                scripts = scripts[:room]
                ends = array("I", accumulate(map(len, scripts)))
                packs.append((b"".join(scripts), ends))
            size = sum(self._pack_size(pack) for pack in packs)
            while self.kept_bytes + size > self.budget and len(self._by_match) > 1:
                oldest_id = next(iter(self._by_match))
                oldest = self._by_match[oldest_id]
                if oldest is entry or self._states - oldest.opened <= len(self._by_match):
                    break  # every match had a state since: none is stale
                self._drop(self._by_match.pop(oldest_id))
            if self.kept_bytes + size > self.budget:
                return
            self.kept_bytes += size
            entry.kept += len(packs[0][1])
            for kept, pack in zip(entry.runs, packs, strict=True):
                kept.append(pack)

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
    known, odds = known_without_running(state, iterations)
    if known:
        return odds
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
    entry = None
    reuse = [False] * len(bowlers)
    if warm is not None:
        signature = _signature(start, models)
        entry = warm.open(state.match_id, state.seq, signature)
        if entry is not None and len(entry.source_signature) == len(signature):
            reuse = [entry.source_signature[seat] == signature[seat]
                     for seat in range(len(bowlers))]
    # Seat by seat: the scripts of the state before where the seat's position and model are
    # unchanged (each used once), the rest bowled now; a run is every seat's script at the
    # same index (the seats' scripts are independent, so any pairing is a fair sample).
    seat_scripts = []
    for seat in range(len(bowlers)):
        scripts = warm.reuse(entry, seat, iterations) if reuse[seat] else []
        fresh = iterations - len(scripts)
        if fresh:
            scripts.extend([script(seat) for _ in range(fresh)])
            if warm is not None:
                warm.bowled_seats += fresh
        seat_scripts.append(scripts)
    if entry is not None:
        warm.keep_runs(entry, seat_scripts)
    # A run packed as the card play reads it: for each seat its series, its events' count,
    # its events.
    runs = array("I", b"".join(chain.from_iterable(zip(*seat_scripts, strict=True))))
    wins, cents = _play_runs(start, judge, runs, iterations, card_rng)
    return MatchOdds(state.match_id, state.seq, iterations, {
        bowler: BowlerOdds(wins[seat] / iterations, cents[seat] / iterations)
        for seat, bowler in enumerate(bowlers)}, exact=False)


def odds_inputs(state: MatchState) -> tuple | None:
    """Everything :func:`fast_win_odds` makes ``state``'s odds from, to compare with ``==``
    (None when the match is not live): its compact start — cards, hands, the hidden cards
    as a set, the holes, the jokers, each seat's position and streak, the open decisions,
    the rule book — without the event number, the games, and every ball of the match (each
    bowler's model is learnt from them).  Two states whose inputs are equal have the same
    odds, run for run at the same seed: an event that changed none of them (a pile stacked
    in test mode: the hidden cards' order never reaches a run) changed nothing that
    matters, and its odds are the odds already computed.  A ball always changes them (the
    bowler's position and model), so it never passes for one that did not; only the other
    seats' scripts are reused then (:class:`WarmRuns`)."""
    if state.result is not None or state.status not in LIVE:
        return None
    return (replace(compile_start(state), seq=0), state.games,
            json.dumps(state.balls, sort_keys=True, default=str))


def _script_maker(start: Start, models: list, rules, games: int, rng: random.Random):
    """The function that bowls a seat's script for a run, packed as a run keeps it (its
    series, its events' count, its events, as uint32 bytes): compiled when it is built and
    every model has tables, else :func:`~alley_poker.odds.seat_scripts.seat_script`.  Each
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
    # Each game's table by its rates (the very object ``game_rates`` returns: held here, so
    # its id is not reused while this state's runs are bowled): the same few hundred forms
    # come back thousands of times, and this skips the table's look-up by value.
    tables: dict[int, tuple] = {}

    def form_bytes(rates) -> bytes:
        kept = tables.get(id(rates))
        if kept is None:
            kept = tables[id(rates)] = (rates, compiled.form_bytes(rates))
        return kept[1]

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


__all__ = ["WarmRuns", "fast_win_odds", "odds_inputs"]
