"""The league at the command-line layer: ``alley-poker league`` (a season's demo, a night).

A season's demo, and tonight's league night from the desk's shell; the league itself is
:mod:`alley_poker.league.league`.

``league night start`` talks to the running server's API (with an API token made on the
tablet's Tokens page) rather than to the database: the server is the process that routes the
scorer's balls, so it must be the one that knows tonight's matches are on the lanes.
"""

from __future__ import annotations

import threading
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from alley_poker.cli.root import main

if TYPE_CHECKING:
    import httpx


@main.group()
def league() -> None:
    """Leagues: a simulated season, and starting tonight's league night."""


@league.command("demo")
@click.option("--weeks", type=click.IntRange(1, 52), default=4, show_default=True,
              help="League nights to bowl.")
@click.option("--seed", type=int, default=None, help="Seed for the simulated bowlers.")
@click.option("--database", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="SQLite file for the ledger (default: a new temporary file).")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="Then serve the commissioner's tablet on this port (0: any free port), "
                   "to see the standings there, until Ctrl-C.")
def league_demo(weeks: int, seed: int | None, database: Path | None,
                port: int | None) -> None:
    """Bowl a season of a 12-bowler league on the simulator and print the standings.

    Exit status 1 if a match was left unsettled or the money does not reconcile.
    """
    from alley_poker.cli.season_demo import run_season

    result = run_season(weeks=weeks, seed=seed, database=database, echo=click.echo,
                        port=port, linger=_until_interrupted)
    if result.unsettled or not result.reconciles:
        raise SystemExit(1)


def _until_interrupted() -> None:
    click.echo("the tablet stays up until you press Ctrl-C")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("stopping")


@league.group("night")
def night() -> None:
    """A league night."""


@night.command("start")
@click.argument("league_id")
@click.option("--date", "night_date", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="The night's date (default: tonight in the league's time zone).")
@click.option("--bowler", "bowlers", multiple=True, metavar="NAME",
              help="A bowler checked in tonight, by name or the name the scorer shows "
                   "(repeat the option for each).")
@click.option("--all", "everyone", is_flag=True, help="Check in every active bowler.")
@click.option("--server", default="http://127.0.0.1:8000", show_default=True,
              envvar="ALLEY_POKER_SERVER", help="The running alley-poker server.")
@click.option("--token", envvar="ALLEY_POKER_TOKEN", required=True,
              help="An API token from the tablet's Tokens page (or ALLEY_POKER_TOKEN).")
def night_start(league_id: str, night_date: Any, bowlers: tuple[str, ...], everyone: bool,
                server: str, token: str) -> None:
    """Check in tonight's bowlers and start every match of LEAGUE_ID's night in one step."""
    if everyone == bool(bowlers):
        raise click.UsageError("name the bowlers here tonight with --bowler, or give --all")
    # Imported here: every alley-poker command, the served ones too, loads this module.
    import httpx

    server = server.rstrip("/")
    try:
        with httpx.Client(base_url=server + "/api/v1", timeout=30,
                          headers={"Authorization": f"Bearer {token}"}) as api:
            roster = _answer(api.get(f"/leagues/{league_id}/bowlers",
                                     params={"include_retired": "true"}))["bowlers"]
            checked_in = ([b["bowler_id"] for b in roster if b["active"]] if everyone
                          else [_roster_id(roster, name) for name in bowlers])
            body: dict[str, Any] = {"checked_in": checked_in}
            if night_date is not None:
                body["night_date"] = date.isoformat(night_date.date())
            started = _answer(api.post(f"/leagues/{league_id}/nights", json=body))
    except httpx.ConnectError:
        raise click.ClickException(f"cannot reach {server} — is `serve` running?") from None
    except httpx.TimeoutException:
        raise click.ClickException(f"{server} did not answer within 30 s — is it the "
                                   "alley-poker server, and is it running?") from None
    except httpx.TransportError as lost:
        raise click.ClickException(f"lost the connection to {server} ({lost}); check on the "
                                   "tablet whether the night started") from None
    click.echo(f"night {started['night_id']} started with {len(checked_in)} bowlers:")
    for match in started["matches"]:
        click.echo(f"  {match['match_id']} on lanes {match['lanes']}: "
                   + ", ".join(match["bowlers"]))


def _roster_id(roster: list[dict[str, Any]], shown: str) -> int:
    wanted = shown.strip().casefold()
    found = [b for b in roster if wanted in (b["name"].casefold(), b["scorer_name"].casefold())]
    if len(found) != 1:
        raise click.BadParameter(
            f"{shown!r} is {'nobody' if not found else 'more than one bowler'} on the roster",
            param_hint="--bowler")
    if not found[0]["active"]:
        raise click.ClickException(f"{found[0]['name']} is retired — reactivate first "
                                   "(on the tablet's roster)")
    return found[0]["bowler_id"]


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.is_success:
        return response.json()
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:200] or response.reason_phrase
    raise click.ClickException(f"the server refused ({response.status_code}): {message}")
