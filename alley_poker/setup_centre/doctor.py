"""The doctor at the setup layer: what is wrong with a centre's set-up, in sentences.

Each check looks at one thing the service needs, as the service's user would find it (the
user of the systemd unit, ``--user``; by default whoever runs the doctor): the configuration
(a feed URL no driver reads is refused as it loads), the commissioner's PIN (and its length),
every feed's device (or device server), the ledger's database (a file that is not one, or
fails ``PRAGMA quick_check``), who else may read the secrets on disk
(:mod:`~alley_poker.setup_centre.file_modes`), whether ``serve`` could listen on its port
(:mod:`~alley_poker.setup_centre.port_holder`), the clock's time zone and the room left for
the nightly backups.  A check returns the problems
it found (sentences naming the thing and what to do); :func:`examine` runs them all.
"""

from __future__ import annotations

import grp
import os
import pwd
import shlex
import shutil
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from alley_poker.setup_centre.file_modes import check_file_modes
from alley_poker.setup_centre.port_holder import address_in_unit, check_port
from alley_poker.setup_centre.writer import UNITS_DIR
from alley_poker.store.database import sqlite_file_of, sqlite_file_problem

#: The unit files give the service user this group too (the serial ports' group).
UNIT_GROUPS = ("dialout",)
#: Free space wanted beside the backups, beyond the copies themselves.
BACKUP_HEADROOM_MB = 200


@dataclass(frozen=True)
class ServiceUser:
    """Who the service runs as: a name, its user id and every group id it has."""

    name: str
    uid: int
    gids: frozenset[int]

    @classmethod
    def named(cls, name: str | None) -> ServiceUser:
        if name is None:
            entry = pwd.getpwuid(os.getuid())
            return cls(entry.pw_name, os.getuid(), frozenset(os.getgroups()) | {os.getgid()})
        entry = pwd.getpwnam(name)  # KeyError: no such user (said by the caller)
        gids = {entry.pw_gid} | {group.gr_gid for group in grp.getgrall()
                                 if name in group.gr_mem or group.gr_name in UNIT_GROUPS}
        return cls(name, entry.pw_uid, frozenset(gids))

    def may(self, path: Path, mode: int) -> bool:
        """Whether this user may ``mode`` (os.R_OK | os.W_OK | os.X_OK) ``path``."""
        if self.uid == os.getuid():
            return os.access(path, mode)
        if self.uid == 0:
            return True
        info = path.stat()
        if info.st_uid == self.uid:
            shift = 6
        elif info.st_gid in self.gids:
            shift = 3
        else:
            shift = 0
        allowed = (info.st_mode >> shift) & 0o7
        wanted = (4 if mode & os.R_OK else 0) | (2 if mode & os.W_OK else 0) | (
            1 if mode & os.X_OK else 0)
        return allowed & wanted == wanted


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines (shell quoting, ``#`` comments), as systemd's EnvironmentFile."""
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        for word in shlex.split(line, comments=True):
            key, sep, value = word.partition("=")
            if sep:
                values[key] = value
    return values


def check_pin(env: Mapping[str, str], *, set_pin: str = "alley-poker set-pin DIR") -> list[str]:
    from alley_poker.serving.centre_servers import PIN_ENV, MissingPin, commissioner_pin
    from alley_poker.setup_centre.writer import NEW_PIN_MIN_LENGTH, PIN_CHECKED_ENV

    try:
        pin = commissioner_pin(env)
    except MissingPin:
        return ["The commissioner's PIN is not set: the tablet cannot be signed in. Run "
                "'alley-poker init' again, or set ALLEY_POKER_COMMISSIONER_PIN (at least "
                f"{NEW_PIN_MIN_LENGTH} characters) in the service's environment file."]
    how = (f"Change it: '{set_pin}' (then restart the service), or a longer "
           f"{PIN_ENV} in the service's environment file.")
    if not pin.startswith("scrypt:"):
        if len(pin) < NEW_PIN_MIN_LENGTH:
            return [f"The commissioner's PIN has only {len(pin)} characters: a guesser gets "
                    f"through that many far sooner than {NEW_PIN_MIN_LENGTH}. {how}"]
        return []
    checked = env.get(PIN_CHECKED_ENV, "")
    if not checked.isdigit() or int(checked) < NEW_PIN_MIN_LENGTH:
        return [f"The commissioner's PIN was set when 4 characters were enough (its hash "
                f"cannot say how long it is). If it has fewer than {NEW_PIN_MIN_LENGTH}, a "
                f"guesser gets through them far sooner. {how}"]
    return []


def check_feeds(config: Any, user: ServiceUser) -> list[str]:
    problems = []
    for feed in config.feeds:
        url = feed.url
        if url.startswith("/"):
            device = Path(url)
            if not device.exists():
                problems.append(f"Feed '{feed.name}': the device {url} is not there. Is the "
                                "scorer's cable plugged in? 'ls /dev/tty*' lists the ports.")
            elif not user.may(device, os.R_OK | os.W_OK):
                problems.append(f"Feed '{feed.name}': {user.name} may not open {url} "
                                f"(ls -l {url}); add {user.name} to the device's group "
                                "(usually dialout).")
        elif url.lower().startswith(("socket://", "rfc2217://")):
            where = urlsplit(url)
            try:
                with socket.create_connection((where.hostname, where.port or 23), timeout=2):
                    pass
            except (OSError, ValueError) as error:
                problems.append(f"Feed '{feed.name}': the device server at {where.hostname}:"
                                f"{where.port} does not answer ({error.strerror or error}). "
                                "Is it powered and on the network?")
    return problems


def check_database(config: Any, user: ServiceUser) -> list[str]:
    url = config.database.url
    path = sqlite_file_of(url)
    if path is None:
        return _check_server_database(url)
    folder = path.parent
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("/"))
    if not folder.exists():
        if not user.may(existing, os.W_OK | os.X_OK):
            return [f"The ledger's folder {folder} does not exist and {user.name} may not "
                    f"create it in {existing}; create it and give it to {user.name} "
                    f"(chown {user.name} {folder})."]
        return []
    if not user.may(folder, os.W_OK | os.X_OK):
        return [f"The ledger's folder {folder} is not writable by {user.name}: the ledger "
                f"cannot be written (chown {user.name} {folder})."]
    if path.exists() and not user.may(path, os.R_OK | os.W_OK):
        return [f"The ledger {path} is not writable by {user.name} (chown {user.name} {path})."]
    problem = sqlite_file_problem(path, check_integrity=True)
    if problem:
        backups = config.backup.folder
        return [f"The ledger {path} {problem}: 'serve' would not start on it. Restore the "
                f"newest copy from {backups} (ls {backups}) in its place, with the service "
                "stopped, or move the file away to start an empty ledger."]
    return []


