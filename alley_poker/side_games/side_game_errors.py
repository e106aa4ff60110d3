"""The side games' errors: bad input named by its field, a command that does not apply now.

>>> refused = SideGameError("the entry fee must be a whole number of cents from 1 to "
...                         "100000, not 0", field="entry_cents")
>>> refused.field, isinstance(refused, LeagueError)
('entry_cents', True)
"""

from __future__ import annotations

from alley_poker.league.league_errors import LeagueError


class SideGameError(LeagueError):
    """Input a side game cannot take, or a command that does not apply to the night as it
    stands; ``field`` names the part that is wrong (or None).  Nothing changed."""
