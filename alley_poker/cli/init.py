"""``alley-poker init``: a centre's configuration, secrets and systemd units, written."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.cli.served_process import keep_new_files_private
from alley_poker.setup_centre.writer import (
    NEW_PIN_MIN_LENGTH,
    CentreChoices,
    FeedChoice,
    SetupError,
    pin_too_short,
    verify_units,
    write_centre,
)


def a_new_pin(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """A new commissioner's PIN (``init``, ``set-pin``): long enough, stripped."""
    if len(value.strip()) < NEW_PIN_MIN_LENGTH:
        raise click.BadParameter(pin_too_short())
    return value.strip()


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", prompt="The centre's name", help="The centre's name, as screens show it.")
@click.option("--lanes", type=click.IntRange(2, 200), prompt="How many lanes",
              help="How many lanes the centre has (paired 1-2, 3-4, ...).")
@click.option("--feed", "feeds", multiple=True, metavar="LANES=URL",
              help="A scoreboard feed and the lanes it carries, e.g. 1-12=/dev/ttyUSB0 or "
                   "13-24=socket://10.0.0.20:4001 (repeat for more; asked when none given).")
@click.option("--no-feed", is_flag=True, help="No feed: every lane is scored by manual entry.")
@click.option("--pin", prompt="The commissioner's PIN", hide_input=True,
              confirmation_prompt=True, callback=a_new_pin,
              help=f"The commissioner's PIN, at least {NEW_PIN_MIN_LENGTH} characters (asked, "
                   "unseen, if not given); only its hash is written.")
@click.option("--centre-id", default="default", show_default=True,
              help="The centre's id (lower-case letters, digits, dashes).")
@click.option("--time-zone", default="", help="The centre's time zone, e.g. America/Chicago "
              "(default: the machine's own).")
@click.option("--user", default="alley", show_default=True,
              help="The system user the service runs as (in the systemd units).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--force", is_flag=True, help="Write over a set-up already in DIRECTORY.")
def init(directory: Path, name: str, lanes: int, feeds: tuple[str, ...], no_feed: bool,
         pin: str, centre_id: str, time_zone: str, user: str, port: int, force: bool) -> None:
    """Set a centre up in DIRECTORY: its configuration, secrets and systemd units."""
    keep_new_files_private()
    try:
        chosen = [FeedChoice.parse(text) for text in feeds]
        if not chosen and not no_feed:
            url = click.prompt(f"The scorer's feed for lanes 1-{lanes} (a serial device such "
                               "as /dev/ttyUSB0, socket://HOST:PORT, or an http:// live-score "
                               "page; empty: none)", default="", show_default=False).strip()
            if url:
                chosen = [FeedChoice(url, list(range(1, lanes + 1)), f"lanes-1-{lanes}")]
        written = write_centre(CentreChoices(
            name=name.strip(), lanes=lanes, pin=pin, centre_id=centre_id, feeds=chosen,
            time_zone=time_zone.strip(), user=user, port=port), directory, force=force)
    except (SetupError, OSError) as problem:
        raise click.ClickException(str(problem)) from None
    click.echo(f"wrote {written.config}")
    click.echo(f"wrote {written.env_file} (readable by its owner only)")
    for unit in written.units:
        click.echo(f"wrote {unit}")
    for note in written.notes:
        click.echo(f"WARNING: {note}", err=True)
    said = verify_units(written.units)
    if said:
        click.echo(f"systemd-analyze verify says:\n{said}")
    click.echo("next: 'alley-poker doctor --config "
               f"{written.config}' checks the set-up; then copy the unit you want to "
               "/etc/systemd/system/ and 'systemctl enable --now alley-poker'")
