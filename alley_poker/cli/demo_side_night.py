"""``alley-poker demo --league``: a league night with side games, fed by the simulated scorer.

Fourteen bowlers of a league bowl three games on lanes 1-4 (two matches of seven), their
balls sent by the simulated scorer over ``socket://127.0.0.1`` (or its live-score page) into
the real feed, exactly as :mod:`alley_poker.cli.demo_alley` does.  Beside the poker the league
runs its side games (docs/league.md, "Side games"):

- **handicap brackets** ($5 an entry, $25/$10 and $5 to the organiser): 76 entries are
  bought, which fill nine brackets of eight; the four left over cannot make a tenth (the
  league draws no seven-bowler brackets) and are refunded;
- a **high game** pot (handicap, $2, 70/30) and a **strike pot** ($1).

The desk records the entries and what was paid before the first ball and seals the draw
then; each game the scorer finishes is fed to the brackets and pots, a bracket is paid as
soon as its final is decided (a tie the games cannot break goes to a roll-off the desk
records), the pots when every game is in; at the close the draw's seed
is revealed and the night's export verified, and the side money is shown to reconcile.
"""

from __future__ import annotations

import queue
import random
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from alley_poker.centre import build_centre
from alley_poker.cli.demo_alley import (
    COMMISSIONER,
    DEMO_PIN,
    NIGHT_CLOSE_REASON,
    DemoBowlers,
    Narrator,
    _DemoScorer,
    demo_config,
)
from alley_poker.cli.season_demo import ROSTER_CSV, demo_league, money
from alley_poker.ledger import CommandRefused
from alley_poker.ledger import commands as c
from alley_poker.ledger.match_status import FINISHED
from alley_poker.odds.ball_model import BowlerProfile
from alley_poker.service.side_export import side_night_export
from alley_poker.service.side_nights import SideNightError, SideNights
from alley_poker.serving.centre_servers import AlleyServer
from alley_poker.side_games import (
    BracketSettings,
    PayBracket,
    PayPot,
    PotSettings,
    RecordEntry,
    RecordRollOff,
    SetSideGame,
    SideGameError,
)
from alley_poker.verifier.side_night import verify_side_export
from drivers.simulator import LaneSetup, Simulator

#: The break between games, in the scorer's ball-times (25 s each): the lanes bowl each game
#: together, as a league does, and rest ten ball-times between games (about six seconds at the
#: demo's default speed of 40), long enough to read the kiosk's still-alive list.
BREAK_BETWEEN_GAMES = 10.0
#: Two more bowlers than the season demo's twelve: fourteen, seven a match.
EXTRA_ROSTER = "Max Dunn,MAX,181,book,Pin Pals\nNia Ford,NIA,139,book,Split Happens\n"
BRACKETS = "hdcp"
HIGH_GAME = "high-game"
STRIKES = "strikes"
#: Bracket entries each bowler buys (in roster order): 6 x 6 + 8 x 5 = 76, nine brackets of
#: eight and four entries over (a tenth bracket stays unfilled: they are refunded).
ENTRIES = (6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5)
#: Who stays out of the strike pot (roster order): ten of the fourteen are in it.
NOT_IN_STRIKES = (2, 5, 9, 12)

SIDE_GAMES = {
    BRACKETS: BracketSettings(games=(1, 2, 3), scoring="handicap", entry_cents=500,
                              payouts_cents=(2500, 1000), organiser_cents=500,
                              seven_bowler_brackets=False),
    HIGH_GAME: PotSettings(kind="high_game", scoring="handicap", games=(1, 2, 3),
                           entry_cents=200, places_percent=(70, 30)),
    STRIKES: PotSettings(kind="strikes", scoring="scratch", games=(1, 2, 3), entry_cents=100),
}


@dataclass
class SideNightResult:
    """What the demo night did, for the closing summary and for tests."""

    database: Path
    league_id: str
    night_id: str
    night_date: date
    matches: tuple[str, ...] = ()
    unsettled: list[str] = field(default_factory=list)
    brackets: int = 0
    verdict: str = ""
    balanced: bool = False
    base_url: str | None = None


