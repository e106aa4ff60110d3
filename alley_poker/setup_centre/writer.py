"""``alley-poker init DIR``: a centre's set-up written in one go.

What it writes under ``DIR`` (nothing is written unless everything given is valid, and nothing
already there is overwritten without ``--force``):

- ``config/alley.toml``: the centre's name, id, lanes and time zone, its feeds, and a SQLite
  ledger and backup folder under ``DIR/var``;
- ``alley-poker.env`` (mode 0600, owner only; systemd reads it as root before starting the
  service as its user): the commissioner's PIN as a scrypt hash
  (``ALLEY_POKER_COMMISSIONER_PIN_HASH``; the PIN itself is never written), and a random
  ``ALLEY_POKER_SECRET_KEY``;
- ``systemd/``: ``alley-poker.service`` for one box, and ``alley-poker-web@.service`` with
  ``alley-poker-worker.service`` for a scaled-out centre (docs/deployment.md);
- ``var/`` for the ledger and its backups.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from alley_poker.config import AlleyConfig, ConfigError, load_config_text
from alley_poker.setup_centre.private_files import (
    CENTRE_FOLDER_MODE,
    CONFIG_FILE_MODE,
    CONFIG_FOLDER_MODE,
    DATA_FOLDER_MODE,
    SECRET_FILE_MODE,
    UNIT_FILE_MODE,
    UNITS_FOLDER_MODE,
    ServiceOwner,
    make_folder,
    ownership_notes,
    write_file,
)
from alley_poker.setup_centre.unit_hardening import hardening_lines

ENV_FILE = "alley-poker.env"
CONFIG_FILE = Path("config") / "alley.toml"
UNITS_DIR = "systemd"
#: The one folder the service writes: the ledger, its WAL and the backups.
DATA_DIR = "var"
PIN_HASH_ENV = "ALLEY_POKER_COMMISSIONER_PIN_HASH"
#: A new PIN has at least this many characters (``init``, ``set-pin``).  ``serve`` still
#: accepts the 4 of earlier set-ups (``MIN_PIN_LENGTH``); ``doctor`` says to change them.
NEW_PIN_MIN_LENGTH = 6
#: Written beside the PIN's hash: the length its PIN was checked against (the hash cannot say).
PIN_CHECKED_ENV = "ALLEY_POKER_COMMISSIONER_PIN_MIN_LENGTH"
#: The port the worker's metrics are served on (``worker --metrics-port``).
WORKER_METRICS_PORT = 9464

_LANES = re.compile(r"^(\d+)(?:-(\d+))?$")


class SetupError(ValueError):
    """What was given cannot make a centre; the message says what to change."""


@dataclass
class FeedChoice:
    """One scoreboard feed: its URL and the lanes it carries."""

    url: str
    lanes: list[int]
    name: str = ""

    @classmethod
    def parse(cls, text: str) -> FeedChoice:
        """``LANES=URL``, e.g. ``1-12=/dev/ttyUSB0`` or ``13-24=socket://10.0.0.20:4001``.

        >>> FeedChoice.parse("1-4=socket://10.0.0.20:4001")
        FeedChoice(url='socket://10.0.0.20:4001', lanes=[1, 2, 3, 4], name='lanes-1-4')
        >>> FeedChoice.parse("/dev/ttyUSB0")
        Traceback (most recent call last):
        ...
        alley_poker.setup_centre.writer.SetupError: feed '/dev/ttyUSB0': give it as LANES=URL, \
