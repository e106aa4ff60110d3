"""``doctor``'s look at who may read the centre's secrets on disk.

The ledger (and its ``-wal``, ``-shm``, lock file and snapshots) and every backup hold the deal
seeds of matches in play; the environment file holds the PIN's hash and the key that signs
the tablet's session.  None of them may be readable by anyone but their owner (0600), nor
their folders be open to other users (0700, or 0750 to the service's group).  A centre set
up before ``init`` and ``serve`` created them so (or copied with ``cp`` and a loose umask)
is told which files and what to run.
"""

from __future__ import annotations

import shlex
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from alley_poker.store.database import sqlite_file_of

#: The bits a secret file must not have (any access for the group or other users).
_SECRET_FILE_BITS = 0o077
#: The bits a secret folder must not have (any access for other users).
_SECRET_FOLDER_BITS = 0o007


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _too_open(paths: Iterable[Path], bits: int) -> list[Path]:
    return [path for path in paths if path.exists() and _mode(path) & bits]


def _listed(paths: list[Path]) -> str:
    return ", ".join(f"{path} ({_mode(path):04o})" for path in paths)


def _command(mode: str, paths: list[Path]) -> str:
    return f"chmod {mode} " + " ".join(shlex.quote(str(path)) for path in paths)


def ledger_files(ledger: Path) -> list[Path]:
    """The ledger and what SQLite and the store keep beside it."""
    beside = [Path(f"{ledger}{suffix}") for suffix in ("-wal", "-shm", "-journal",
                                                        "-open.lock")]
    snapshots = Path(f"{ledger}.snapshots")
    kept = sorted(snapshots.iterdir()) if snapshots.is_dir() else []
    return [ledger, *beside, *kept]


def _has_a_password(url: str) -> bool:
    return bool(url) and urlsplit(url).password is not None


def check_file_modes(config: Any, env_file: Path | None,
                     config_file: Path | None = None) -> list[str]:
    """Every secret file or folder other users may read, with the ``chmod`` that closes it.

    The configuration is a secret only when a URL in it carries a password (the environment
    file is the place for those)."""
    problems = []
    redis_url = getattr(getattr(config, "redis", None), "url", "")
    if config_file is not None and config_file.is_file() and \
            (_has_a_password(config.database.url) or _has_a_password(redis_url)) and \
            _mode(config_file) & _SECRET_FOLDER_BITS:
        problems.append(
            f"Other users of this machine may read {config_file} ({_mode(config_file):04o}), "
            "which holds a database or Redis password. Run "
            f"'{_command('640', [config_file])}' (with the service's user's group: chgrp), "
            "or move the URL into the service's environment file.")
    ledger = sqlite_file_of(config.database.url)
    if ledger is not None:
        files = _too_open(ledger_files(ledger), _SECRET_FILE_BITS)
        if files:
            problems.append(
                f"Other users of this machine may read the ledger's files, which hold the "
                f"deal seeds of matches in play: {_listed(files)}. Run "
                f"'{_command('600', files)}' (the service makes new ones 0600).")
        folders = [ledger.parent, Path(f"{ledger}.snapshots")]
        if config.backup.enabled:
            folders.append(Path(config.backup.folder))
        open_folders = _too_open(folders, _SECRET_FOLDER_BITS)
        if open_folders:
            problems.append(
                f"Other users of this machine may look into the ledger's folders: "
                f"{_listed(open_folders)}. Run '{_command('700', open_folders)}'.")
    backups = Path(config.backup.folder)
    if ledger is not None and backups.is_dir():
        copies = _too_open(sorted(path for path in backups.iterdir() if path.is_file()),
                           _SECRET_FILE_BITS)
        if copies:
            problems.append(
                f"Other users of this machine may read {len(copies)} backup(s) of the ledger "
                f"in {backups} (e.g. {_listed(copies[:1])}). Run "
                f"'chmod 600 {shlex.quote(str(backups))}/*'.")
    if env_file is not None and _too_open([env_file], _SECRET_FILE_BITS):
        problems.append(
            f"Other users of this machine may read {env_file} ({_mode(env_file):04o}), which "
            f"holds the PIN's hash and the tablet's session key. Run "
            f"'{_command('600', [env_file])}' (systemd reads it as root).")
    return problems
