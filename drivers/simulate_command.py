"""What ``alley-poker simulate`` does: bowl simulated games into a serial URL (or a live-score
page over HTTP, ``--http PORT``) until done.

Kept out of the CLI module so the command stays one small function there.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from drivers.base import BallRecorded, LaneEvent
from drivers.board_server import BoardState, LiveBoardServer, serve_board
from drivers.feed_writer import FeedWriter, TimedLine, serve
from drivers.named_lanes import named_lanes, names_from, roster_names
from drivers.simulator import LaneSetup, Simulator, parse_lanes


def run_simulation(*, url: str, lanes: str, speed: float, dialect: str, seed: int | None,
                   games: int, bowlers: int, snapshots: bool, heartbeat_s: float,
                   echo: Callable[[str], None], verbose: bool = False,
                   http_port: int | None = None, names: Sequence[str] = (),
                   roster: Path | None = None) -> int:
    """Run the simulator into ``url`` and return the number of lines written.

    ``socket://HOST:PORT`` listens there (the service connects, as to a device server); any
    other URL or a pty path is opened and written.  With ``http_port`` it serves a live-score
    page on 127.0.0.1 instead (returns the balls shown).  Ctrl-C stops it cleanly.
    ``names`` (``--names``) or a ``roster`` file bowl those scorer names instead of generated
    bowlers (:mod:`drivers.named_lanes`).
    """
    if names and roster is not None:
        raise ValueError("give --names or --roster, not both")
    chosen: list[int] | list[LaneSetup] = parse_lanes(lanes)
    if names:
        chosen = named_lanes(chosen, names_from(names), seed=seed)
    elif roster is not None:
        chosen = named_lanes(chosen, [roster_names(roster)], seed=seed)
    simulator = Simulator(lanes=chosen, seed=seed, games=games,
                          bowlers_per_lane=bowlers, snapshots=snapshots)
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set()) \
        if threading.current_thread() is threading.main_thread() else None
    if http_port is not None:
        try:
            return _serve_page(simulator, http_port, speed=speed, heartbeat_s=heartbeat_s,
                               echo=echo, verbose=verbose, stop=stop)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
    writer = FeedWriter(url).start()
    pace = f"{speed:g}x real time" if speed else "as fast as possible"
    echo(f"simulator: {len(simulator.lanes)} lane(s), {games} game(s), dialect {dialect}, "
         f"{pace}, writing to {url}")
    for setup in simulator.lanes:
        echo(f"  lane {setup.lane}: " + ", ".join(
            f"{profile.name} ({profile.average})" for profile in setup.bowlers))

    def show(timed: TimedLine) -> None:
        if verbose:
            echo(timed.line.decode("ascii").rstrip())

    try:
        written = serve(simulator, writer, dialect=dialect, speed=speed,
                        heartbeat_s=heartbeat_s, on_line=show, stop=stop)
        while not stop.is_set() and not writer.flush(1.0):
            pass  # wait for a reader to take the rest (Ctrl-C gives up)
    finally:
        writer.stop()
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    echo(f"simulator: wrote {written} lines, {len(simulator.balls)} balls, "
         f"{sum(1 for game in simulator.games_bowled if game.game.is_complete)} games")
    return written


def _serve_page(simulator: Simulator, port: int, *, speed: float, heartbeat_s: float,
                echo: Callable[[str], None], verbose: bool, stop: threading.Event) -> int:
    """Bowl into a live-score page on 127.0.0.1:``port``; keep serving it until Ctrl-C."""
    page = LiveBoardServer(BoardState(), port=port).start()
    pace = f"{speed:g}x real time" if speed else "as fast as possible"
    echo(f"simulator: {len(simulator.lanes)} lane(s), {simulator.games_per_lane} game(s), "
         f"{pace}, live-score page at {page.url}")

    def show(event: LaneEvent) -> None:
        if verbose and type(event) is BallRecorded:
            echo(event.describe())

    try:
        shown = serve_board(simulator, page.state, speed=speed, heartbeat_s=heartbeat_s,
                            stop=stop, on_event=show)
        echo(f"simulator: showed {shown} balls, "
             f"{sum(1 for game in simulator.games_bowled if game.game.is_complete)} games; "
             "the page stays up until Ctrl-C")
        stop.wait()
    finally:
        page.stop()
    return shown
