"""The two ways the ledger says no: a refused command, and a broken invariant."""

from __future__ import annotations


class CommandRefused(ValueError):
    """A command that does not apply to the match as it stands.  Nothing was changed.

    >>> str(CommandRefused("no such bowler 'Zed'", field="bowler"))
    "bowler: no such bowler 'Zed'"
    """

    def __init__(self, reason: str, field: str | None = None):
        self.reason = reason
        self.field = field
        super().__init__(f"{field}: {reason}" if field else reason)


class InvariantViolation(RuntimeError):
    """The match state broke a rule that must always hold (a bug, or a corrupt log)."""
