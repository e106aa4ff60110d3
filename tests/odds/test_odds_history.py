"""The live odds know the centre's regulars from its settled matches (service/odds_history):
a bowler who averaged 210 here is the favourite against one who averaged 110 before a ball is
bowled, which odds built from the centre's default average alone cannot see."""

from __future__ import annotations

import random
import statistics
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from alley_poker.ledger import MatchState, handle
from alley_poker.ledger import commands as c
from alley_poker.ledger.events import event_to_record
from alley_poker.odds.calibration import games_of
from alley_poker.odds.correction import Correction
from alley_poker.odds.profiles import count_games
from alley_poker.service.bus import InProcessBus
from alley_poker.service.live_odds import LiveOdds
from alley_poker.service.odds_correction import CorrectionLearner
from alley_poker.service.odds_history import (
    CentreKnowledge,
    CentreKnowledgeSource,
    learn_centre,
    played_matches,
)
from alley_poker.store.event_store import EventStore
from benchmarks._generated_centre import generated_matches

NIGHTS = 4


def _stored(url: str, matches) -> None:
    with EventStore.open(url) as store:
        for match in matches:
            night = date.fromisoformat(match.date)
            shift = timedelta(days=(night - match.events[0].at.date()).days)
            store.append(match.match_id, [event_to_record(replace(e, match_id=match.match_id,
                                                                    at=e.at + shift))
                                          for e in match.events], 0)


def _means(matches) -> dict[str, float]:
    games: dict[str, list] = {}
    for match in matches:
        for bowler, played in games_of(match).items():
            games.setdefault(bowler, []).extend(played)
    return {b: statistics.fmean(count_games(g).scores) for b, g in games.items()
            if len(count_games(g).scores) >= 3}


def _new_match(bowlers: list[str]) -> MatchState:
    state = MatchState.empty("tonight")
    now = datetime(2026, 11, 26, 19, 0, tzinfo=UTC)
    for command in [c.CreateMatch("tonight", bowlers, actor="desk:pat"),
                    *[c.ConsentToAnte(b, actor=f"bowler:{b}") for b in bowlers],
                    c.StartMatch(actor="desk:pat")]:
        for event in handle(state, command, rng=random.Random(1), now=now):
            state.apply(event)
    return state


def _odds(state: MatchState, knowledge=None) -> dict[str, float]:
    live = LiveOdds(InProcessBus(), iterations=3000, first_iterations=500, processes=0,
                    knowledge=knowledge)
    try:
        live.request(state.match_id, state)
        assert live.wait_idle(120)
        return {name: b["win"] for name, b in live.latest(state.match_id)["bowlers"].items()}
    finally:
        live.stop()


def test_the_centres_settled_matches_are_read_back_from_its_store(tmp_path):
    url = f"sqlite:///{tmp_path / 'centre.sqlite3'}"
    matches = generated_matches(seed=5, nights=NIGHTS, bowlers=12)
    _stored(url, matches)
    learner = CorrectionLearner(iterations=20, frames=(0,))
    with EventStore.open(url) as store:
        read = played_matches(store)
        knowledge = CentreKnowledgeSource(store, corrections=learner)()
        # The settled matches are predicted in the background, for the odds' correction.
        assert knowledge.corrections is learner
        learner._thread.join(60)
    assert learner.matches == len(matches)
    first = min(m.date for m in matches)
    assert knowledge.correction_for(first) == Correction(1.0, 0, 0)  # nothing before it
    assert knowledge.correction_for("2099-01-01").matches == len(matches)
    assert sorted(m.match_id for m in read) == sorted(m.match_id for m in matches)
    assert knowledge.matches == len(matches)
    bowled = {b for m in matches for b in games_of(m)}
    assert set(knowledge.history) == bowled
    # The centre's own bowlers, not a default of 150: a newcomer is one of them.
    assert len(knowledge.centre.bowlers) == len(bowled)
    assert knowledge.centre.profile("Newcomer").members == knowledge.centre.bowlers


def test_a_regular_who_averages_more_here_is_the_favourite_before_a_ball(tmp_path):
    matches = generated_matches(seed=5, nights=NIGHTS, bowlers=12)
    means = _means(matches)
    best = max(means, key=means.get)
    worst = min(means, key=means.get)
    assert means[best] - means[worst] > 50, means
    knowledge = learn_centre(matches)
    state = _new_match([worst, best])
    informed = _odds(state, knowledge=lambda: knowledge)
    blind = _odds(state)
    assert informed[best] > 0.6 > informed[worst], informed
    # Without the centre's history they are two strangers: about even.
    assert abs(blind[best] - blind[worst]) < 0.1, blind


def test_the_live_odds_apply_the_correction_of_the_nights_before_the_match():
    matches = generated_matches(seed=5, nights=NIGHTS, bowlers=12)
    means = _means(matches)
    best, worst = max(means, key=means.get), min(means, key=means.get)
    asked = []

    class Overconfident:  # what a centre whose favourites won less than shown has learnt
        def correction_for(self, night):
            asked.append(night)
            return Correction(0.5, matches=300, nights=20)

    knowledge = learn_centre(matches)
    state = _new_match([worst, best])
    plain = _odds(state, knowledge=lambda: knowledge)
    corrected = _odds(state, knowledge=lambda: replace(knowledge, corrections=Overconfident()))
    # The favourite is less of a favourite, the chances still sum to 1.
    assert plain[best] - 0.02 > corrected[best] > 0.5, (plain, corrected)
    # As the correction maps the plain odds (the two runs differ by their chunks: ±0.4 pp).
    assert abs(corrected[best] - Correction(0.5).apply(plain)[best]) < 0.015
    assert abs(sum(corrected.values()) - 1) < 1e-3
    assert asked == [date.today().isoformat()] or asked == [datetime.now(UTC).date().isoformat()]


def test_a_store_that_cannot_be_read_leaves_the_odds_on_the_centres_average():
    class BrokenStore:
        def match_ids(self):
            raise OSError("database is locked")

    knowledge = CentreKnowledgeSource(BrokenStore(), average=170, correct=False)()
    assert isinstance(knowledge, CentreKnowledge)
    assert knowledge.matches == 0 and knowledge.centre.average == 170


def test_the_knowledge_is_read_again_once_it_is_old():
    reads = []

    class CountingStore:
        def match_ids(self):
            reads.append(1)
            return []

    now = [0.0]
    source = CentreKnowledgeSource(CountingStore(), relearn_seconds=600, clock=lambda: now[0],
                                   correct=False)
    source()
    now[0] = 599
    source()
    assert len(reads) == 1
    now[0] = 601
    source()
    assert len(reads) == 2
