"""The backup at the command-line layer: ``alley-poker backup`` takes tonight's copy now.

The nightly job's copy of the SQLite ledger, by hand (:mod:`alley_poker.service.backup`)."""

from __future__ import annotations

from pathlib import Path

import click

from alley_poker.cli.root import main
from alley_poker.cli.served_process import keep_new_files_private


@main.command()
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="The centre's configuration (default: config/alley.toml).")
@click.option("--redo", is_flag=True, help="Replace today's copy if there is one already.")
def backup(config_path: Path | None, redo: bool) -> None:
    """Copy the ledger into the backup folder now, keeping the newest backup.keep copies.

    Safe while the service runs (SQLite's online backup).  Run it as the service's user
    (sudo -u alley ...): the copies are readable by their owner only.
    """
    keep_new_files_private()
    from alley_poker.config import ConfigError, load_config
    from alley_poker.service.backup import BackupNotPossible, backup_now

    try:
        config = load_config(config_path)
        _refuse_to_run_as_another_owner(config.database.url)
        result = backup_now(config.database.url, config.backup.folder, config.backup.keep,
                            redo=redo)
    except (ConfigError, BackupNotPossible, OSError) as problem:
        raise click.ClickException(str(problem)) from None
    if result.created:
        click.echo(f"copied the ledger to {result.path}")
    else:
        click.echo(f"{result.path} is there already (--redo replaces it)")
    for deleted in result.deleted:
        click.echo(f"deleted {deleted} (keeping the newest {config.backup.keep})")


def _refuse_to_run_as_another_owner(database_url: str) -> None:
    """Reading a WAL ledger leaves ``-wal``/``-shm`` files behind owned by the reader: root's
    would lock the service's user out of its own ledger."""
    import os

    from alley_poker.store.database import sqlite_file_of

    ledger = sqlite_file_of(database_url)
    if ledger is None or not ledger.exists() or os.geteuid() != 0:
        return
    owner = ledger.stat().st_uid
    if owner != 0:
        import pwd

        try:
            name = pwd.getpwuid(owner).pw_name
        except KeyError:  # a user id without a name: sudo takes '#UID'
            name = f"'#{owner}'"
        raise click.ClickException(f"run the backup as the ledger's owner, not root: "
                                   f"sudo -u {name} alley-poker backup ...")
