"""The league's errors: bad input named by its field, and a roster file's every bad row.

>>> error = LeagueError("a league's weekday is 0 (Monday) to 6 (Sunday), not 7",
...                     field="weekday")
>>> error.field, isinstance(error, ValueError)
('weekday', True)
>>> print(RosterImportError([(3, "average: must be 0 to 300, not 301"),
...                          (5, "name: 'Ann' is already on the roster")]))
the roster has 2 bad rows; nothing was imported:
  line 3: average: must be 0 to 300, not 301
  line 5: name: 'Ann' is already on the roster
"""

from __future__ import annotations

from collections.abc import Sequence


class LeagueError(ValueError):
    """Input a league cannot take; ``field`` names the part that is wrong (or None)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class LeagueNotFound(LeagueError):
    """No league, bowler, night or seat request by that id (in this centre)."""


class RosterImportError(LeagueError):
    """A roster file with bad rows: ``problems`` holds ``(line number, reason)`` for EVERY bad
    row, in file order.  Line numbers are the file's own (the header is line 1)."""

    def __init__(self, problems: Sequence[tuple[int, str]]) -> None:
        self.problems = list(problems)
        rows = "row" if len(self.problems) == 1 else "rows"
        lines = "".join(f"\n  line {line}: {reason}" for line, reason in self.problems)
        super().__init__(f"the roster has {len(self.problems)} bad {rows}; "
                         f"nothing was imported:{lines}", field="roster")
