"""Who may read each file ``init`` writes, settled as the file is created (never chmod after).

- ``alley-poker.env`` (the PIN's hash, the session key): 0600, whoever ran ``init`` (root:
  systemd reads it before it starts the service);
- ``config/alley.toml`` 0640 and ``config/`` 0750: whoever ran ``init``, in the service user's
  group (the service reads them);
- ``var/`` and ``var/backups/`` (the ledger, its WAL, the backups): 0700, the service user's
  (it writes them);
- the centre's folder, when ``init`` makes it: 0755 (the service's user goes through it);
- ``systemd/*.service`` 0644 (no secret in them; they are copied to /etc/systemd/system).

The service user's ownership is given only when ``init`` runs as root and the user exists;
otherwise :func:`ownership_notes` says what to run.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path

SECRET_FILE_MODE = 0o600
CENTRE_FOLDER_MODE = 0o755
CONFIG_FILE_MODE = 0o640
CONFIG_FOLDER_MODE = 0o750
DATA_FOLDER_MODE = 0o700
UNIT_FILE_MODE = 0o644
UNITS_FOLDER_MODE = 0o755


@dataclass(frozen=True)
class ServiceOwner:
    """The service user's ids, when ``init`` can give it files (root, and the user exists)."""

    name: str
    uid: int
    gid: int

    @classmethod
    def for_user(cls, name: str) -> ServiceOwner | None:
        if os.geteuid() != 0:
            return None
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            return None
        return cls(name, entry.pw_uid, entry.pw_gid)


def write_file(path: Path, text: str, mode: int, *, group: int | None = None) -> None:
    """``text`` into ``path`` with ``mode`` from the moment it exists (an existing file, with
    ``--force``, is set to ``mode`` before it is written); ``group`` its group when given."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        os.fchmod(descriptor, mode)
        if group is not None:
            os.fchown(descriptor, -1, group)
        out.write(text)


def make_folder(path: Path, mode: int, *, uid: int = -1, gid: int = -1) -> None:
    """``path`` with ``mode`` (a folder already there is set to it), owned as given."""
    path.mkdir(mode=mode, parents=True, exist_ok=True)
    path.chmod(mode)
    if uid != -1 or gid != -1:
        os.chown(path, uid, gid)


def ownership_notes(user: str, directory: Path, data_folder: Path, config_file: Path,
                    owner: ServiceOwner | None) -> list[str]:
    """What ``init`` could not do about who owns what, as commands to run."""
    if owner is not None or user == _current_user():
        return []
    return [f"{user} must own {data_folder} and read {config_file}: once the user exists "
            f"(useradd --system {user}), run 'chown -R {user}: {data_folder}' and "
            f"'chgrp {user} {config_file.parent} {config_file}' as root"]


def _current_user() -> str:
    return pwd.getpwuid(os.geteuid()).pw_name
