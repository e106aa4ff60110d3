"""``alley-poker set-pin``: a new commissioner's PIN for a centre ``init`` set up."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.init import a_new_pin
from alley_poker.cli.root import main
from alley_poker.cli.served_process import keep_new_files_private
from alley_poker.setup_centre.writer import (
    ENV_FILE,
    NEW_PIN_MIN_LENGTH,
    SetupError,
    replace_pin,
)


@main.command("set-pin")
@click.argument("directory", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--pin", prompt="The new commissioner's PIN", hide_input=True,
              confirmation_prompt=True, callback=a_new_pin,
              help=f"The new PIN, at least {NEW_PIN_MIN_LENGTH} characters (asked, unseen, if "
                   "not given); only its hash is written.")
def set_pin(directory: Path, pin: str) -> None:
    """Change the commissioner's PIN of the centre set up in DIRECTORY (by 'init')."""
    keep_new_files_private()
    env_file = directory / ENV_FILE
    if not env_file.is_file():
        raise click.ClickException(f"{env_file} is not there: is {directory} the folder "
                                   "'alley-poker init' set the centre up in?")
    try:
        replace_pin(env_file, pin)
    except (SetupError, OSError) as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(f"wrote the new PIN's hash into {env_file}; restart the service for it to take "
               "effect (systemctl restart alley-poker)")
