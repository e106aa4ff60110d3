"""The league: leagues, their rosters of bowlers, handicaps and nights in local time.

Pure domain: no web, store or service here (the store keeps leagues in
``alley_poker/store/leagues.py``).
"""

from alley_poker.league.calendar import (
    local_iso,
    next_night_date,
    night_date_of,
    night_id,
    night_start_utc,
    season_dates,
    to_local,
)
from alley_poker.league.handicap import HandicapRule
from alley_poker.league.league import League, parse_start_time
from alley_poker.league.league_errors import LeagueError, LeagueNotFound, RosterImportError
from alley_poker.league.roster import Bowler, BowlerDraft, check_fields, parse_roster_csv

__all__ = [
    "Bowler",
    "BowlerDraft",
    "HandicapRule",
    "League",
    "LeagueError",
    "LeagueNotFound",
    "RosterImportError",
    "check_fields",
    "local_iso",
    "next_night_date",
    "night_date_of",
    "night_id",
    "night_start_utc",
    "parse_roster_csv",
    "parse_start_time",
    "season_dates",
    "to_local",
]
