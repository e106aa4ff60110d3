"""``alley-poker scenario run``: a Bowling Poker scenario (JSON Lines) run in memory."""

from __future__ import annotations

import click

from alley_poker.cli.root import main


@main.group()
def scenario() -> None:
    """Bowling Poker scenarios (JSON Lines scripts of a match, run in memory)."""


@scenario.command("run")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as one JSON object.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the shuffles.")
def scenario_run(file, as_json: bool, seed: int) -> None:
    """Run scenario FILE and print the final state (exit status 2 on a bad line)."""
    from alley_poker.scenario.cli import run_file

    raise SystemExit(run_file(file, as_json=as_json, seed=seed))
