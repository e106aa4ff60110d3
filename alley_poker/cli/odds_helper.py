"""``alley-poker odds-helper``: runs a scaled-out centre's odds chunks on any machine that
reaches its Redis (:mod:`alley_poker.service.odds_helpers`)."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main


@main.command("odds-helper")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
def odds_helper(config_path: Path | None) -> None:
    """Compute a scaled-out centre's live odds beside its worker's pool (one core each).

    Takes chunks of runs from the centre's Redis (ALLEY_POKER_REDIS_URL; the centre is
    ALLEY_POKER_CENTRE) while the active worker, with '[odds] shared = true', hands them
    out; runs below the balls (nice 10).  Run one per spare core, on the worker's box or
    another; stop it with SIGTERM (a helper killed outright costs its chunk a timeout).
    """
    import redis

    from alley_poker.cli.served_process import log_to_stderr, stop_on_signals
    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.odds_helpers import run_helper

    log_to_stderr()
    try:
        config = load_config(config_path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    if not config.redis.url:
        raise click.ClickException("an odds helper takes its chunks from the centre's Redis: "
                                   "set redis.url (ALLEY_POKER_REDIS_URL)")
    stop = stop_on_signals()
    try:
        run_helper(config.redis.url, config.centre.id, stop,
                   say=lambda line: click.echo(line, err=False))
    except (redis.RedisError, OSError) as exc:
        raise click.ClickException(f"the centre's Redis at {config.redis.url}: {exc}") from exc
