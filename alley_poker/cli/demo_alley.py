"""The demo alley: a simulated scorer bowls into the real service over a real serial URL.

Four lanes, two matches (lanes 1-2 and 3-4), three bowlers a lane.  The simulator listens on
``socket://127.0.0.1:PORT`` as a serial device server does; the service's feed connects to
it through pyserial, exactly as it would to a centre's scorer.  Everything the ledger does is
narrated as it happens; demo bowlers answer their own decisions (a quick guess at the ball
return, the card to lose, a steal, the end-of-match draw and buy) and the demo commissioner
confirms each result.  The ledger is stored in SQLite like a real night.
"""

from __future__ import annotations

import queue
import random
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alley_poker.centre import build_centre
from alley_poker.config import (
    AlleyConfig,
    BackupConfig,
    CentreConfig,
    CommissionerConfig,
    DatabaseConfig,
    FeedConfig,
    OddsConfig,
)
from alley_poker.ledger import CommandRefused
from alley_poker.ledger import commands as c
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.values import automatic_loss
from alley_poker.ledger.views import public_match_view
from alley_poker.service import AlleyService
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.serving.centre_servers import AlleyServer
from drivers.board_server import BoardState, LiveBoardServer, serve_board
from drivers.feed_writer import FeedWriter, serve
from drivers.simulator import Simulator

COMMISSIONER = "commissioner:demo"
DEMO_PIN = "2468"
MATCH_LANES = {"lanes-1-2": (1, 2), "lanes-3-4": (3, 4)}
NIGHT_CLOSE_REASON = "the demo night's close"


@dataclass
class DemoResult:
    """What the demo did, for the closing summary and for tests."""

    database: Path
    balls: int = 0
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Matches neither settled nor void when the demo ended (empty: the night is over).
    unsettled: list[str] = field(default_factory=list)


def _money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


class Narrator:
    """Turns ledger events into one line each for the terminal."""

    def __init__(self, service: AlleyService, echo: Callable[[str], None]):
        self.service = service
        self.echo = echo

    def __call__(self, topic: str, message: dict[str, Any]) -> None:
        if message.get("kind") in ("balls_recovered", "catch_up_for_review"):
            self.echo(f"  ** {message['message']}")
            return
        if message.get("kind") != "events":
            return
        match_id = message["match_id"]
        state = self.service.state(match_id)
        for record in message["events"]:
            line = self._line(state, record["type"], record["data"])
            if line:
                self.echo(f"[{match_id}] {line}")

    @staticmethod
    def _line(state, kind: str, data: dict[str, Any]) -> str | None:
        shown = state.display_card
        if kind == "ball_recorded" and data["mark"]:
            extra = " (first strike of the game: +1)" if data["bonus"] else ""
            label = "STRIKE" if data["mark"] == "strike" else "spare"
            if data["split_pickup"]:
                label = "SPLIT PICKED UP"
            return (f"{data['bowler']}: {label} in frame {data['frame']} "
                    f"(+{data['cards_due']}){extra}")
        if kind == "ball_recorded" and data["gutter_ball"]:
            return f"{data['bowler']}: GUTTER BALL in frame {data['frame']}"
        if kind == "card_drawn":
            return f"    {data['bowler']} draws {shown(data['card'])}"
        if kind == "card_taken":
            return (f"    {data['bowler']} takes {shown(data['card'])} from "
                    f"{data['from_bowler']} ({data['via']})")
        if kind == "card_returned":
            return f"    {data['bowler']} puts {shown(data['card'])} back in the pile"
        if kind == "jokers_swapped":
            return "    FREAKY FRIDAY! the jokers swap powers"
        if kind == "hole_deepened":
            return f"    {data['bowler']} goes deeper in the hole"
        if kind == "hole_paid_off":
            return f"    {data['bowler']} climbs out of the hole by one card"
        if kind == "guess_resolved":
            verdict = "right: keeps the card" if data["correct"] else "wrong"
            return f"    {data['bowler']} guessed the ball return {verdict}"
        if kind == "automatic_win":
            return f"AUTOMATIC WIN: {data['bowler']} bought the good joker!"
        if kind == "showdown":
            return "SHOWDOWN: " + ", ".join(
                f"{bowler} {_money(cents)}" for bowler, cents in data["shares"].items())
        if kind == "match_settled" and data.get("reason") == NIGHT_CLOSE_REASON:
            return "settled as the hands stand at the night's close; the pot is paid"
        if kind == "match_settled":
            return "result confirmed by the commissioner; the pot is paid"
        return None


