"""Which ledger database ``export``, ``verify`` and ``audit verify`` read: the options, the opening.

Checking a deal and the log needs no server: these commands read the database (or an export
file) directly.  See docs/fairness.md.
"""

from __future__ import annotations

from pathlib import Path

import click

_DATABASE_OPTIONS = [
    click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
                 default=None, help="The centre's configuration (its database and centre)."),
    click.option("--database", "database_url", default=None,
                 help="A database URL instead of the configuration's."),
]


def with_database(command):
    """Give ``command`` the ``--config`` and ``--database`` options."""
    for option in reversed(_DATABASE_OPTIONS):
        command = option(command)
    return command


def database_of(config_path: Path | None, database_url: str | None) -> tuple[str, str]:
    """``(database URL, centre)``: ``--database`` beats the configuration's; with no
    readable configuration, ``--database`` alone serves (centre ``default``)."""
    from alley_poker.config import ConfigError, load_config

    try:
        config = load_config(config_path)
    except ConfigError as exc:
        if database_url is None:
            raise click.ClickException(str(exc)) from exc
        return database_url, "default"
    return database_url or config.database.url, config.centre.id


def export_of(match_id: str, config_path: Path | None, database_url: str | None) -> dict:
    """Match ``match_id``'s export, read from the database."""
    from alley_poker.centre import open_ledger_service
    from alley_poker.service.fair_export import ExportRefused, match_export
    from alley_poker.store.event_store import StoreError

    url, centre = database_of(config_path, database_url)
    try:
        service = open_ledger_service(url, centre)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        return match_export(service, match_id)
    except ExportRefused as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        service.repository.store.close()


def side_export_of(night_id: str, config_path: Path | None,
                   database_url: str | None) -> dict | None:
    """The export of night ``night_id``'s side games, or None when it has none."""
    from alley_poker.centre import open_ledger_service
    from alley_poker.service.side_export import side_night_export
    from alley_poker.service.side_nights import SideNightError, SideNights
    from alley_poker.store.event_store import StoreError

    url, centre = database_of(config_path, database_url)
    try:
        service = open_ledger_service(url, centre)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    side = SideNights(service)
    try:
        return side_night_export(side, night_id)
    except SideNightError:
        return None
    finally:
        side.close()
        service.repository.store.close()