class SideDesk:
    """The demo desk's side of the night: pays each bracket once its final is decided and
    each pot once every game is in, and says so in a line (run on its own thread: the bus's
    messages arrive on the threads that record the balls)."""

    def __init__(self, side: SideNights, night_id: str, names: dict[int, str],
                 echo: Callable[[str], None], rng: random.Random) -> None:
        self.side, self.night_id, self.names, self.echo = side, night_id, names, echo
        self.rng = rng
        self._paying = threading.Lock()     # the desk's thread, and the close after it
        self.work: queue.Queue[bool] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="demo-side-desk", daemon=True)
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        self._unsubscribe = self.side.service.bus.subscribe(self._on_message)
        self._thread.start()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.work.put(False)
        self._thread.join(60)

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if topic == f"side:{self.night_id}" and any(
                r["type"] == "score_recorded" for r in message.get("events", ())):
            self.work.put(True)

    def _run(self) -> None:
        while self.work.get():
            self.pay_what_is_decided()

    def pay_what_is_decided(self, *, as_they_stand: bool = False) -> None:
        """Pay every bracket decided and every pot whose games are in (all of them, as the
        games stand, at the close)."""
        with self._paying:
            self._pay_decided(as_they_stand)

    def _pay_decided(self, as_they_stand: bool) -> None:
        night = self.side.night(self.night_id)
        if night is None:
            return
        for outcome in night.brackets(BRACKETS):
            for _match in outcome.matches:      # each roll-off can lead to the next round's
                tied = next((m for m in outcome.matches if m.status == "roll_off"), None)
                if tied is None:
                    break
                outcome = self._roll_off(outcome.number, tied)
            if outcome.finished and outcome.number not in night.book(BRACKETS).paid:
                self._pay(PayBracket(BRACKETS, outcome.number), self._bracket_line(outcome))
        for pot in (HIGH_GAME, STRIKES):
            standing = night.pot(pot)
            if None not in night.book(pot).paid and (standing.finished or as_they_stand):
                self._pay(PayPot(pot, as_they_stand=not standing.finished),
                          self._pot_line(pot, standing))

    def _roll_off(self, number: int, match: Any) -> Any:
        """A tie the games cannot break: the two bowl a roll-off, the desk records who won."""
        winner = self.rng.choice(match.sides)
        self.echo(f"[side games] bracket {number}, round {match.round}: "
                  f"{self.names[match.sides[0]]} and {self.names[match.sides[1]]} tie on game "
                  f"{match.game}; {self.names[winner]} wins the roll-off")
        try:
            self.side.run(self.night_id, RecordRollOff(BRACKETS, number, match.round,
                                                       match.key[2], winner),
                          actor=COMMISSIONER)
        except (SideGameError, SideNightError) as refused:
            self.echo(f"[side games] roll-off not recorded: {refused}")
        night = self.side.night(self.night_id)
        assert night is not None
        return night.brackets(BRACKETS)[number - 1]

    def _pay(self, command: Any, line: str) -> None:
        try:
            self.side.run(self.night_id, command, actor=COMMISSIONER)
        except (SideGameError, SideNightError) as refused:
            self.echo(f"[side games] not paid: {refused}")
            return
        self.echo(line)

    def _bracket_line(self, outcome: Any) -> str:
        final = outcome.matches[-1]
        winner, loser = self.names.get(final.winner, "?"), self.names.get(final.loser, "?")
        paid = ", ".join(f"{self.names[b]} {money(cents)}"
                         for b, cents in outcome.payouts.items())
        return (f"[side games] BRACKET {outcome.number} decided: {winner} beats {loser} in "
                f"the final ({final.how}); pays {paid}")

    def _pot_line(self, pot: str, standing: Any) -> str:
        paid = ", ".join(f"{self.names[b]} {money(cents)}"
                         for b, cents in sorted(standing.payouts.items(), key=lambda i: -i[1]))
        if pot == HIGH_GAME:
            best, number = standing.standings[0]
            return (f"[side games] HIGH GAME pot won by {self.names[best]} with {number} "
                    f"(handicap); pays {paid}")
        strikes = sum(number for _, number in standing.standings)
        return f"[side games] STRIKE POT: {strikes} strikes share it; pays {paid}"