class DemoBowlers:
    """Answers every pending decision the way a quick, slightly reckless bowler would."""

    def __init__(self, service: AlleyService, rng: random.Random):
        self.service = service
        self.rng = rng
        self.work: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="demo-bowlers", daemon=True)

    def start(self) -> None:
        self.service.bus.subscribe(self._on_message)
        self._thread.start()

    def stop(self) -> None:
        self.work.put(None)
        self._thread.join(5)

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if message.get("kind") == "events" and any(
                r["type"] in ("decision_opened", "showdown", "guess_made")
                for r in message["events"]):
            self.work.put(message["match_id"])

    def _run(self) -> None:
        while (match_id := self.work.get()) is not None:
            try:
                self.settle_decisions(match_id)
            except CommandRefused:
                continue  # the state moved on under us; the next message retries

    def settle_decisions(self, match_id: str) -> None:
        """Answer every open decision of the match, then confirm a result that is ready."""
        state = self.service.state(match_id)
        for decision in list(state.decisions.values()):
            command = self._answer(state, decision)
            if command is not None:
                self.service.execute(match_id, command)
                state = self.service.state(match_id)
        if state.result is not None and state.status == "ending" and not state.decisions:
            self.service.execute(match_id, c.CommissionerConfirmResult(
                reason="demo night", actor=COMMISSIONER))

    def _answer(self, state, decision: dict) -> c.Command | None:
        bowler, kind = decision["bowler"], decision["kind"]
        actor = f"bowler:{bowler}"
        if kind == "lose_card":
            guess = decision["guess"]
            if guess is not None and "outcome" not in guess:
                return c.RecordGuessOutcome(bowler, self.rng.choice(["left", "right"]),
                                            actor=actor)
            if decision["guess_allowed"] and self.rng.random() < 0.5:
                return c.DecideGuess(bowler, self.rng.choice(["left", "right"]), actor=actor)
            card = automatic_loss(state, bowler)
            return c.DecideLoseCard(bowler, state.display_card(card), actor=actor)
        if kind == "steal":
            victims = [b for b in state.bowlers if b != bowler and state.hands[b]]
            if not victims:
                return None
            victim = max(victims, key=lambda b: len(state.hands[b]))
            card = state.display_card(self.rng.choice(state.hands[victim]))
            return c.DecideSteal(bowler, victim, card, actor=actor)
        if kind == "end_draw":
            return c.DecideEndDraw(bowler, True, actor=actor)
        if kind == "buy":
            return c.DecideBuy(bowler, self.rng.random() < 0.3, actor=actor)
        return None


def demo_config(database: Path, *, odds: bool, pin: str = DEMO_PIN,
                feeds: Sequence[FeedConfig] = ()) -> AlleyConfig:
    """A demo centre's configuration: four lanes, its ledger in the SQLite file ``database``."""
    return AlleyConfig(
        centre=CentreConfig(name="Demo Lanes", lanes=4),
        database=DatabaseConfig(url=f"sqlite:///{database}"),
        feeds=list(feeds),
        # A demo's throwaway ledger needs no nightly copies in the visitor's working folder.
        backup=BackupConfig(enabled=False),
        odds=OddsConfig(enabled=odds),
        commissioner=CommissionerConfig(pin=pin),
    )


