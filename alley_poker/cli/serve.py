"""``alley-poker serve``: a whole centre in one process (ledger, feeds, jobs and the web)."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.cli.served_process import listening_options, start_http_process


@main.command()
@listening_options(
    host_help="Address to listen on (0.0.0.0: every interface, for kiosks on the LAN).")
def serve(config_path: Path | None, host: str, port: int, server_kind: str) -> None:
    """Serve the centre: ledger, scoreboard feeds, deadlines, kiosks, tablet and API.

    The commissioner's PIN comes from the ALLEY_POKER_COMMISSIONER_PIN environment variable
    (or its hash from ALLEY_POKER_COMMISSIONER_PIN_HASH).
    """
    start_http_process(redis_too=True)
    from alley_poker.config import ConfigError, load_config
    from alley_poker.serving.centre_servers import AlleyServer, MissingPin, require_commissioner_pin
    from alley_poker.store.event_store import StoreError

    try:
        config = load_config(config_path)
        require_commissioner_pin(config)
        _warn_if_demo(config_path, config)
        _refuse_a_broken_ledger(config)
        if server_kind == "gunicorn":
            from alley_poker.serving.production_server import serve_one_box

            raise SystemExit(serve_one_box(config, host, port, echo=click.echo))
        server = AlleyServer(config, host=host, port=port)
    except (MissingPin, ConfigError, StoreError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    server.serve_until_signalled(echo=click.echo)


def _refuse_a_broken_ledger(config: object) -> None:
    """A ledger file that is not a database stops ``serve`` here, in words, rather than in
    the forked worker (which gunicorn reports as a boot failure with its traceback)."""
    from alley_poker.store.database import sqlite_file_of, sqlite_file_problem

    ledger = sqlite_file_of(config.database.url)  # type: ignore[attr-defined]
    problem = ledger and sqlite_file_problem(ledger)
    if problem:
        backups = config.backup.folder  # type: ignore[attr-defined]
        raise click.ClickException(
            f"the ledger {ledger} {problem}. Nothing was started. Restore the newest copy "
            f"from {backups} (ls {backups}) in its place, or move the file away to start an "
            "empty ledger; 'alley-poker doctor' checks the set-up.")


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
