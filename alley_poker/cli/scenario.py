"""``alley-poker scenario run``: a Bowling Poker scenario (JSON Lines) run in memory."""

from __future__ import annotations

import json

import click

from alley_poker.cli.root import main

#: The exit status of a scenario that stopped at a line it could not run.
EXIT_BAD_LINE = 2


@main.group()
def scenario() -> None:
    """Bowling Poker scenarios (JSON Lines scripts of a match, run in memory)."""


@scenario.command("run")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as one JSON object.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the shuffles.")
def scenario_run(file, as_json: bool, seed: int) -> None:
    """Run scenario FILE and print the final state (exit status 2 on a bad line)."""
    from alley_poker.scenario.output import to_json, to_text
    from alley_poker.scenario.runner import run_scenario

    run = run_scenario(file, seed=seed)
    click.echo(json.dumps(to_json(run), indent=1) if as_json else to_text(run))
    if run.error is not None:
        click.echo(f"{getattr(file, 'name', 'scenario')}: {run.error}", err=True)
        raise SystemExit(EXIT_BAD_LINE)
