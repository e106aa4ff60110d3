"""The audit at the command-line layer: ``alley-poker audit verify`` walks the hash chain.

It walks the stored log's hash chain match by match (:mod:`alley_poker.store.chain`); the
audit log itself is :mod:`alley_poker.service.audit`."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.ledger_database import database_of, with_database
from alley_poker.cli.root import main


@main.group()
def audit() -> None:
    """Check the stored event log."""


@audit.command("verify")
@with_database
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
    url, _ = database_of(config_path, database_url)
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
