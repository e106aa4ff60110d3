"""The ways the ledger says no: a refused command (or one decided on a stale match), and a
broken invariant."""

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


class StaleVersion(CommandRefused):
    """The caller decided on the match at ``expected_seq``, but it has moved on to
    ``actual_seq``: the command is not run against a match its sender has not seen.

    >>> str(StaleVersion(expected_seq=40, actual_seq=41))
    'expected_seq: the match changed since you looked (version 41, not 40): reload and try again'
    """

    def __init__(self, *, expected_seq: int, actual_seq: int):
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq
        super().__init__(f"the match changed since you looked (version {actual_seq}, not "
                         f"{expected_seq}): reload and try again", field="expected_seq")


class InvariantViolation(RuntimeError):
    """The match state broke a rule that must always hold (a bug, or a corrupt log)."""