def run_side_night_demo(*, speed: float = 40.0, seed: int | None = None,
                        database: Path | None = None, echo: Callable[[str], None] = print,
                        port: int | None = None, pin: str = DEMO_PIN,
                        linger: Callable[[], None] | None = None,
                        stop: threading.Event | None = None, feed: str = "serial",
                        night_date: date | None = None) -> SideNightResult:
    """Bowl a league night with side games through the real feed, service and ledger."""
    stop = stop if stop is not None else threading.Event()
    rng = random.Random(seed)
    if database is None:
        database = Path(tempfile.mkdtemp(prefix="alley-poker-demo-")) / "league-night.sqlite3"
    database.parent.mkdir(parents=True, exist_ok=True)
    night_date = night_date or date.today()
    scorer = _DemoScorer(feed)
    # The live odds are for the screens: only when they are served.
    centre_config = demo_config(database, odds=port is not None, pin=pin,
                                feeds=[scorer.feed_config()])
    server = AlleyServer(centre_config, port=port) if port is not None else None
    centre_night = server.centre if server is not None else build_centre(centre_config)
    service, desk = centre_night.service, centre_night.league_desk
    assert desk is not None  # a one-box centre keeps its league desk
    league = demo_league()
    desk.store.create_league(league)
    roster = desk.store.import_roster(league.league_id, ROSTER_CSV + EXTRA_ROSTER)
    names = {b.bowler_id: b.name for b in roster}
    side = desk.side_games
    night_id = side.open(league, night_date, actor=COMMISSIONER)
    result = SideNightResult(database, league.league_id, night_id, night_date)
    echo(f"{league.name}, night of {night_date.isoformat()}: {len(roster)} bowlers, "
         f"{league.games} games; side games: handicap brackets, high game, strike pot")
    for game, settings in SIDE_GAMES.items():
        side.run(night_id, SetSideGame(game, settings), actor=COMMISSIONER)
    for index, (bowler, bought) in enumerate(zip(roster, ENTRIES, strict=True)):
        fee = SIDE_GAMES[BRACKETS].entry_cents
        side.run(night_id, RecordEntry(BRACKETS, bowler.bowler_id, bought, bought * fee),
                 actor=COMMISSIONER)
        side.run(night_id, RecordEntry(HIGH_GAME, bowler.bowler_id, 1, 200), actor=COMMISSIONER)
        if index not in NOT_IN_STRIKES:
            side.run(night_id, RecordEntry(STRIKES, bowler.bowler_id, 1, 100),
                     actor=COMMISSIONER)
    filled = side.night(night_id).draw_preview(BRACKETS)
    echo(f"[side games] the desk records {sum(ENTRIES)} bracket entries: {filled.brackets} "
         f"brackets fill, {filled.left_over} entries over (a bracket unfilled)")

    started = desk.nights.start(league.league_id, [b.bowler_id for b in roster],
                                actor=COMMISSIONER, night_date=night_date)
    result.matches = started.matches
    side.draw(night_id, actor=COMMISSIONER)     # sealed before the first ball
    night = side.night(night_id)
    drawn = night.book(BRACKETS).drawn or ()
    result.brackets = len(drawn)
    refunded = sum(night.refunded.values())
    echo(f"[side games] the draw is sealed before the first ball (commitment "
         f"{night.commitment[:16]}…): {len(drawn)} brackets drawn; {money(refunded)} of "
         "entries the unfilled bracket could not use are refunded")
    for match_id in started.matches:
        echo(f"[{match_id}] {', '.join(started.seating[match_id].values())} ante up")

    simulator = _scorer_night(started.seating, {b.name: b for b in roster}, rng, league.games)
    service.bus.subscribe(Narrator(service, echo))
    bowlers = DemoBowlers(service, random.Random(rng.randrange(2**63)))
    bowlers.start()
    side_desk = SideDesk(side, night_id, names, echo, random.Random(rng.randrange(2**63)))
    side_desk.start()
    if server is not None:
        server.start()
        result.base_url = server.base_url
        night_url = (f"{server.base_url}/commissioner/leagues/{league.league_id}/nights/"
                     f"{night_date.isoformat()}")
        echo(f"kiosks: {server.base_url}/kiosk/1-2 and {server.base_url}/kiosk/3-4")
        echo(f"commissioner tablet: {server.base_url}/commissioner (PIN {pin}); the side "
             f"games: {night_url}/side-games; the night sheet: {night_url}")
    else:
        centre_night.start()
    echo(scorer.describe())
    try:
        scorer.bowl(simulator, centre_night.feeds, speed=speed, stop=stop)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not stop.is_set() and not all(
                service.state(m).status == "settled" for m in started.matches):
            for match_id in started.matches:
                bowlers.work.put(match_id)
            stop.wait(0.2)
        if not stop.is_set():
            _close_matches(service, started.matches, echo)
    finally:
        bowlers.stop()
        side_desk.stop()
    if not stop.is_set():
        side_desk.pay_what_is_decided(as_they_stand=True)
        side.reveal(night_id, actor=COMMISSIONER)
    _summary(result, side, service, names, echo)
    if server is not None:
        if linger is not None:
            linger()
        server.stop()  # pages, feeds, deadlines and the desk; closes the ledger
    else:
        centre_night.stop()
    scorer.stop()
    return result


