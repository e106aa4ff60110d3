"""The ``alley-poker scenario run`` command's body (the click wiring is in ``alley_poker.cli``)."""

from __future__ import annotations

import json
from typing import TextIO

import click

from alley_poker.scenario.output import to_json, to_text
from alley_poker.scenario.runner import run_scenario

EXIT_BAD_LINE = 2


def run_file(file: TextIO, *, as_json: bool, seed: int) -> int:
    """Run a scenario file, print the state, and return the exit status (2 on a bad line)."""
    run = run_scenario(file, seed=seed)
    if as_json:
        click.echo(json.dumps(to_json(run), indent=1))
    else:
        click.echo(to_text(run))
    if run.error is not None:
        click.echo(f"{getattr(file, 'name', 'scenario')}: {run.error}", err=True)
        return EXIT_BAD_LINE
    return 0
