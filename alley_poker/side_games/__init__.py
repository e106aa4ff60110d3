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
- :mod:`.night_events`, :mod:`.night`, :mod:`.night_commands`: the log, its fold, the commands;
- :mod:`.log_check`: the night checked from its log;
- :mod:`.csv_exports`: the night's side money and its brackets as CSV.

**For the wiring** (the service, the API and the screens build on this):

- keep a night's events as the store keeps a match's (:func:`event_to_record`), and fold
  them with :meth:`SideNight.apply` (a replay gives the same night);
- :class:`OpenNight` when the league night starts (``games`` = the league's games a night);
  :class:`SetSideGame` from the league's saved settings; :class:`RecordEntry` and
  :class:`WithdrawEntry` from the desk; :class:`Draw` with a fresh seed
  (``fairness.deal.new_seed()``, kept secret as a match's seed is) **before the night's first
  ball**; :class:`RecordScore` for each finished game (:meth:`GameScore.of` a bowling game with
  ``league.handicap.for_average(average)``), again for a corrected one; :class:`MarkAbsent`
  for a game a bowler will not bowl;
  :class:`RecordRollOff`, :class:`PayBracket`, :class:`PayPot`; :class:`ResolveChange` for
  each of :meth:`SideNight.pending_changes`; :class:`RevealSeed` at the night's close;
- read :meth:`SideNight.brackets` (the desk's trees), :meth:`SideNight.bowler_brackets` (a
  phone's "you face…"), :meth:`BracketOutcome.alive` (the kiosk's still-alive list),
  :meth:`SideNight.pot`, :meth:`SideNight.money` (the night sheet's side money);
- :func:`verify_side_night` on the night's records for ``alley-poker verify`` and /verify.
"""

from alley_poker.side_games.draw import Bracket, DrawResult, draw_brackets
from alley_poker.side_games.log_check import SideNightCheck, verify_side_night
from alley_poker.side_games.money import BowlerMoney, NightMoney
from alley_poker.side_games.night import BowlerBracket, PendingChange, Result, SideNight
from alley_poker.side_games.night_commands import (
    Command,
    Draw,
    MarkAbsent,
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
from alley_poker.side_games.night_events import SideEvent, event_from_record, event_to_record
from alley_poker.side_games.pots import PotOutcome
from alley_poker.side_games.rounds import BracketOutcome, GameScore, Match
from alley_poker.side_games.settings import BracketSettings, PotSettings
from alley_poker.side_games.side_game_errors import SideGameError

__all__ = [
    "BowlerBracket", "BowlerMoney", "Bracket", "BracketOutcome", "BracketSettings", "Command",
    "Draw", "DrawResult", "GameScore", "MarkAbsent", "Match", "NightMoney", "OpenNight",
    "PayBracket", "PayPot", "PendingChange", "PotOutcome", "PotSettings", "RecordEntry",
    "RecordRollOff", "RecordScore", "ResolveChange", "Result", "RevealSeed", "SetSideGame",
    "SideEvent", "SideGameError", "SideNight", "SideNightCheck", "WithdrawEntry", "decide",
    "draw_brackets", "event_from_record", "event_to_record", "run", "verify_side_night",
]