e.g. 1-12=/dev/ttyUSB0
        """
        lanes, sep, url = text.partition("=")
        if not sep or not url.strip():
            raise SetupError(f"feed {text!r}: give it as LANES=URL, e.g. 1-12=/dev/ttyUSB0")
        numbers = parse_lanes(lanes.strip(), what=f"feed {text!r}")
        return cls(url.strip(), numbers, f"lanes-{numbers[0]}-{numbers[-1]}")


def parse_lanes(text: str, *, what: str) -> list[int]:
    """``"1-12"`` or ``"5"`` as the lanes it names."""
    found = _LANES.match(text)
    if not found:
        raise SetupError(f"{what}: lanes {text!r} should look like 1-12")
    first, last = int(found.group(1)), int(found.group(2) or found.group(1))
    if first < 1 or last < first or last > 200:
        raise SetupError(f"{what}: lanes {text!r} should run upwards from 1 (at most 200)")
    return list(range(first, last + 1))


@dataclass
class CentreChoices:
    """Everything ``init`` asks for."""

    name: str
    lanes: int
    pin: str
    centre_id: str = "default"
    feeds: list[FeedChoice] = field(default_factory=list)
    time_zone: str = ""
    user: str = "alley"
    port: int = 8000
    host: str = "0.0.0.0"


@dataclass
class Written:
    directory: Path
    config: Path
    env_file: Path
    units: list[Path]
    #: What the person setting up should know or do (said by ``init``).
    notes: list[str] = field(default_factory=list)


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_text(choices: CentreChoices, directory: Path) -> str:
    var = directory / DATA_DIR
    lines = [
        "# Written by 'alley-poker init'; every key is explained in docs/configuration.md.",
        "", "[centre]", f"id = {_toml_string(choices.centre_id)}",
        f"name = {_toml_string(choices.name)}", f"lanes = {choices.lanes}",
    ]
    if choices.time_zone:
        lines.append(f"time_zone = {_toml_string(choices.time_zone)}")
    lines += ["", "[database]",
              f"url = {_toml_string('sqlite:///' + str(var / 'alley-poker.sqlite3'))}",
              "", "[backup]", "enabled = true", f"folder = {_toml_string(str(var / 'backups'))}",
              'at = "04:00"', "keep = 14", "", "[night]", 'close = "23:30"',
              f"timezone = {_toml_string(choices.time_zone)}", ""]
    for feed in choices.feeds:
        lines += ["[[feeds]]", f"name = {_toml_string(feed.name)}",
                  f"url = {_toml_string(feed.url)}",
                  f"lanes = [{', '.join(str(lane) for lane in feed.lanes)}]", ""]
    if not choices.feeds:
        lines += ["# No feed: every lane is scored by manual entry until one is added", ""]
    return "\n".join(lines)


def env_text(pin_hash: str, secret_key: str) -> str:
    return "\n".join([
        "# Secrets of this centre, read by systemd (EnvironmentFile=) before the service starts.",
        "# Readable by its owner only (0600).  The PIN is kept as its scrypt hash.",
        f"{PIN_HASH_ENV}={shlex.quote(pin_hash)}",
        _PIN_COMMENT,
        f"{PIN_CHECKED_ENV}={NEW_PIN_MIN_LENGTH}",
        f"ALLEY_POKER_SECRET_KEY={secret_key}",
        "# Scaled out (alley-poker web + worker): PostgreSQL and Redis, and the centre's id.",
        "# ALLEY_POKER_DATABASE_URL=postgresql+psycopg://alley:PASSWORD@db-host/alley",
        "# ALLEY_POKER_REDIS_URL=redis://redis-host:6379/0",
        "", ""])


def alley_poker_command() -> str:
    """How systemd runs this Alley Poker: the ``alley-poker`` script beside this Python."""
    script = Path(sys.executable).with_name("alley-poker")
    if script.exists():
        return str(script)
    return f"{sys.executable} -m alley_poker.cli"


def unit_texts(choices: CentreChoices, directory: Path, command: str) -> dict[str, str]:
    config = directory / CONFIG_FILE
    env_file = directory / ENV_FILE
    service = [
        "User=" + choices.user, f"WorkingDirectory={directory}", f"EnvironmentFile={env_file}",
        "Restart=always", "RestartSec=1",
        "# Every kiosk, tablet and phone is an open socket.", "LimitNOFILE=65536",
        "# and about four threads: room for the [sockets] ceiling (600 by default) and the",
        "# request threads; raise it with [sockets] in_all (docs/deployment.md).",
        "TasksMax=8192",
    ]

    def sandbox(*, serial_ports: bool) -> list[str]:
        return hardening_lines(directory, directory / DATA_DIR, serial_ports=serial_ports,
                               program=Path(command.split()[0]))

    unit = ["After=network-online.target", "Wants=network-online.target"]
    install = ["", "[Install]", "WantedBy=multi-user.target", ""]
    return {
        "alley-poker.service": "\n".join([
            "[Unit]", f"Description=Alley Poker: {choices.name} (one box)", *unit, "",
            "[Service]", *service,
            f"ExecStart={command} serve --config {config} --host {choices.host} "
            f"--port {choices.port}",
            *sandbox(serial_ports=True), *install]),
        "alley-poker-web@.service": "\n".join([
            "[Unit]", f"Description=Alley Poker: {choices.name} web process on port %i",
            *unit, "", "[Service]", *service,
            f"ExecStart={command} web --config {config} --host 127.0.0.1 --port %i",
            *sandbox(serial_ports=False), *install]),
        "alley-poker-worker.service": "\n".join([
            "[Unit]", f"Description=Alley Poker: {choices.name} worker (feeds and jobs)",
            *unit, "", "[Service]", *service,
            f"ExecStart={command} worker --config {config} "
            f"--metrics-port {WORKER_METRICS_PORT}",
            *sandbox(serial_ports=True), *install]),
    }


def validate(choices: CentreChoices, directory: Path) -> AlleyConfig:
    """The configuration ``choices`` make, checked as ``serve`` would check it (and a new PIN
    as long as a new one must be)."""
    if len(choices.pin.strip()) < NEW_PIN_MIN_LENGTH:
        raise SetupError(pin_too_short())
    try:
        return load_config_text(config_text(choices, directory), source="the centre", env={})
    except ConfigError as problem:
        raise SetupError(str(problem).removeprefix("the centre: ")) from None


def pin_too_short() -> str:
    return (f"the commissioner's PIN must have at least {NEW_PIN_MIN_LENGTH} characters "
            f"(digits are fine: {NEW_PIN_MIN_LENGTH} of them)")


def warnings_about(choices: CentreChoices) -> list[str]:
    """What ``init`` writes but would not advise."""
    if choices.user == "root":
        return ["--user root: the service would run as root, so whoever took over its web "
                "process would own the machine, and the sandbox of its unit could not hold "
                "it. Create a user of its own (useradd --system alley) and give --user alley."]
    return []


def write_centre(choices: CentreChoices, directory: Path, *, force: bool = False,
                 command: str | None = None) -> Written:
    """Write the centre's set-up under ``directory`` (module docstring; who may read what:
    :mod:`alley_poker.setup_centre.private_files`)."""
    from alley_poker.web.auth import hash_pin

    directory = directory.expanduser().resolve()
    validate(choices, directory)
    config = directory / CONFIG_FILE
    env_file = directory / ENV_FILE
    data = directory / DATA_DIR
    units = unit_texts(choices, directory, command or alley_poker_command())
    targets = [config, env_file, *(directory / UNITS_DIR / name for name in units)]
    existing = [path for path in targets if path.exists()]
    if existing and not force:
        raise SetupError(f"{existing[0]} already exists; give --force to write over it")
    owner = ServiceOwner.for_user(choices.user)
    # The service's user goes through it to its configuration and data: 0755 when made here.
    for missing in reversed([folder for folder in (directory, *directory.parents)
                             if not folder.exists()]):
        make_folder(missing, CENTRE_FOLDER_MODE)
    for folder in (data, data / "backups"):
        make_folder(folder, DATA_FOLDER_MODE, uid=owner.uid if owner else -1,
                    gid=owner.gid if owner else -1)
    make_folder(config.parent, CONFIG_FOLDER_MODE, gid=owner.gid if owner else -1)
    write_file(config, config_text(choices, directory), CONFIG_FILE_MODE,
               group=owner.gid if owner else None)
    env_file.unlink(missing_ok=True)
    descriptor = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SECRET_FILE_MODE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(env_text(hash_pin(choices.pin.strip()), secrets.token_hex(32)))
    written_units = []
    make_folder(directory / UNITS_DIR, UNITS_FOLDER_MODE)
    for name, text in units.items():
        path = directory / UNITS_DIR / name
        write_file(path, text, UNIT_FILE_MODE)
        written_units.append(path)
    notes = warnings_about(choices) + ownership_notes(choices.user, directory, data, config,
                                                      owner)
    return Written(directory, config, env_file, written_units, notes)


_PIN_COMMENT = "# The PIN had at least this many characters ('alley-poker doctor' reads it)."


def replace_pin(env_file: Path, pin: str) -> None:
    """Put a new commissioner's PIN (its hash) into the environment file ``init`` wrote,
    keeping everything else in it (the session key: signed-in tablets stay signed in).  The
    file is replaced whole, 0600 and its owner's as before."""
    from alley_poker.serving.centre_servers import PIN_ENV
    from alley_poker.web.auth import hash_pin

    if len(pin.strip()) < NEW_PIN_MIN_LENGTH:
        raise SetupError(pin_too_short())
    old_pin = (f"{PIN_HASH_ENV}=", f"{PIN_CHECKED_ENV}=", f"{PIN_ENV}=", _PIN_COMMENT)
    kept = [line for line in env_file.read_text(encoding="utf-8").splitlines()
            if not line.strip().startswith(old_pin)]
    kept += [f"{PIN_HASH_ENV}={shlex.quote(hash_pin(pin.strip()))}", _PIN_COMMENT,
             f"{PIN_CHECKED_ENV}={NEW_PIN_MIN_LENGTH}", ""]
    was = env_file.stat()
    fresh = env_file.with_name(f".{env_file.name}.new")
    fresh.unlink(missing_ok=True)
    descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, SECRET_FILE_MODE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        if os.geteuid() == 0:
            os.fchown(descriptor, was.st_uid, was.st_gid)
        out.write("\n".join(kept))
    os.replace(fresh, env_file)


def verify_units(units: Sequence[Path]) -> str | None:
    """``systemd-analyze verify`` on the units, where it is installed: None when it has nothing
    to say (or is not there), else what it said."""
    import shutil
    import subprocess

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return None
    # A template (web@) is verified as one of its instances.
    checked = []
    for unit in units:
        if unit.name.endswith("@.service"):
            instance = unit.with_name(unit.name.replace("@.service", "@8001.service"))
            instance.write_text(unit.read_text(encoding="utf-8"), encoding="utf-8")
            checked.append(instance)
        else:
            checked.append(unit)
    try:
        result = subprocess.run([analyze, "verify", *map(str, checked)], capture_output=True,
                                text=True, timeout=60)
    finally:
        for unit in checked:
            if unit not in units:
                unit.unlink(missing_ok=True)
    said = "\n".join(line for line in (result.stdout + result.stderr).splitlines()
                     if line.strip() and "Failed to open /dev/" not in line)
    if result.returncode == 0:
        return said or None
    return said or f"exit status {result.returncode}"
