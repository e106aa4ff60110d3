"""``alley-poker demo``: the demo alley (:mod:`alley_poker.cli.demo_alley`) from the shell."""

from __future__ import annotations

import threading
from pathlib import Path

import click

from alley_poker import __version__
from alley_poker.cli.root import main


@main.command()
@click.option("--games", type=click.IntRange(1, 5), default=1, show_default=True,
              help="Games in each match (a league night is 3).")
@click.option("--speed", type=click.FloatRange(0), default=40.0, show_default=True,
              help="Simulated time runs this many times faster than real time (0: flat out).")
@click.option("--seed", type=int, default=None, help="Seed for the simulated bowlers.")
@click.option("--database", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite file for the ledger (default: a new temporary file).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Serve the kiosks and the tablet on this port (0: any free port).")
@click.option("--no-web", is_flag=True, help="Only narrate in the terminal; serve no pages.")
@click.option("--exit-when-done", is_flag=True,
              help="Stop serving as soon as the night is over (default: wait for Ctrl-C).")
@click.option("--feed", type=click.Choice(["serial", "http"]), default="serial",
              show_default=True,
              help="How the scorer talks: a serial feed, or a live-score page polled over HTTP.")
@click.option("--league", is_flag=True,
              help="A league night with side games instead: 14 bowlers, 3 games, handicap "
                   "brackets, a high game and a strike pot (docs/league.md, \"Side games\").")
def demo(games: int, speed: float, seed: int | None, database: Path | None, port: int,
         no_web: bool, exit_when_done: bool, feed: str, league: bool) -> None:
    """Run the demo alley: a simulated scorer bowls four lanes into the real service.

    Two matches (lanes 1-2 and 3-4) are dealt live from a serial feed over
    socket://127.0.0.1 (--feed http: a live-score page polled over HTTP), shown on the
    lane-side kiosks, and narrated in the terminal.
    """
    import signal

    from alley_poker.cards import parse_cards
    from alley_poker.cli.demo_alley import run_demo
    from alley_poker.hands import evaluate as evaluate_hand

    # Ctrl-C or SIGTERM at any moment, during the night or after it, stops the demo cleanly:
    # the scorer stops bowling, the pages, feed and ledger are closed, and the exit status is 0.
    stop = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        click.echo(f"{signal.Signals(signum).name}: stopping")
        stop.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        click.echo(f"alley-poker {__version__} demo alley")
        sample = "AS KS GJ 7D 7C"
        click.echo(f"the evaluator on a sample hand: {sample} is "
                   f"{evaluate_hand(parse_cards(sample)).describe()}\n")
        linger = None if exit_when_done else lambda: _wait_for_stop(stop)
        if league:
            from alley_poker.cli.demo_side_night import run_side_night_demo
            run_side_night_demo(speed=speed, seed=seed, database=database, echo=click.echo,
                                port=None if no_web else port, stop=stop, feed=feed,
                                linger=linger)
            return
        run_demo(games=games, speed=speed, seed=seed, database=database, echo=click.echo,
                 port=None if no_web else port, stop=stop, feed=feed, linger=linger)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _wait_for_stop(stop: threading.Event) -> None:
    if not stop.is_set():
        click.echo("the pages stay up until you press Ctrl-C")
    while not stop.wait(0.5):
        pass
