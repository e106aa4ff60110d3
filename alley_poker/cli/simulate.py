"""``alley-poker simulate``: the scoreboard simulator, writing as a lane scorer would."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main


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
