"""A season in one command: a 12-bowler league bowls four league nights on the simulator.

``alley-poker league demo --weeks 4`` makes a league (Tuesday nights at 19:00 in
America/Chicago, lanes 1-2 and 3-4, three games, a $1 ante, handicap 90% of 220), imports its
roster from a CSV file as a commissioner would, and then, week after week: checks in who came
(one bowler misses week 3), starts the night in one step, and lets the simulated scorer bowl
it.  The scorer announces each lane's bowlers by the names typed into it, in its own slot
order, so the matches are seated from the scorer's word, not the desk's plan.  Demo bowlers
answer their own decisions and the demo commissioner confirms each result.  At the end the
season standings are printed from the projection of the event log, and the money is shown to
reconcile: every bowler's net, plus what the house kept, comes to exactly zero.

With ``--seed N`` a season repeats exactly: the scorer's bowling, the demo bowlers' answers
and the shuffles each draw from their own generator derived from the seed (the shuffles then
come from the seed, not from a sealed secret), and the bowlers answer each decision as soon as
the ball that opened it is in, so no thread's timing changes what happens.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from datetime import time as time_of_day
from pathlib import Path
from typing import Any

from alley_poker.centre import build_centre
from alley_poker.cli.demo_alley import COMMISSIONER, DEMO_PIN, DemoBowlers, demo_config
from alley_poker.league import HandicapRule, League, season_dates
from alley_poker.ledger import CommandRefused
from alley_poker.ledger import commands as c
from alley_poker.ledger.match_status import FINISHED
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.serving.centre_servers import AlleyServer
from drivers.simulator import LaneSetup, Simulator

LEAGUE_ID = "demo-tuesday"

#: The demo league's roster file, as a commissioner would type it (name, scorer's name,
#: book average, handicap basis, team).
ROSTER_CSV = """name,scorer_name,average,handicap_basis,team
Ava Hart,AVA,186,book,Pin Pals
Ben Ortiz,BEN,171,league,Pin Pals
Cal Reyes,CAL,158,book,Pin Pals
Dot Miller,DOT,142,league,Split Happens
Ed Novak,ED,197,book,Split Happens
Fay Quinn,FAY,133,book,Split Happens
Gus Patel,GUS,165,league,Gutter Gang
Hal Brooks,HAL,149,book,Gutter Gang
Ivy Chen,IVY,177,book,Gutter Gang
Jo Walsh,JO,128,league,Alley Cats
Kit Moreau,KIT,190,book,Alley Cats
Len Fischer,LEN,154,book,Alley Cats
"""

#: Who misses which week (1-based), so the standings show a night not played.
ABSENT = {3: ("Hal Brooks",)}


@dataclass
class SeasonResult:
    database: Path
    league_id: str
    nights: list[str] = field(default_factory=list)
    standings: list[Any] = field(default_factory=list)
    reconciliation: Any = None
    unsettled: list[str] = field(default_factory=list)

    @property
    def reconciles(self) -> bool:
        return self.reconciliation is not None and self.reconciliation.balanced


def money(cents: int) -> str:
    """Dollars as a treasurer writes them.

    >>> money(1250), money(-75), money(0)
    ('$12.50', '-$0.75', '$0.00')
    """
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"


class SeasonRandom:
    """The season's random streams, each its own generator derived from one seed: the scorer
    (who sits where, how they bowl), the demo bowlers' answers, and the shuffles (``None``
    without a seed: every match is then dealt fairly from a sealed secret)."""

    def __init__(self, seed: int | None):
        root = random.Random(seed)
        self.scorer = random.Random(root.randrange(2**63))
        self.bowlers = random.Random(root.randrange(2**63))
        shuffles = random.Random(root.randrange(2**63))
        self.shuffles: Callable[[], random.Random] | None = (
            None if seed is None else lambda: random.Random(shuffles.randrange(2**63)))


def demo_league() -> League:
    return League(LEAGUE_ID, "Tuesday Night Poker (demo)", "house-rev-1.2", ante_cents=100,
                  weekday=1, start_time=time_of_day(19, 0), time_zone="America/Chicago",
                  lane_pairs=((1, 2), (3, 4)), games=3, handicap=HandicapRule(90, 220))


def run_season(*, weeks: int = 4, seed: int | None = None, database: Path | None = None,
               first_night: date = date(2026, 9, 1), echo: Callable[[str], None] = print,
               port: int | None = None,
               linger: Callable[[], None] | None = None) -> SeasonResult:
    """Bowl ``weeks`` league nights into a SQLite ledger and return the season's standings.

    With ``port`` the commissioner's tablet is served on it after the season (the same
    server ``alley-poker serve`` runs), and ``linger`` is called before it stops.
    """
    streams = SeasonRandom(seed)
    rng = streams.scorer
    if database is None:
        database = Path(tempfile.mkdtemp(prefix="alley-poker-season-")) / "season.sqlite3"
    database.parent.mkdir(parents=True, exist_ok=True)
    # The season is bowled on a centre of its own (no feeds, no odds: the scorer's lines are
    # handed to the service); the served tablet is another, built after it over the same file.
    season_centre = build_centre(demo_config(database, odds=False),
                                 rng_factory=streams.shuffles)
    service, desk = season_centre.service, season_centre.league_desk
    assert desk is not None  # a one-box centre keeps its league desk
    result = SeasonResult(database, LEAGUE_ID)
    bowlers = DemoBowlers(service, streams.bowlers)
    league = demo_league()
    desk.store.create_league(league)
    roster = desk.store.import_roster(LEAGUE_ID, ROSTER_CSV)
    echo(f"{league.name}: {len(roster)} bowlers imported from the roster file; "
         f"{league.weekday_name}s at {league.start_time_text} ({league.time_zone}), "
         f"lanes {', '.join(f'{a}-{b}' for a, b in league.lane_pairs)}")
    for week, night_date in enumerate(season_dates(league, first_night, weeks=weeks), 1):
        here = [b for b in roster if b.name not in ABSENT.get(week, ())]
        started = desk.nights.start(LEAGUE_ID, [b.bowler_id for b in here],
                                    actor=COMMISSIONER, night_date=night_date)
        result.nights.append(started.night_id)
        echo(f"\nweek {week}, {night_date.isoformat()}: {len(here)} checked in; "
             f"matches {', '.join(started.matches)}")
        _bowl_the_night(service, league, started.seating, roster, rng, bowlers)
        for match_id in started.matches:
            _close_if_open(service, match_id, echo)
            state = service.state(match_id)
            result.unsettled.extend([match_id] if state.status not in FINISHED else [])
            winners = ", ".join(f"{name} {money(cents)}"
                                for name, cents in state.won.items() if cents)
            echo(f"  {match_id}: {state.status}"
                 + (f"; the pot went to {winners}" if winners else ""))
    with desk.standings.reading() as projection:
        result.standings = projection.standings(LEAGUE_ID)
        result.reconciliation = projection.reconciliation(LEAGUE_ID)
    _print_standings(result, echo)
    season_centre.stop()
    if port is None:
        return result
    # Its standings are rebuilt from the same ledger: what the season's projection showed.
    server = AlleyServer(demo_config(database, odds=True), port=port)
    server.start()
    echo(f"the tablet's standings: {server.base_url}/commissioner/leagues/{LEAGUE_ID}/standings"
         f" (PIN {DEMO_PIN})")
    try:
        if linger is not None:
            linger()
    finally:
        server.stop()  # pages, deadlines and the desk; closes the ledger
    return result


def _bowl_the_night(service, league: League, seating: dict[str, dict[tuple[int, int], str]],
                    roster: list[Any], rng: random.Random, bowlers: DemoBowlers) -> None:
    """The scorer bowls every lane of the night; its slot order is its own, not the desk's."""
    by_name = {b.name: b for b in roster}
    setups = []
    for slots in seating.values():
        for lane in sorted({lane for lane, _ in slots}):
            people = [slots[key] for key in sorted(slots) if key[0] == lane]
            rng.shuffle(people)  # the league's bowlers typed in the order they sat down
            setups.append(LaneSetup(lane, tuple(
                BowlerProfile.for_average(by_name[name].scorer_name, by_name[name].average)
                for name in people)))
    simulator = Simulator(setups, seed=rng.randrange(2**32), games=league.games)
    matches = sorted(seating)
    for timed in simulator.events():
        service.handle_lane_event(timed.event)
        _answer_all(bowlers, matches)
    for _round in range(20):  # decisions answered can open others (a steal, a draw)
        if all(service.state(m).status in FINISHED for m in matches):
            break
        _answer_all(bowlers, matches)


