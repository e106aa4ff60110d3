"""The ``alley-poker`` command line."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import click

from alley_poker import __version__
from alley_poker.cards import parse_cards
from alley_poker.cli_fairness import COMMANDS as FAIRNESS_COMMANDS
from alley_poker.cli_odds import odds as odds_commands
from alley_poker.league_cli import league
from alley_poker.setup_centre.commands import COMMANDS as SETUP_COMMANDS


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="alley-poker")
def main() -> None:
    """Alley Poker: Bowling Poker dealt from the lane scoring system."""


@main.command()
@click.argument("cards", required=False, default="AS KS GJ 7D 7C")
def evaluate(cards: str) -> None:
    """Print the evaluator's verdict on a hand, e.g. ``alley-poker evaluate "AS KS GJ"``."""
    from alley_poker.hands import evaluate as evaluate_hand

    try:
        value = evaluate_hand(parse_cards(cards))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from exc
    click.echo(f"{cards}: {value.describe()}")


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
def demo(games: int, speed: float, seed: int | None, database: Path | None, port: int,
         no_web: bool, exit_when_done: bool, feed: str) -> None:
    """Run the demo alley: a simulated scorer bowls four lanes into the real service.

    Two matches (lanes 1-2 and 3-4) are dealt live from a serial feed over
    socket://127.0.0.1 (--feed http: a live-score page polled over HTTP), shown on the
    lane-side kiosks, and narrated in the terminal.
    """
    import signal

    from alley_poker.demo import run_demo
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
        run_demo(games=games, speed=speed, seed=seed, database=database, echo=click.echo,
                 port=None if no_web else port, stop=stop, feed=feed,
                 linger=None if exit_when_done else lambda: _wait_for_stop(stop))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface, for kiosks on the LAN).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--server", "server_kind", type=click.Choice(["gunicorn", "werkzeug"]),
              default="gunicorn", show_default=True,
              help="The HTTP server: gunicorn (production) or werkzeug's (for comparison).")
