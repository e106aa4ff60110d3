"""``alley-poker worker``: a scaled-out centre's feeds and jobs (:mod:`.centre_worker`)."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.cli.served_process import (
    keep_new_files_private,
    log_to_stderr,
    stop_on_signals,
)


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
    from alley_poker.centre import ScaledSetupError
    from alley_poker.cli.centre_worker import CentreWorker
    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.redis_bus import BusUnavailable
    from alley_poker.store.event_store import StoreError

    log_to_stderr()
    keep_new_files_private()
    stop = stop_on_signals()
    metrics = None
    try:
        if metrics_port is not None:
            from alley_poker.web.metrics import WorkerMetrics

            metrics = WorkerMetrics(metrics_port)
        status = CentreWorker(load_config(config_path), poll_s=poll_s, metrics=metrics,
                              echo=lambda line: click.echo(line, err=False)).run(stop)
    except (ConfigError, StoreError, ScaledSetupError, BusUnavailable, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if metrics is not None:
            metrics.close()
    raise SystemExit(status)
