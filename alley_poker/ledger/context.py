"""The working context of one command: a scratch copy of the state and the events so far.

``handle`` never touches the state it is given: a command works on a clone, and every event
it produces is applied to that clone at once, so later steps of the same command see the
effect of earlier ones (a card drawn is no longer in the pile).  Only if the whole command
succeeds, and the clone still satisfies every invariant, are the events handed back.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn

from alley_poker.bowling import Game
from alley_poker.fairness.deal import DrawStream, RandomForTests, SeededDeal
from alley_poker.ledger.commands import Command
from alley_poker.ledger.events import Event
from alley_poker.ledger.games import rebuild_game
from alley_poker.ledger.ledger_errors import CommandRefused
from alley_poker.ledger.state import MatchState


class Context:
    """One command in progress: ``state`` is the scratch copy, ``events`` what it produced."""

    def __init__(self, state: MatchState, command: Command,
                 rng: random.Random | SeededDeal | RandomForTests, now: datetime, *,
                 in_place: bool = False):
        if not isinstance(now, datetime) or now.tzinfo is None:
            raise ValueError("handle needs an aware datetime for `now`")
        # In place only for simulations on a throwaway copy (handler.play_on_copy).
        self.state = state if in_place else state.clone()
        self.command = command
        # A bare random.Random is the explicit test-only source (seeded tests, scenarios).
        self.source = RandomForTests(rng) if isinstance(rng, random.Random) else rng
        self.now = now.astimezone(UTC)
        self.events: list[Event] = []
        self._common = {
            "actor": command.actor,
            "command": type(command).__name__,
            "action": state.seq + 1,
        }

    def emit(self, event_type: str, /, **data: Any) -> Event:
        """Record one event and apply it to the scratch state."""
        data.update(self._common)
        event = Event(self.state.match_id, self.state.seq + 1, event_type, self.now, data)
        self.state.apply(event)
        self.events.append(event)
        return event

    def draws(self, use: str) -> DrawStream:
        """The random stream for ``use`` by the event this command emits next.

        A committed match draws only from its own seed (never from anything else); a match
        without a commitment (test sources, matches from before fair dealing) draws from the
        given source, or from the system's CSPRNG when the source is another match's seed.
        """
        seq = self.state.seq + 1
        fairness = self.state.fairness
        if fairness is not None:
            if getattr(self.source, "commitment", None) != fairness["commitment"]:
                refuse(f"match {self.state.match_id} is dealt from its committed seed, which "
                       "this process does not hold; nothing was done", "match_id")
            return self.source.stream(fairness["salt"], use, seq)
        if isinstance(self.source, SeededDeal):
            return RandomForTests(random.SystemRandom()).stream(None, use, seq)
        return self.source.stream(None, use, seq)

    def shuffle(self, why: str) -> None:
        """Reshuffle the draw pile (the resulting order goes into the event)."""
        order = self.draws("reshuffle").shuffled(self.state.pile)
        self.emit("pile_shuffled", order=order, why=why)

    def reveal_seed(self) -> None:
        """At settlement or void: publish the seed of a committed match (once)."""
        fairness = self.state.fairness
        if fairness is not None and fairness["seed"] is None \
                and getattr(self.source, "commitment", None) == fairness["commitment"]:
            self.emit("seed_revealed", seed=self.source.seed.hex())

    def game_of(self, balls: list[dict]) -> Game:
        """The bowling game of one bowler's recorded ``balls``, to score or roll into (a
        simulation's context may keep them instead of rebuilding every time)."""
        return rebuild_game(balls)

    def deadline(self, seconds: int) -> str:
        return iso(self.now + timedelta(seconds=seconds))


def refuse(reason: str, field: str | None = None) -> NoReturn:
    """Stop the command: nothing it did so far is kept."""
    raise CommandRefused(reason, field)


def iso(moment: datetime) -> str:
    """An aware datetime as ISO 8601 UTC text with a ``Z``.

    >>> iso(datetime(2026, 3, 1, 19, 30, tzinfo=UTC))
    '2026-03-01T19:30:00Z'
    """
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_iso(text: str) -> datetime:
    """Inverse of :func:`iso`."""
    return datetime.fromisoformat(text).astimezone(UTC)
