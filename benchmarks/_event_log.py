"""An event log for the replay benchmark: real ledger events, appended to a store in bulk.

A few matches are bowled for real through the ledger (a seeded :class:`MatchRepository` over
an in-memory store: 2 lanes of bowlers, every ball a ``RecordBall``); their logs are then
copied under new match ids until the log holds at least the events asked for, each match in
one append (one transaction), so a 100,000-event store takes seconds to build, not minutes.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from benchmarks._lane_balls import lane_balls
from drivers.base import BallRecorded

TEMPLATES = 4
GAMES = 3


def _balls_in_turn(lanes: tuple[int, int], bowlers: int, rng: random.Random
                   ) -> Iterator[BallRecorded]:
    streams = [lane_balls(lane, bowlers, GAMES, rng) for lane in lanes]
    while streams:
        for stream in list(streams):
            ball = next(stream, None)
            if ball is None:
                streams.remove(stream)
            else:
                yield ball


def bowl_match(match_id: str, bowlers_per_lane: int, seed: int) -> list[dict]:
    """The event records of one whole match bowled through the real ledger."""
    from alley_poker.ledger.commands import ConsentToAnte, CreateMatch, RecordBall, StartMatch
    from alley_poker.store import EventStore, MatchRepository

    rng = random.Random(seed)
    with EventStore.open("sqlite://") as store:
        repo = MatchRepository(store, rng_factory=lambda: random.Random(rng.random()))
        names = {(lane, slot): f"L{lane}s{slot}" for lane in (1, 2)
                 for slot in range(1, bowlers_per_lane + 1)}
        repo.execute(match_id, CreateMatch(match_id, list(names.values()), games=GAMES,
                                           actor="commissioner:bench"))
        for name in names.values():
            repo.execute(match_id, ConsentToAnte(name, actor=f"bowler:{name}"))
        repo.execute(match_id, StartMatch(actor="commissioner:bench"))
        for ball in _balls_in_turn((1, 2), bowlers_per_lane, rng):
            repo.execute(match_id, RecordBall(
                names[(ball.lane, ball.bowler)], ball.game, ball.pins,
                gutter=ball.flags.gutter or None, actor="feed:bench"))
        return store.load(match_id)


def build_log(database_url: str, events: int, seed: int, bowlers_per_lane: int = 6) -> dict:
    """Fill the store at ``database_url`` with at least ``events`` events; what it holds."""
    from alley_poker.store import EventStore

    templates = [bowl_match("template", bowlers_per_lane, seed * 1000 + index)
                 for index in range(TEMPLATES)]
    written, matches = 0, 0
    with EventStore.open(database_url) as store:
        while written < events:
            template = templates[matches % TEMPLATES]
            match_id = f"m{matches:05d}"
            store.append(match_id, [dict(record, match_id=match_id) for record in template], 0)
            written += len(template)
            matches += 1
    return {"events": written, "matches": matches,
            "events_per_match": round(written / matches)}
