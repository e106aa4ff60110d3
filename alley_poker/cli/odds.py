"""``alley-poker odds calibrate``: how honest the live odds are on the centre's own matches.
docs/odds.md, "Is it honest?" (the same report on a generated centre's matches is research:
``python -m benchmarks.odds_correction``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from alley_poker.cli.root import main


@main.group()
def odds() -> None:
    """The live win odds."""


@odds.command("calibrate")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (its database and centre).")
@click.option("--database", "database_url", default=None,
              help="A database URL instead of the configuration's.")
@click.option("--iterations", type=click.IntRange(10, 100_000), default=1000,
              show_default=True, help="Runs of the simulation per prediction.")
@click.option("--frames", default="0,3,6,9", show_default=True,
              help="Predict before frame 1 (0) and after these frames of each game.")
@click.option("--processes", type=click.IntRange(1, 16), default=1, show_default=True)
@click.option("--knowledge", type=click.Choice(["earlier-nights", "other-nights"]),
              default="earlier-nights", show_default=True,
              help="Predict each night from the earlier nights only (as the live odds know "
                   "them) or from every other night.")
@click.option("--learn-nights", type=click.IntRange(1, 500), default=8, show_default=True,
              help="Judge the correction on nights with at least this many before them.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def calibrate(config_path: Path | None, database_url: str | None, iterations: int,
              frames: str, processes: int, knowledge: str, learn_nights: int,
              as_json: bool) -> None:
    """Predict every settled match at chosen points from each bowler's other nights
    (by default the earlier ones only), and print how often each predicted chance came
    true (reliability per bin, Wilson 95% intervals) and the Brier score against the naive
    1/n: as the model predicts, and corrected as the live odds correct it, each night by
    the correction its earlier nights fit (never by itself)."""
    from alley_poker.odds.calibration import Report, held_out_predictions
    from alley_poker.odds.correction import before_and_after

    try:
        points = tuple(sorted({int(part) for part in frames.split(",") if part.strip()}))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if not points or not all(0 <= p <= 9 for p in points):
        raise click.BadParameter("frames are 0-9, e.g. 0,3,6,9", param_hint="--frames")
    matches, source = _stored_matches(config_path, database_url)
    click.echo(f"{len(matches)} matches from {source}; {iterations} runs a prediction",
               err=True)
    if not matches:
        raise click.ClickException("no settled match to judge")

    def progress(done: int, total: int) -> None:
        click.echo(f"  date {done}/{total}", err=True)

    predictions = held_out_predictions(matches, iterations=iterations, frames=points,
                                       processes=processes, progress=progress,
                                       rolling=knowledge == "earlier-nights")
    if not predictions:
        raise click.ClickException("no prediction could be made (no match reached a point)")
    report = Report.of(predictions)
    judged = before_and_after(predictions, learn_nights=learn_nights)
    if as_json:
        json.dump({"source": source, "iterations": iterations, "knowledge": knowledge,
                   **report.as_json(),
                   "correction": None if judged is None else judged.as_json()},
                  sys.stdout, indent=1)
        click.echo()
        return
    click.echo(f"Every night ({knowledge.replace('-', ' ')} known):\n")
    click.echo(report.markdown())
    click.echo()
    if judged is None:
        click.echo(f"The correction is not judged: no night has {learn_nights} nights before "
                   f"it (the live odds are corrected by little or nothing yet).")
    else:
        click.echo(judged.markdown())


def _stored_matches(config_path: Path | None, database_url: str | None):
    """The centre's matches with a result, from its event store."""
    from alley_poker.cli.ledger_database import database_of
    from alley_poker.service.odds_history import played_matches
    from alley_poker.store.event_store import EventStore, StoreError

    url, centre = database_of(config_path, database_url)
    try:
        with EventStore.open(url, centre=centre) as store:
            matches = played_matches(store, skipped=lambda match_id, exc: click.echo(
                f"  skipping {match_id}: {exc}", err=True))
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    return matches, f"the centre '{centre}' at {url}"
