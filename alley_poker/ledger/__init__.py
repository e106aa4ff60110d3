"""The Bowling Poker ledger: an event-sourced, pure-Python domain.

Commands are validated against a match's state by :func:`handle`, which returns the events
they produce (or raises :class:`CommandRefused`); the state is the fold of the events
(:meth:`MatchState.apply`, :func:`replay`).  Persistence lives in ``alley_poker.store``.

>>> import random
>>> from datetime import datetime, timezone
>>> now = datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
>>> state = MatchState.empty("league-1")
>>> for command in [commands.CreateMatch("league-1", ["Ann", "Bob"], actor="commissioner:pat"),
...                 commands.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 commands.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 commands.StartMatch(actor="commissioner:pat"),
...                 commands.RecordBall("Ann", 1, 10, actor="feed:lane-3")]:
...     for event in handle(state, command, rng=random.Random(1), now=now):
...         state.apply(event)
>>> state.status, state.pot_cents, len(state.hands["Ann"])  # strike 2 + first strike 1
('playing', 200, 3)
>>> check_invariants(state)
"""

from alley_poker.ledger import commands
from alley_poker.ledger.events import Event, EventFormatError, event_from_record, event_to_record
from alley_poker.ledger.handler import decide, handle
from alley_poker.ledger.invariants import check_invariants
from alley_poker.ledger.ledger_errors import CommandRefused, InvariantViolation, StaleVersion
from alley_poker.ledger.rules import RuleBook, RuleBookError
from alley_poker.ledger.state import MatchState, replay

__all__ = [
    "CommandRefused",
    "Event",
    "EventFormatError",
    "InvariantViolation",
    "MatchState",
    "RuleBook",
    "RuleBookError",
    "StaleVersion",
    "check_invariants",
    "commands",
    "decide",
    "event_from_record",
    "event_to_record",
    "handle",
    "replay",
]