def _check_server_database(url: str) -> list[str]:
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    shown = make_url(url).render_as_string(hide_password=True)
    engine = sa.create_engine(url, connect_args={"connect_timeout": 5}
                              if make_url(url).get_backend_name() == "postgresql" else {})
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except Exception as error:  # any failure at all: the ledger cannot be reached
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return [f"The ledger's database {shown} cannot be reached: {first}."]
    finally:
        engine.dispose()
    return []


def check_clock(config: Any) -> list[str]:
    if config.centre.time_zone or config.night.timezone:
        return []
    try:
        from tzlocal import get_localzone

        zone = str(get_localzone())
    except Exception as error:  # tzlocal cannot tell: no zone at all
        return [f"This machine's time zone cannot be read ({error}); set centre.time_zone "
                "and night.timezone in the configuration, e.g. \"America/Chicago\"."]
    if zone in ("UTC", "Etc/UTC", "GMT", "Etc/GMT", "Universal", "Zulu"):
        return [f"No time zone is set and this machine's clock is in {zone}: the night would "
                f"close at {config.night.close} {zone}. Set centre.time_zone and night.timezone "
                "in the configuration (e.g. \"America/Chicago\"), or the machine's zone "
                "(timedatectl set-timezone)."]
    return []


def check_backups(config: Any, headroom_mb: int = BACKUP_HEADROOM_MB) -> list[str]:
    if not config.backup.enabled:
        return []
    ledger = sqlite_file_of(config.database.url)
    if ledger is None:
        return []  # PostgreSQL: backed up by its own tools
    folder = Path(config.backup.folder)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("/"))
    size_mb = ledger.stat().st_size / 2**20 if ledger.exists() else 0.0
    wanted_mb = size_mb * (config.backup.keep + 1) + headroom_mb
    free_mb = shutil.disk_usage(existing).free / 2**20
    if free_mb < wanted_mb:
        return [f"Only {free_mb:.0f} MB are free for the backups in {existing}; "
                f"{config.backup.keep} nightly copies of the ledger ({size_mb:.0f} MB) need "
                f"about {wanted_mb:.0f} MB. Free some space, or lower backup.keep."]
    return []


def check_odds(config: Any) -> list[str]:
    if not config.odds.enabled:
        return []
    from alley_poker.odds import compiled

    if compiled.AVAILABLE:
        return []
    return ["The live odds are on, but their compiled engine is not built: they will settle "
            "several times slower (a league night's within seconds, not a second). Install "
            "a C compiler and Python's headers (apt install gcc python3-dev) and reinstall "
            "alley-poker, or set [odds] enabled = false."]


def examine(config_path: Path | None, *, env: Mapping[str, str], user_name: str | None = None,
            backup_headroom_mb: int = BACKUP_HEADROOM_MB, env_file: Path | None = None,
            address: tuple[str, int] | None = None) -> list[str]:
    """Every problem found with the centre's set-up (none: ready to serve).

    ``address`` is the ``(host, port)`` ``serve`` will listen on (default: the one in the
    unit ``init`` wrote beside the configuration, else serve's own default).
    """
    from alley_poker.config import ConfigError, load_config

    try:
        config = load_config(config_path, env=env)
    except ConfigError as problem:
        return [f"The configuration cannot be used: {problem}"]
    except OSError as problem:
        return [f"The configuration cannot be read: {problem}"]
    try:
        user = ServiceUser.named(user_name)
    except KeyError:
        return [f"There is no user {user_name!r} on this machine to run the service as "
                f"(useradd --system {user_name})."]
    centre_dir = config_path.resolve().parent.parent if config_path else None
    problems = check_pin(env, set_pin=f"alley-poker set-pin {centre_dir or 'DIR'}")
    problems += check_feeds(config, user)
    problems += check_database(config, user)
    problems += check_file_modes(config, env_file, config_path)
    problems += check_address(address, centre_dir, config_path, user)
    problems += check_clock(config)
    problems += check_backups(config, backup_headroom_mb)
    problems += check_odds(config)
    return problems


def check_address(address: tuple[str, int] | None, centre_dir: Path | None,
                  config_path: Path | None, user: ServiceUser) -> list[str]:
    if address is None:
        unit = (centre_dir / UNITS_DIR / "alley-poker.service") if centre_dir else Path("-")
        address = address_in_unit(unit)
    host, port = address
    if port < 1024 and user.uid != 0:
        return [f"The service is to listen on port {port}, and only root may take a port "
                "below 1024 (its unit gives it no capabilities): give it a port of 1024 or "
                "more (--port) and put nginx in front."]
    return check_port(host, port, config_file=config_path.resolve() if config_path else None)
