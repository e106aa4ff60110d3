"""What ``doctor`` sees that ``serve`` would trip on, what ``init`` refuses or warns about, the
PIN ``set-pin`` changes, and the sandbox of the units ``init`` writes."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.setup_centre.doctor import read_env_file
from alley_poker.web.auth import pin_matches
from tests.conftest import skip_or_fail
from tests.test_setup_centre import (  # noqa: F401  (fixtures)
    _umask_kept,
    centre_fixture,
    doctor,
    init,
)

LEDGER = Path("var") / "alley-poker.sqlite3"


def a_ledger(centre: Path, *, rows: int = 1) -> Path:
    path = centre / LEDGER
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
        db.executemany("INSERT INTO t VALUES (?)", [("x" * 200,)] * rows)
    db.close()
    path.chmod(0o600)
    return path


def ledger_readable_by_all(centre: Path) -> list[str]:
    a_ledger(centre).chmod(0o644)
    return []


def ledger_of_garbage(centre: Path) -> list[str]:
    path = centre / LEDGER
    path.write_bytes(b"this is not a database, just garbage " * 200)
    path.chmod(0o600)
    return []


def ledger_with_a_torn_page(centre: Path) -> list[str]:
    path = a_ledger(centre, rows=500)
    with path.open("r+b") as file:  # page 3 of 4 KB pages, in the table's b-tree
        file.seek(2 * 4096)
        file.write(b"\xff" * 4096)
    return []


def backups_readable_by_all(centre: Path) -> list[str]:
    copy = centre / "var" / "backups" / "ledger-2026-11-21.sqlite3"
    copy.write_bytes(b"")
    copy.chmod(0o644)
    return []


def env_file_readable_by_all(centre: Path) -> list[str]:
    (centre / "alley-poker.env").chmod(0o644)
    return []


def a_password_in_a_config_all_may_read(centre: Path) -> list[str]:
    config = centre / "config" / "alley.toml"
    config.write_text(config.read_text() + '[redis]\nurl = "redis://:s3cret@10.0.0.6:6379/0"\n')
    config.chmod(0o644)
    return []


def a_four_digit_pin(centre: Path) -> list[str]:
    env_file = centre / "alley-poker.env"
    env_file.write_text(env_file.read_text() + "ALLEY_POKER_COMMISSIONER_PIN=4826\n")
    return []


def a_hash_from_before_six_digits(centre: Path) -> list[str]:
    env_file = centre / "alley-poker.env"
    env_file.write_text("\n".join(line for line in env_file.read_text().splitlines()
                                  if "MIN_LENGTH" not in line))
    return []


def a_feed_no_driver_reads(centre: Path) -> list[str]:
    config = centre / "config" / "alley.toml"
    config.write_text(config.read_text() + '[[feeds]]\nname = "scorer"\nurl = "ftp://x"\n'
                      "lanes = [1, 2, 3, 4]\n")
    return []


HELD: list[socket.socket] = []


def port_already_taken(centre: Path) -> list[str]:
    unit = (centre / "systemd" / "alley-poker.service").read_text()
    port = int(re.search(r"--port (\d+)", unit).group(1))
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("0.0.0.0", port))
    holder.listen()
    HELD.append(holder)
    return []


@pytest.fixture(autouse=True)
def _release_held_ports():
    yield
    while HELD:
        HELD.pop().close()


CASES: dict[str, tuple[Callable[[Path], list[str]], list[str]]] = {
    "ledger readable by all": (ledger_readable_by_all,
                               ["may read the ledger's files", "(0644)", "chmod 600 ",
                                str(LEDGER)]),
    "ledger not a database": (ledger_of_garbage, ["is not a SQLite database",
                                                  "'serve' would not start", "backups"]),
    "ledger failing its check": (ledger_with_a_torn_page, ["fails its integrity check"]),
    "backups readable by all": (backups_readable_by_all,
                                ["1 backup(s)", "chmod 600 ", "/backups/*"]),
    "env file readable by all": (env_file_readable_by_all,
                                 ["alley-poker.env (0644)", "chmod 600"]),
    "a password in a config all may read": (a_password_in_a_config_all_may_read,
                                            ["alley.toml (0644)", "Redis password",
                                             "chmod 640 "]),
    "a 4-digit PIN": (a_four_digit_pin, ["PIN has only 4 characters", "alley-poker set-pin "]),
    "a PIN set under the 4-character rule": (a_hash_from_before_six_digits,
                                             ["set when 4 characters were enough",
                                              "alley-poker set-pin "]),
    "feed ftp://x": (a_feed_no_driver_reads, ["no feed reads ftp://", "socket", "rfc2217",
                                              "http"]),
    "port already taken": (port_already_taken, ["is taken by process", str(os.getpid()),
                                                "Connection in use"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_doctor_sees_what_serve_would_trip_on_and_what_leaves_secrets_open(centre, case):
    breaking, said = CASES[case]
    result = doctor(centre, *breaking(centre))
    assert result.exit_code == 1, result.output
    assert result.output.count("\n- ") + result.output.startswith("- ") == 1, result.output
    for words in said:
        assert words in result.output, (words, result.output)
    assert "Traceback" not in result.output


def test_doctor_leaves_no_wal_files_behind_for_root_to_own(centre):
    """A read-only look at a WAL ledger nobody has open would leave -wal/-shm files owned by
    the doctor's user (root) that the service's user could not write."""
    path = a_ledger(centre)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
    db.close()
    assert doctor(centre).exit_code == 0
    assert sorted(p.name for p in path.parent.iterdir()) == ["alley-poker.sqlite3", "backups"]


@pytest.mark.parametrize(("extra", "said"), [
    (["--feed", "1-4=ftp://x"], "no feed reads ftp://"),
    (["--feed", "1-4=gopher://scorer:70"], "no feed reads gopher://"),
    (["--pin", "12345"], "PIN must have at least 6 characters"),
])
def test_init_refuses_a_feed_no_driver_reads_and_a_short_pin(tmp_path, extra, said):
    result = CliRunner().invoke(main, ["init", str(tmp_path / "c"), "--name", "N",
                                       "--lanes", "4", "--pin", "135790", *extra])
    assert result.exit_code != 0
    assert said in result.output and "Traceback" not in result.output
    assert not (tmp_path / "c").exists()


def test_init_warns_when_the_service_would_run_as_root(tmp_path):
    result = init(tmp_path / "c", "--pin", "135790", "--no-feed", "--user", "root")
    assert result.exit_code == 0, result.output
    assert "WARNING: --user root: the service would run as root" in result.output
    assert "useradd --system alley" in result.output
    quiet = init(tmp_path / "d", "--pin", "135790", "--no-feed", "--user", "nobody")
    assert "WARNING: --user root" not in quiet.output


def test_set_pin_changes_the_pin_and_keeps_the_session_key(centre):
    env_file = centre / "alley-poker.env"
    before = read_env_file(env_file)
    short = CliRunner().invoke(main, ["set-pin", str(centre), "--pin", "1234"])
    assert short.exit_code != 0 and "at least 6 characters" in short.output
    result = CliRunner().invoke(main, ["set-pin", str(centre)], input="97531086\n97531086\n")
    assert result.exit_code == 0, result.output
    after = read_env_file(env_file)
    assert pin_matches(after["ALLEY_POKER_COMMISSIONER_PIN_HASH"], "97531086")
    assert not pin_matches(after["ALLEY_POKER_COMMISSIONER_PIN_HASH"], "482613")
    assert after["ALLEY_POKER_SECRET_KEY"] == before["ALLEY_POKER_SECRET_KEY"]
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    assert "97531086" not in env_file.read_text()
    # A PIN set under the old rule is told to change; once changed, the doctor is content.
    a_hash_from_before_six_digits(centre)
    assert "set when 4 characters were enough" in doctor(centre).output
    CliRunner().invoke(main, ["set-pin", str(centre), "--pin", "24681357"])
    assert doctor(centre).exit_code == 0


#: The rating systemd-analyze gives the units: "OK" (exposure below 5.0, the scale's second
#: step after "PERFECT"... "OK" < "MEDIUM" < "EXPOSED" < "UNSAFE"); init's units are ≈ 1.5.
GOOD_ENOUGH_EXPOSURE = 2.0


def test_the_units_are_rated_ok_by_systemd_analyze_security(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        skip_or_fail("systemd-analyze is not installed (scripts/install-system-deps)")
    result = init(tmp_path / "c", "--pin", "135790", "--no-feed")
    assert result.exit_code == 0, result.output
    for unit in sorted((tmp_path / "c" / "systemd").iterdir()):
        rated = subprocess.run([analyze, "security", "--offline=true", "--no-pager", str(unit)],
                               capture_output=True, text=True, timeout=60)
        found = re.search(r"Overall exposure level for \S+: (\d+\.\d) (\w+)", rated.stdout)
        assert found, rated.stdout + rated.stderr
        exposure, rating = float(found.group(1)), found.group(2)
        print(f"{unit.name}: {exposure} {rating}")
        assert rating in ("OK", "PERFECT") and exposure <= GOOD_ENOUGH_EXPOSURE, rated.stdout
