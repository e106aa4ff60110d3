"""Side games of a league night: brackets and pots on a number, event-sourced like the ledger.

Pure domain: no web, store or service here.  A night's side games are a log of
:class:`SideEvent` folded into a :class:`SideNight`; :func:`decide` turns the desk's and the
scorer's commands into events.  The draw reads the fair deal's DRBG (use ``bracket-draw``)
and is sealed before the first counted ball; :func:`verify_side_night` re-does it from the
revealed seed.  docs/league.md, "Side games", states the rules as built.

- :mod:`.settings`: a bracket game's and a pot's settings, checked;
- :mod:`.draw`: entries into brackets of eight (or seven and a bye);
- :mod:`.rounds`: a bracket's rounds decided from the games, ties by the rule;
- :mod:`.pots`: high game, high series, the strike pot;
- :mod:`.money`: prizes to the cent, a night's money per bowler and in total;
- :mod:`.events`, :mod:`.night`, :mod:`.commands`: the log, its fold, the commands;
- :mod:`.verify`: the night checked from its log.
"""

from alley_poker.side_games.commands import (
    Command,
    Draw,
    OpenNight,
    PayBracket,
    PayPot,
    RecordEntry,
    RecordRollOff,
    RecordScore,
    ResolveChange,
    RevealSeed,
    SetSideGame,
    WithdrawEntry,
    decide,
    run,
)
from alley_poker.side_games.draw import Bracket, DrawResult, draw_brackets
from alley_poker.side_games.errors import SideGameError
from alley_poker.side_games.events import SideEvent, event_from_record, event_to_record
from alley_poker.side_games.money import BowlerMoney, NightMoney
from alley_poker.side_games.night import BowlerBracket, PendingChange, Result, SideNight
from alley_poker.side_games.pots import PotOutcome
from alley_poker.side_games.rounds import BracketOutcome, GameScore, Match
from alley_poker.side_games.settings import BracketSettings, PotSettings
from alley_poker.side_games.verify import SideNightCheck, verify_side_night

__all__ = [
    "BowlerBracket", "BowlerMoney", "Bracket", "BracketOutcome", "BracketSettings", "Command",
    "Draw", "DrawResult", "GameScore", "Match", "NightMoney", "OpenNight", "PayBracket",
    "PayPot", "PendingChange", "PotOutcome", "PotSettings", "RecordEntry", "RecordRollOff",
    "RecordScore", "ResolveChange", "Result", "RevealSeed", "SetSideGame", "SideEvent",
    "SideGameError", "SideNight", "SideNightCheck", "WithdrawEntry", "decide",
    "draw_brackets", "event_from_record", "event_to_record", "run", "verify_side_night",
]
