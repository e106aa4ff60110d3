"""A test driver for one match: every command goes through ``handle``, is checked to leave
the given state untouched, is applied, and the invariants are checked after it."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest

from alley_poker.ledger import (
    CommandRefused,
    MatchState,
    check_invariants,
    event_from_record,
    event_to_record,
    handle,
    replay,
)
from alley_poker.ledger import commands as c

START = datetime(2026, 2, 6, 19, 0, tzinfo=UTC)
DESK = "commissioner:pat"
FEED = "feed:lane-3"


class Match:
    """A match in memory, driven command by command."""

    def __init__(self, bowlers=("Ann", "Bob"), *, games=1, rules=None, test_mode=True,
                 ante_cents=None, seed=0, start=True, league=None, handicaps=None):
        self.rng = random.Random(seed)
        self.now = START
        self.state = MatchState.empty("m1")
        self.events = []
        self.do(c.CreateMatch("m1", list(bowlers), games, ante_cents, rules, test_mode,
                              actor=DESK, league=league, handicaps=handicaps))
        if start:
            for bowler in bowlers:
                self.do(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
            self.do(c.StartMatch(actor=DESK))

    def do(self, command):
        """Run a command that must succeed; returns its events."""
        before = self.state.snapshot()
        self.now += timedelta(seconds=1)
        events = handle(self.state, command, rng=self.rng, now=self.now)
        assert self.state.snapshot() == before, "handle modified the state it was given"
        for event in events:
            self.state.apply(event)
        check_invariants(self.state)
        self.events.extend(events)
        return events

    def refused(self, command, reason: str = "") -> CommandRefused:
        """Run a command that must be refused, leaving the state exactly as it was."""
        before = self.state.snapshot()
        with pytest.raises(CommandRefused) as info:
            handle(self.state, command, rng=self.rng, now=self.now)
        assert reason in str(info.value)
        assert self.state.snapshot() == before
        return info.value

    # conveniences
    def ball(self, bowler, pins, **kw):
        return self.do(c.RecordBall(bowler, kw.pop("game", None), pins, **kw, actor=FEED))

    def balls(self, bowler, *pins):
        for count in pins:
            self.ball(bowler, count)

    def stack(self, *cards):
        return self.do(c.StackPile(list(cards), actor=DESK))

    def hand(self, bowler):
        return [self.state.display_card(card) for card in self.state.hands[bowler]]

    def later(self, seconds):
        self.now += timedelta(seconds=seconds)

    def replayed(self) -> MatchState:
        return replayed_from_records("m1", self.events)


def replayed_from_records(match_id: str, events) -> MatchState:
    """The match rebuilt by ``replay`` from ``events`` turned into their stored records (through
    JSON, as the store keeps them) and back."""
    records = json.loads(json.dumps([event_to_record(e) for e in events]))
    return replay(match_id, [event_from_record(r) for r in records])
