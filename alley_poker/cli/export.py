"""``alley-poker export``: a settled or void match as JSON (its log, seed and chain head), or a
league night's side games (its brackets' and pots' log)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from alley_poker.cli.ledger_database import export_of, side_export_of, with_database
from alley_poker.cli.root import main


@main.command()
@click.argument("match_id")
@with_database
@click.option("-o", "--output", type=click.File("w", encoding="utf-8"), default="-",
              help="Write the export here (default: standard output).")
def export(match_id: str, config_path: Path | None, database_url: str | None, output) -> None:
    """Export settled or void match MATCH_ID as JSON (its log, seed and chain head); given a
    league night's id (``tue-2026-11-24``) with side games, that night's side-game log."""
    found = (side_export_of(match_id, config_path, database_url)
             or export_of(match_id, config_path, database_url))
    json.dump(found, output, ensure_ascii=False, indent=1)
    output.write("\n")