def close_the_night(service: AlleyService, echo: Callable[[str], None]) -> None:
    """The demo's close: a match the bowlers left unfinished (a decision nobody can answer
    before its deadline) is settled as the hands stand, as a commissioner does at closing
    time; no demo night ends with money held."""
    for match_id in MATCH_LANES:
        status = service.state(match_id).status
        if status in FINISHED:
            continue
        echo(f"[{match_id}] the night's close: still {status}; the commissioner settles it "
             "as the hands stand")
        try:
            service.execute(match_id, c.CommissionerSettleAsHandsStand(
                reason=NIGHT_CLOSE_REASON, actor=COMMISSIONER))
        except CommandRefused as refused:  # said, and left for the summary to name
            echo(f"[{match_id}] not settled: {refused}")


def run_demo(*, games: int = 1, speed: float = 40.0, seed: int | None = None,
             database: Path | None = None, echo: Callable[[str], None] = print,
             bowlers_per_lane: int = 3, port: int | None = None, pin: str = DEMO_PIN,
             linger: Callable[[], None] | None = None,
             stop: threading.Event | None = None, feed: str = "serial") -> DemoResult:
    """Bowl a simulated league night through the real feed, service and ledger.

    With ``port`` the kiosks and the commissioner tablet are served while it runs;
    ``linger`` is then called after the night (e.g. to wait for Ctrl-C) before they stop.
    Setting ``stop`` ends the night early: the scorer stops bowling and everything is closed
    as after a whole night (the ledger keeps every ball dealt so far).  ``feed="http"`` runs
    the night without a cable: the scorer shows a live-score page over HTTP and the service
    polls it (``docs/feeds.md``).
    """
    if feed not in ("serial", "http"):
        raise ValueError(f"feed: 'serial' or 'http', not {feed!r}")
    stop = stop if stop is not None else threading.Event()
    rng = random.Random(seed)
    if database is None:
        database = Path(tempfile.mkdtemp(prefix="alley-poker-demo-")) / "demo.sqlite3"
    database.parent.mkdir(parents=True, exist_ok=True)
    scorer = _DemoScorer(feed)
    # The live odds are for the screens: only when they are served.
    centre_config = demo_config(database, odds=port is not None, pin=pin,
                                feeds=[scorer.feed_config()])
    # The centre `alley-poker serve` runs (feeds, deadlines, the night's jobs); with pages,
    # behind the same web server.
    server = AlleyServer(centre_config, port=port) if port is not None else None
    night = server.centre if server is not None else build_centre(centre_config)
    service = night.service
    simulator = Simulator([1, 2, 3, 4], seed=rng.randrange(2**32), games=games,
                          bowlers_per_lane=bowlers_per_lane)
    result = DemoResult(database)

    for match_id, lanes in MATCH_LANES.items():
        slots = {(setup.lane, slot): profile.name for setup in simulator.lanes
                 if setup.lane in lanes for slot, profile in enumerate(setup.bowlers, 1)}
        service.create_match(match_id, slots, games=games, actor=COMMISSIONER)
        for name in slots.values():
            service.execute(match_id, c.ConsentToAnte(name, actor=f"bowler:{name}"))
        service.execute(match_id, c.StartMatch(actor=COMMISSIONER))
        echo(f"[{match_id}] {', '.join(slots.values())} ante up; the pot is "
             f"{_money(service.state(match_id).pot_cents)}")

    feeds = night.feeds
    service.bus.subscribe(Narrator(service, echo))
    bowlers = DemoBowlers(service, random.Random(rng.randrange(2**63)))  # its own stream
    bowlers.start()
    if server is not None:
        server.start()
        echo(f"kiosks: {server.base_url}/kiosk/1-2 and {server.base_url}/kiosk/3-4")
        echo(f"commissioner tablet: {server.base_url}/commissioner (PIN {pin})")
    else:
        night.start()
    echo(scorer.describe())
    try:
        scorer.bowl(simulator, feeds, speed=speed, stop=stop)
        result.balls = len(simulator.balls)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not stop.is_set() and not all(
                service.state(m).status == "settled" for m in MATCH_LANES):
            for match_id in MATCH_LANES:
                bowlers.work.put(match_id)
            stop.wait(0.2)
        if not stop.is_set():
            close_the_night(service, echo)
    finally:
        bowlers.stop()
        if server is None:
            feeds.stop()
    for match_id in MATCH_LANES:
        view = public_match_view(service.state(match_id))
        result.views[match_id] = view
        echo(f"\n[{match_id}] {view['status']}: pot {_money(view['pot_cents'])}")
        for name, bowler in view["bowlers"].items():
            hand = " ".join(bowler["hand"]) or "(no cards)"
            hole = f", hole {bowler['hole']}" if bowler["hole"] < 0 else ""
            won = f", wins {_money(bowler['won_cents'])}" if bowler["won_cents"] else ""
            echo(f"  {name:<8} {hand:<40} {bowler['describe']}{hole}{won}")
    result.unsettled = [m for m in MATCH_LANES if result.views[m]["status"] not in FINISHED]
    echo(f"\nledger stored in {database}")
    if result.unsettled:
        echo("the night is NOT over: not settled: " + ", ".join(
            f"{m} ({result.views[m]['status']})" for m in result.unsettled))
    else:
        echo("the night is over: every match is settled or void")
    if server is not None:
        if linger is not None:
            linger()
        server.stop()  # pages, feeds and deadlines; closes the ledger
    else:
        night.stop()  # feeds and deadlines; closes the ledger
    scorer.stop()
    return result


