"""``alley-poker verify``: re-run a match from its inputs and check every card against its seed."""

from __future__ import annotations

import json
from pathlib import Path

import click

from alley_poker.cli.ledger_database import export_of, with_database
from alley_poker.cli.root import main


@main.command()
@click.argument("source")
@with_database
def verify(source: str, config_path: Path | None, database_url: str | None) -> None:
    """Verify a match: SOURCE is an export file (JSON) or a match id in the database.

    Checks the revealed seed against the commitment, recomputes every shuffle and courtesy
    draw, and replays the events; prints OK, or the first event that disagrees (exit 1).
    """
    from alley_poker.verifier.verify import verify_export

    path = Path(source)
    if path.suffix == ".json" or path.is_file():
        try:
            export_data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot read the export {source}: {exc}") from exc
    else:
        export_data = export_of(source, config_path, database_url)
    verdict = verify_export(export_data)
    click.echo(str(verdict))
    if not verdict.ok:
        raise SystemExit(1)