def serve(config_path: Path | None, host: str, port: int, server_kind: str) -> None:
    """Serve the centre: ledger, scoreboard feeds, deadlines, kiosks, tablet and API.

    The commissioner's PIN comes from the ALLEY_POKER_COMMISSIONER_PIN environment variable.
    """
    _import_socketio_server_only(redis_too=True)
    from alley_poker.config import ConfigError, load_config
    from alley_poker.store.event_store import StoreError
    from alley_poker.web.server import AlleyServer, MissingPin, commissioner_pin

    # The router's recoveries and refusals and the feeds' reconnects belong in serve's log.
    _log_to_stderr()
    try:
        pin = commissioner_pin()
        config = load_config(config_path)
        _warn_if_demo(config_path, config)
        if server_kind == "gunicorn":
            from alley_poker.web.production_server import serve_one_box

            raise SystemExit(serve_one_box(config, pin, host, port, echo=click.echo))
        server = AlleyServer(config, pin=pin, host=host, port=port)
    except (MissingPin, ConfigError, StoreError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    server.serve_until_signalled(echo=click.echo)


#: What python-socketio and python-engineio import, when it is installed, only to offer a
#: Socket.IO *client* (``Client``, ``AsyncClient``): a server never uses them.
SOCKETIO_CLIENT_STACKS = ("aiohttp", "requests", "websocket")


def _import_socketio_server_only(*, redis_too: bool) -> None:
    """Import the Socket.IO server without the client stacks installed beside it.

    python-socketio imports aiohttp, requests and websocket-client whenever they are
    installed (the test extras install them: the tests' kiosks are python-socketio
    clients), and RedisManager's redis even when no message queue is configured.  A served
    process never uses them; they cost 13 MB of its memory (19 MB with redis).  So that
    first import is made with them marked missing (python-socketio then leaves its client
    and Redis manager unusable, as in an install without them); anything imported later
    finds them as usual.  ``web`` keeps redis: its Socket.IO message queue is Redis.
    """
    if "engineio" in sys.modules:
        return  # already imported with whatever it found (an in-process caller's)
    names = SOCKETIO_CLIENT_STACKS + (("redis",) if redis_too else ())
    absent = [name for name in names if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises ImportError
    try:
        import flask_socketio  # noqa: F401
    finally:
        for name in absent:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


def _warn_if_demo(config_path: Path | None, config: object) -> None:
    """Say so when no centre file was found and the shipped demo configuration is served."""
    from alley_poker.config import CENTRE_CONFIG_PATH, DEFAULT_CONFIG_PATH, default_config_path

    if config_path is None and default_config_path() == DEFAULT_CONFIG_PATH:
        centre = config.centre  # type: ignore[attr-defined]
        feeds = ", ".join(feed.url for feed in config.feeds) or "none"  # type: ignore[attr-defined]
        click.echo(f"WARNING: no {CENTRE_CONFIG_PATH} here, so this serves the DEMO lanes "
                   f"from the shipped configuration ({centre.name}: {centre.lanes} lanes, "
                   f"feeds {feeds}).  Copy {DEFAULT_CONFIG_PATH} to {CENTRE_CONFIG_PATH} and "
                   "set your centre's lanes and scorer, or pass --config.", err=True)


def _log_to_stderr() -> None:
    import logging

    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler says "Running job"/"executed successfully" at INFO for every run of every
    # job (the feed check runs every few seconds); our jobs log what changed instead.  A job
    # that fails is still logged (at ERROR).
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (behind nginx: 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--server", "server_kind", type=click.Choice(["gunicorn", "werkzeug"]),
              default="gunicorn", show_default=True,
              help="The HTTP server: gunicorn (production) or werkzeug's (for comparison).")
def web(config_path: Path | None, host: str, port: int, server_kind: str) -> None:
    """One web process of a scaled-out centre: kiosks, tablet, API and Socket.IO.

    Run any number behind a load balancer, with one 'alley-poker worker' (or two, one
    standing by) for the feeds and jobs.  Needs PostgreSQL (ALLEY_POKER_DATABASE_URL) and
    Redis (ALLEY_POKER_REDIS_URL); the centre is ALLEY_POKER_CENTRE; every web process of
    a centre shares ALLEY_POKER_COMMISSIONER_PIN and ALLEY_POKER_SECRET_KEY.
    """
    _import_socketio_server_only(redis_too=False)
    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.redis_bus import BusUnavailable
    from alley_poker.store.event_store import StoreError
    from alley_poker.web.server import (
        MissingPin,
        WebServer,
        commissioner_pin,
        shared_secret_key,
    )
    from alley_poker.worker import WorkerSetupError

    _log_to_stderr()
    try:
        if server_kind == "gunicorn":
            from alley_poker.web.production_server import serve_web_process

            raise SystemExit(serve_web_process(load_config(config_path), commissioner_pin(),
                                               shared_secret_key(), host, port,
                                               echo=click.echo))
        server = WebServer(load_config(config_path), pin=commissioner_pin(),
                           secret_key=shared_secret_key(), host=host, port=port)
    except (MissingPin, ConfigError, StoreError, WorkerSetupError, BusUnavailable,
            OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    server.serve_until_signalled(echo=click.echo)


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
@click.option("--poll", "poll_s", type=click.FloatRange(0.05, 10), default=0.5,
              show_default=True, help="Seconds between a standby's attempts to take over.")
@click.option("--metrics-port", type=click.IntRange(1, 65535), default=None,
              help="Serve the worker's Prometheus metrics at http://127.0.0.1:PORT/metrics.")
def worker(config_path: Path | None, poll_s: float, metrics_port: int | None) -> None:
    """The centre's feeds and scheduled jobs (run two: one active, one standing by).

    Needs PostgreSQL (ALLEY_POKER_DATABASE_URL) and Redis (ALLEY_POKER_REDIS_URL); the
    centre is ALLEY_POKER_CENTRE.  Exit status 3: it lost the election's database session
    and stopped dealing; restart it (it comes back as a standby).
    """
    import signal

    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.redis_bus import BusUnavailable
    from alley_poker.store.event_store import StoreError
    from alley_poker.worker import CentreWorker, WorkerSetupError

    _log_to_stderr()
    stop = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        click.echo(f"{signal.Signals(signum).name}: stopping", err=True)
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, request_stop)
    metrics = None
    try:
        if metrics_port is not None:
            from alley_poker.web.metrics import WorkerMetrics

            metrics = WorkerMetrics(metrics_port)
        status = CentreWorker(load_config(config_path), poll_s=poll_s, metrics=metrics,
                              echo=lambda line: click.echo(line, err=False)).run(stop)
    except (ConfigError, StoreError, WorkerSetupError, BusUnavailable, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if metrics is not None:
            metrics.close()
    raise SystemExit(status)


def _wait_for_stop(stop: threading.Event) -> None:
    if not stop.is_set():
        click.echo("the pages stay up until you press Ctrl-C")
    while not stop.wait(0.5):
        pass


@main.group()
def scenario() -> None:
    """Bowling Poker scenarios (JSON Lines scripts of a match, run in memory)."""


@scenario.command("run")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as one JSON object.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the shuffles.")
def scenario_run(file, as_json: bool, seed: int) -> None:
    """Run scenario FILE and print the final state (exit status 2 on a bad line)."""
    from alley_poker.scenario.cli import run_file

    raise SystemExit(run_file(file, as_json=as_json, seed=seed))


@main.command()
@click.option("--lanes", default="1-4", show_default=True, help="Lanes to bowl: 1-4, 1,3,5.")
@click.option("--speed", type=float, default=1.0, show_default=True,
              help="Times real speed; 0 = as fast as possible.")
@click.option("--url", default="socket://127.0.0.1:7001", show_default=True,
              help="socket://HOST:PORT to listen on (like a device server), or a serial URL/pty.")
@click.option("--http", "http_port", type=click.IntRange(0, 65535), default=None,
              help="Serve a live-score page at http://127.0.0.1:PORT/live instead of writing "
                   "lines (the live-board dialect; docs/feeds.md).")
@click.option("--dialect", type=click.Choice(["apf1", "scoresheet"]), default="apf1",
              show_default=True)
@click.option("--seed", type=int, default=None, help="Repeat the same games.")
@click.option("--games", type=int, default=3, show_default=True)
@click.option("--bowlers", type=int, default=4, show_default=True, help="Bowlers per lane.")
@click.option("--names", multiple=True, metavar="ANN,BOB,...",
              help="Bowl these scorer names (a roster's, to rehearse a league night): once, "
                   "spread over the lanes as a night lays them out; or once per lane.")
@click.option("--roster", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Bowl a roster file's active bowlers (scorer names, averages).")
@click.option("--snapshots/--no-snapshots", default=False, help="SNAP after every frame.")
@click.option("--heartbeat", "heartbeat_s", type=float, default=10.0, show_default=True)
@click.option("-v", "--verbose", is_flag=True, help="Print every line written.")
def simulate(**options: object) -> None:
    """Bowl realistic games and write them as a lane scorer would (apf1 or scoresheet)."""
    from drivers.simulate_command import run_simulation

    try:
        run_simulation(echo=click.echo, **options)  # type: ignore[arg-type]
    except (ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc


main.add_command(league)
main.add_command(odds_commands)
for command in SETUP_COMMANDS:
    main.add_command(command)
for command in FAIRNESS_COMMANDS:
    main.add_command(command)


if __name__ == "__main__":  # pragma: no cover
    main()
