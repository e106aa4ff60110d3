"""The doctor at the command-line layer: ``alley-poker doctor`` prints what is wrong.

The checks, in sentences, are :mod:`alley_poker.setup_centre.doctor`."""

from __future__ import annotations

import os
from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.setup_centre.writer import ENV_FILE


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
@click.option("--env-file", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              default=None, help=f"The service's environment file (default: {ENV_FILE} beside "
              "the config folder, if there; else this shell's environment).")
@click.option("--user", default=None,
              help="The user the service runs as (default: whoever runs the doctor).")
@click.option("--host", default=None, help="The address serve will listen on (default: its "
              "unit's --host beside the config folder, else 127.0.0.1).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="The port serve will listen on (default: its unit's --port, else 8000).")
def doctor(config_path: Path | None, env_file: Path | None, user: str | None,
           host: str | None, port: int | None) -> None:
    """Say what is wrong with the centre's set-up; exit status 1 when anything is."""
    from alley_poker.setup_centre.doctor import examine, read_env_file

    env = dict(os.environ)
    if env_file is None and config_path is not None:
        beside = config_path.resolve().parent.parent / ENV_FILE
        env_file = beside if beside.is_file() else None
    if env_file is not None:
        try:
            env.update(read_env_file(env_file))
        except (OSError, ValueError) as problem:
            raise click.ClickException(f"cannot read {env_file}: {problem}") from None
    address = None
    if host is not None or port is not None:
        from alley_poker.setup_centre.port_holder import DEFAULT_HOST, DEFAULT_PORT

        address = (host or DEFAULT_HOST, port or DEFAULT_PORT)
    problems = examine(config_path, env=env, user_name=user, env_file=env_file,
                       address=address)
    if not problems:
        click.echo("the centre's set-up looks right")
        return
    for problem in problems:
        click.echo(f"- {problem}")
    raise SystemExit(1)
