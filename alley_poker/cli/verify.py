"""Verifying at the command-line layer: ``alley-poker verify`` re-runs an export, card by card.

It re-runs a match from its inputs and checks every card against its seed, through
:mod:`alley_poker.verifier.verify`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from alley_poker.cli.ledger_database import export_of, side_export_of, with_database
from alley_poker.cli.root import main


@main.command()
@click.argument("source")
@with_database
def verify(source: str, config_path: Path | None, database_url: str | None) -> None:
    """Verify a match or a bracket night: SOURCE is an export file (JSON), a match id or a
    league night's id (its side games) in the database.

    A match: checks the revealed seed against the commitment, recomputes every shuffle and
    courtesy draw, and replays the events; prints OK, or the first event that disagrees
    (exit 1).  A bracket night: re-does its draw from the revealed seed and checks every
    payment and the money to the cent; prints OK or what does not hold (exit 1).
    """
    from alley_poker.verifier.side_night import is_side_export, verify_side_export
    from alley_poker.verifier.verify import verify_export

    path = Path(source)
    if path.suffix == ".json" or path.is_file():
        try:
            export_data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot read the export {source}: {exc}") from exc
    else:
        export_data = (side_export_of(source, config_path, database_url)
                       or export_of(source, config_path, database_url))
    verdict = (verify_side_export(export_data) if is_side_export(export_data)
               else verify_export(export_data))
    click.echo(str(verdict))
    if not verdict.ok:
        raise SystemExit(1)