def _scorer_night(seating: dict[str, dict[tuple[int, int], str]], by_name: dict[str, Any],
                  rng: random.Random, games: int) -> Simulator:
    """The scorer's night: each lane's bowlers typed in by their scorer names; the lanes
    finish each game, then start the next together after the break."""
    setups = []
    for slots in seating.values():
        for lane in sorted({lane for lane, _ in slots}):
            people = [slots[key] for key in sorted(slots) if key[0] == lane]
            setups.append(LaneSetup(lane, tuple(
                BowlerProfile.for_average(by_name[name].scorer_name, by_name[name].average)
                for name in people)))
    return Simulator(setups, seed=rng.randrange(2**32), games=games,
                     break_between_games=BREAK_BETWEEN_GAMES)


def _close_matches(service: Any, matches: tuple[str, ...], echo: Callable[[str], None]) -> None:
    for match_id in matches:
        if service.state(match_id).status in FINISHED:
            continue
        try:
            service.execute(match_id, c.CommissionerSettleAsHandsStand(
                reason=NIGHT_CLOSE_REASON, actor=COMMISSIONER))
        except CommandRefused as refused:
            echo(f"[{match_id}] not settled: {refused}")


def _summary(result: SideNightResult, side: SideNights, service: Any, names: dict[int, str],
             echo: Callable[[str], None]) -> None:
    result.unsettled = [m for m in result.matches if service.state(m).status not in FINISHED]
    night = side.night(result.night_id)
    assert night is not None
    if night.seed is not None:
        echo(f"\n[side games] the night's close: the draw's seed is revealed ({night.seed[:16]}…)")
    verdict = verify_side_export(side_night_export(side, result.night_id))
    result.verdict = str(verdict)
    echo(f"alley-poker verify: {verdict}")
    cash = night.money()
    result.balanced = cash.balanced and cash.in_play_cents == 0
    echo("\nThe night's side money (entries recorded, not collected):")
    echo(f"  {'bowler':<13}{'paid':>9}{'won':>9}{'refunded':>10}")
    for line in cash.bowlers:
        echo(f"  {names.get(line.bowler, line.bowler):<13}{money(line.paid_cents):>9}"
             f"{money(line.won_cents):>9}{money(line.refunded_cents):>10}")
    echo(f"entries {money(cash.entries_cents)} = payouts {money(cash.payouts_cents)} + refunds "
         f"{money(cash.refunds_cents)} + organiser {money(cash.organiser_cents)} + in play "
         f"{money(cash.in_play_cents)}: "
         + ("every cent reconciles" if cash.balanced else "THE SIDE MONEY DOES NOT RECONCILE"))
    if result.unsettled:
        echo("the night is NOT over: not settled: " + ", ".join(result.unsettled))
    else:
        echo("the night is over: every match is settled or void")
    echo(f"ledger stored in {result.database}")