def _answer_all(bowlers: DemoBowlers, matches: list[str]) -> None:
    """The demo bowlers answer every open decision now, match by match in order: the same
    balls always meet the same answers (a season with a seed repeats exactly)."""
    for match_id in matches:
        try:
            bowlers.settle_decisions(match_id)
        except CommandRefused:
            continue  # nothing it can do yet; the next ball or round tries again


def _close_if_open(service, match_id: str, echo: Callable[[str], None]) -> None:
    """A match the bowlers left unfinished is settled as the hands stand at the close."""
    if service.state(match_id).status in FINISHED:
        return
    try:
        service.execute(match_id, c.CommissionerSettleAsHandsStand(
            reason="the demo night's close", actor=COMMISSIONER))
    except CommandRefused as refused:
        echo(f"  {match_id}: not settled: {refused}")


def _print_standings(result: SeasonResult, echo: Callable[[str], None]) -> None:
    echo(f"\nSeason standings after {len(result.nights)} nights (by net money):")
    echo(f"  {'bowler':<13}{'nights':>7}{'won':>5}{'net':>9}{'games':>7}{'avg':>5}"
         "  best hand")
    for row in result.standings:
        best = (f"{row.best_hand.describe} ({' '.join(row.best_hand.cards)})"
                if row.best_hand else "-")
        average = "-" if row.average is None else str(row.average)
        echo(f"  {row.name:<13}{row.nights:>7}{row.matches_won:>5}{money(row.net_cents):>9}"
             f"{row.games:>7}{average:>5}  {best}")
    money_check = result.reconciliation
    if money_check is not None:
        echo(f"\nnets add up to {money(money_check.bowlers_net_cents)}; the house kept "
             f"{money(money_check.house_cents)}; still in play "
             f"{money(money_check.in_play_cents)}: "
             + ("the money reconciles to $0.00" if money_check.balanced
                else "THE MONEY DOES NOT RECONCILE"))
    if result.unsettled:
        echo("not settled: " + ", ".join(result.unsettled))
    echo(f"ledger stored in {result.database}")
