"""``alley-poker verify``, ``alley-poker export`` and ``alley-poker audit verify``.

Checking a deal and the log needs no server: these read the database (or an export file)
directly.  See docs/fairness.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

_database_options = [
    click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
                 default=None, help="The centre's configuration (its database and centre)."),
    click.option("--database", "database_url", default=None,
                 help="A database URL instead of the configuration's."),
]


def _with_database(command):
    for option in reversed(_database_options):
        command = option(command)
    return command


def _database(config_path: Path | None, database_url: str | None) -> tuple[str, str]:
    from alley_poker.config import ConfigError, load_config

    try:
        config = load_config(config_path)
    except ConfigError as exc:
        if database_url is None:
            raise click.ClickException(str(exc)) from exc
        return database_url, "default"
    return database_url or config.database.url, config.centre.id


def _export_of(match_id: str, config_path: Path | None, database_url: str | None) -> dict:
    from alley_poker.service import open_service
    from alley_poker.service.fair_export import ExportRefused, match_export
    from alley_poker.store.event_store import StoreError

    url, centre = _database(config_path, database_url)
    try:
        service = open_service(url, centre=centre)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        return match_export(service, match_id)
    except ExportRefused as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        service.repository.store.close()


@click.command()
@click.argument("match_id")
@_with_database
@click.option("-o", "--output", type=click.File("w", encoding="utf-8"), default="-",
              help="Write the export here (default: standard output).")
def export(match_id: str, config_path: Path | None, database_url: str | None, output) -> None:
    """Export settled or void match MATCH_ID as JSON (its log, seed and chain head)."""
    json.dump(_export_of(match_id, config_path, database_url), output, ensure_ascii=False,
              indent=1)
    output.write("\n")


@click.command()
@click.argument("source")
@_with_database
def verify(source: str, config_path: Path | None, database_url: str | None) -> None:
    """Verify a match: SOURCE is an export file (JSON) or a match id in the database.

    Checks the revealed seed against the commitment, recomputes every shuffle and courtesy
    draw, and replays the events; prints OK, or the first event that disagrees (exit 1).
    """
    from alley_poker.fairness.verify import verify_export

    path = Path(source)
    if path.suffix == ".json" or path.is_file():
        try:
            export_data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"cannot read the export {source}: {exc}") from exc
    else:
        export_data = _export_of(source, config_path, database_url)
    verdict = verify_export(export_data)
    click.echo(str(verdict))
    if not verdict.ok:
        raise SystemExit(1)


@click.group()
def audit() -> None:
    """Check the stored event log."""


@audit.command("verify")
@_with_database
@click.option("--centre", default=None, help="Only this centre's matches (default: every one).")
@click.option("--head", "heads", multiple=True, metavar="MATCH=HASH",
              help="A chain head from a paper copy (settlement view, night sheet) to pin.")
def audit_verify(config_path: Path | None, database_url: str | None, centre: str | None,
                 heads: tuple[str, ...]) -> None:
    """Walk the hash chain of every match; name the first event edited, deleted, inserted
    or reordered (exit 1), or print each match's chain head."""
    from alley_poker.store.chain import audit as walk
    from alley_poker.store.event_store import EventStore, StoreError

    pinned = {}
    for text in heads:
        match_id, _, digest = text.partition("=")
        if not match_id or len(digest) != 64:
            raise click.BadParameter(f"{text!r} is not MATCH=<64 hex digits>", param_hint="--head")
        pinned[match_id] = digest.lower()
    url, _ = _database(config_path, database_url)
    try:
        with EventStore.open(url) as store:
            report = walk(store.engine, centre=centre)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    if report.started_at is not None:
        click.echo(f"chain started {report.started_at:%Y-%m-%d %H:%M} UTC; the "
                   f"{report.sealed_events} events stored before were sealed as found then")
    failed = [str(found) for found in report.breaks]
    for (match_centre, match_id), head in sorted(report.heads.items()):
        if match_id in pinned and pinned[match_id] != head:
            failed.append(f"match {match_id}: the chain head is {head}, not the pinned "
                          f"{pinned[match_id]} (events after the paper copy were changed, "
                          "added or removed)")
        else:
            click.echo(f"{match_centre}/{match_id}: OK, head {head}")
    for problem in failed:
        click.echo(f"BROKEN: {problem}")
    click.echo(f"{report.matches} matches, {report.events} events: "
               + ("the chain holds" if not failed else f"{len(failed)} broken"))
    if failed:
        raise SystemExit(1)


COMMANDS = (export, verify, audit)