class _DemoScorer:
    """The demo's simulated scorer: a serial device server, or a live-score web page."""

    def __init__(self, feed: str):
        self.kind = feed
        if feed == "http":
            self.board = BoardState()
            self.page = LiveBoardServer(self.board).start()
            self.url = self.page.url
        else:
            self.writer = FeedWriter("socket://127.0.0.1:0").start()
            host, port = self.writer.address
            self.url = f"socket://{host}:{port}"

    def feed_config(self) -> FeedConfig:
        if self.kind == "http":
            # Polled faster than a centre's 2 s: the demo's night runs many times real time.
            return FeedConfig(name="demo-page", url=self.url, lanes=[1, 2, 3, 4], poll_s=0.25)
        return FeedConfig(name="demo-scorer", url=self.url, lanes=[1, 2, 3, 4])

    def describe(self) -> str:
        if self.kind == "http":
            return (f"scorer simulator showing its live-score page at {self.url}; the "
                    "service's feed polls it over HTTP (no cable)")
        return (f"scorer simulator listening on {self.url}; the service's feed reads it "
                "through pyserial")

    def bowl(self, simulator: Simulator, feeds: FeedSupervisor, *, speed: float,
             stop: threading.Event) -> None:
        """Bowl the night, then wait until the feed has taken every line (at most 30 s for
        the page, 300 s for the serial feed, which reads its lines in order)."""
        if self.kind == "http":
            serve_board(simulator, self.board, speed=speed, stop=stop)
            if not stop.is_set():
                page_feed = next(iter(feeds.feeds.values()))
                page_feed.wait_for(lambda health: health.balls >= len(simulator.balls), 30)
            return
        serve(simulator, self.writer, speed=speed, stop=stop)
        if not stop.is_set():
            self.writer.flush(30)
            # Sent is not taken: on a busy machine the feed can be well behind the scorer,
            # and a match closed before its last balls are in would refuse them.
            feed = next(iter(feeds.feeds.values()))
            sent = self.writer.lines_sent
            deadline = time.monotonic() + 300
            while not stop.is_set() and time.monotonic() < deadline and not feed.wait_for(
                    lambda health: (health.lines_ok + health.lines_rejected
                                    + health.duplicates >= sent
                                    or (health.seconds_silent or 0) >= 5), 0.5):
                pass

    def stop(self) -> None:
        if self.kind == "http":
            self.page.stop()
        else:
            self.writer.stop()
