"""What the router needs of the service: the current state and a way to run a command."""

from __future__ import annotations

from typing import Any, Protocol

from alley_poker.ledger import MatchState
from alley_poker.ledger.commands import Command


class LedgerGateway(Protocol):
    """What the router needs of the service: the current state and a way to run a command."""

    def state(self, match_id: str) -> MatchState: ...

    def shared_state(self, match_id: str) -> MatchState:
        """The current state, read without copying (the router never changes it)."""
        ...

    #: False where the cached states are kept current only by the bus (the worker), so a
    #: state may trail what another process has just done.
    reads_catch_up: bool

    def caught_up_state(self, match_id: str) -> MatchState:
        """:meth:`shared_state`, caught up with the ledger even where reads trail it."""
        ...

    def reload_lanes(self) -> None:
        """Make the lane map what the ledger's lane assignments say now."""
        ...

    def last_finished_in(self, lane: int, slot: int) -> tuple[str, str] | None:
        """The match over now that held ``(lane, slot)`` last, and its bowler there."""
        ...

    def execute(self, match_id: str, command: Command) -> list[Any]: ...

    def announce(self, topic: str, message: dict[str, Any]) -> None: ...
