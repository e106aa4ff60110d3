"""``alley-poker export``: a settled or void match as JSON (its log, seed and chain head)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from alley_poker.cli.ledger_database import export_of, with_database
from alley_poker.cli.root import main


@main.command()
@click.argument("match_id")
@with_database
@click.option("-o", "--output", type=click.File("w", encoding="utf-8"), default="-",
              help="Write the export here (default: standard output).")
def export(match_id: str, config_path: Path | None, database_url: str | None, output) -> None:
    """Export settled or void match MATCH_ID as JSON (its log, seed and chain head)."""
    json.dump(export_of(match_id, config_path, database_url), output, ensure_ascii=False,
              indent=1)
    output.write("\n")
