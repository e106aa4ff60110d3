"""``alley-poker web``: one stateless web process of a scaled-out centre."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.cli.served_process import listening_options, start_http_process


@main.command()
@listening_options(host_help="Address to listen on (behind nginx: 127.0.0.1).")
def web(config_path: Path | None, host: str, port: int, server_kind: str) -> None:
    """One web process of a scaled-out centre: kiosks, tablet, API and Socket.IO.

    Run any number behind a load balancer, with one 'alley-poker worker' (or two, one
    standing by) for the feeds and jobs.  Needs PostgreSQL (ALLEY_POKER_DATABASE_URL) and
    Redis (ALLEY_POKER_REDIS_URL); the centre is ALLEY_POKER_CENTRE; every web process of
    a centre shares ALLEY_POKER_COMMISSIONER_PIN and ALLEY_POKER_SECRET_KEY.
    """
    start_http_process(redis_too=False)
    from alley_poker.centre import ScaledSetupError
    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.redis_bus import BusUnavailable
    from alley_poker.serving.centre_servers import (
        MissingPin,
        WebServer,
        require_commissioner_pin,
        require_shared_secret_key,
    )
    from alley_poker.store.event_store import StoreError

    try:
        config = load_config(config_path)
        require_commissioner_pin(config)
        require_shared_secret_key(config)
        if server_kind == "gunicorn":
            from alley_poker.serving.production_server import serve_web_process

            raise SystemExit(serve_web_process(config, host, port, echo=click.echo))
        server = WebServer(config, host=host, port=port)
    except (MissingPin, ConfigError, StoreError, ScaledSetupError, BusUnavailable,
            OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    server.serve_until_signalled(echo=click.echo)
