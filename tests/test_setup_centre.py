"""``alley-poker init`` writes a centre's set-up; ``alley-poker doctor`` names what is wrong."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

import pytest
import tzlocal
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.config import load_config
from alley_poker.setup_centre.doctor import read_env_file
from alley_poker.web.auth import pin_matches
from tests.ports import free_port

PIN = "482613"


def init(directory: Path, *extra: str, input: str | None = None):
    return CliRunner().invoke(main, ["init", str(directory), "--name", "North Lanes",
                                     "--lanes", "4", "--time-zone", "America/Chicago",
                                     *extra], input=input)


@pytest.fixture(autouse=True)
def _umask_kept():
    """init keeps what it creates private by setting the process's umask: this process's."""
    before = os.umask(0o022)
    os.umask(before)
    yield
    os.umask(before)


def test_init_writes_config_secrets_and_units_asking_for_the_pin_and_feed(tmp_path):
    centre = tmp_path / "north"
    result = init(centre, input=f"{PIN}\n{PIN}\n/dev/ttyUSB0\n")
    assert result.exit_code == 0, result.output
    assert PIN not in result.output  # asked unseen

    config = load_config(centre / "config" / "alley.toml", env={})
    assert (config.centre.name, config.centre.lanes) == ("North Lanes", 4)
    assert [(feed.url, feed.lanes) for feed in config.feeds] == [("/dev/ttyUSB0", [1, 2, 3, 4])]
    assert config.database.url == f"sqlite:///{centre / 'var' / 'alley-poker.sqlite3'}"

    env_file = centre / "alley-poker.env"
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    secrets = read_env_file(env_file)
    assert PIN not in env_file.read_text()
    assert pin_matches(secrets["ALLEY_POKER_COMMISSIONER_PIN_HASH"], PIN)
    assert len(secrets["ALLEY_POKER_SECRET_KEY"]) == 64

    units = {path.name: path.read_text() for path in (centre / "systemd").iterdir()}
    assert set(units) == {"alley-poker.service", "alley-poker-web@.service",
                          "alley-poker-worker.service"}
    assert f"serve --config {centre / 'config' / 'alley.toml'}" in units["alley-poker.service"]
    assert f"EnvironmentFile={env_file}" in units["alley-poker-worker.service"]
    assert "systemd-analyze verify says" not in result.output

    # A second init does not write over the first.
    again = init(centre, "--pin", "999999", "--no-feed")
    assert again.exit_code == 1 and "already exists; give --force" in again.output
    assert pin_matches(read_env_file(env_file)["ALLEY_POKER_COMMISSIONER_PIN_HASH"], PIN)


@pytest.mark.parametrize(("extra", "said"), [
    (["--pin", "4826"], "PIN must have at least 6 characters"),
    (["--pin", PIN, "--feed", "1-9=/dev/ttyUSB0"], "lane 5 is not a lane of this centre"),
    (["--pin", PIN, "--feed", "/dev/ttyUSB0"], "give it as LANES=URL"),
    (["--pin", PIN, "--no-feed", "--time-zone", "Mars/Olympus"], "Mars/Olympus"),
])
def test_init_refuses_what_cannot_make_a_centre_and_writes_nothing(tmp_path, extra, said):
    result = CliRunner().invoke(main, ["init", str(tmp_path / "c"), "--name", "N",
                                       "--lanes", "4", *extra])
    assert result.exit_code != 0
    assert said in result.output and "Traceback" not in result.output
    assert not (tmp_path / "c").exists()


# -- doctor ------------------------------------------------------------------------------

def break_pin(centre: Path) -> list[str]:
    env_file = centre / "alley-poker.env"
    env_file.write_text("\n".join(line for line in env_file.read_text().splitlines()
                                  if "PIN" not in line))
    return []


def set_feed(url: str):
    def breaking(centre: Path) -> list[str]:
        config = centre / "config" / "alley.toml"
        config.write_text(config.read_text() + f'[[feeds]]\nname = "scorer"\nurl = "{url}"\n'
                          "lanes = [1, 2, 3, 4]\n")
        return []
    return breaking


def unreadable_device(centre: Path) -> list[str]:
    device = centre / "ttyS-fake"
    device.write_text("")
    device.chmod(0o600)
    set_feed(str(device))(centre)
    # Only the device is out of the user's reach: the data folder is given to nobody.
    if os.geteuid() != 0:
        pytest.skip("giving the data folder to nobody needs root")
    os.chown(centre / "var", pwd.getpwnam("nobody").pw_uid, -1)
    return ["--user", "nobody"]


def ledger_folder_not_ours(centre: Path) -> list[str]:
    return ["--user", "nobody"]  # init made var/ 0700, its (root's or the tester's) only


def no_time_zone(centre: Path) -> list[str]:
    config = centre / "config" / "alley.toml"
    config.write_text(config.read_text().replace('time_zone = "America/Chicago"\n', "")
                      .replace('timezone = "America/Chicago"', 'timezone = ""'))
    return []


def broken_config(centre: Path) -> list[str]:
    config = centre / "config" / "alley.toml"
    config.write_text(config.read_text().replace("lanes = 4", "lanes = 1"))
    return []


CASES = {
    "pin unset": (break_pin, "The commissioner's PIN is not set"),
    "feed device missing": (set_feed("/dev/ttyUSB-not-plugged"),
                            "the device /dev/ttyUSB-not-plugged is not there"),
    "feed device not readable by the service user": (unreadable_device,
                                                     "nobody may not open"),
    "device server silent": (set_feed(f"socket://127.0.0.1:{free_port()}"),
                             "does not answer"),
    "database not writable": (ledger_folder_not_ours, "is not writable by nobody"),
    "clock in UTC, no zone set": (no_time_zone, "this machine's clock is in UTC"),
    "config broken": (broken_config, "centre.lanes"),
    "no such service user": (lambda centre: ["--user", "no-such-user-here"],
                             "There is no user 'no-such-user-here'"),
}


@pytest.fixture(name="centre")
def centre_fixture(tmp_path, monkeypatch) -> Path:
    """A centre fresh from init (its own port: the doctor checks serve could listen on it)."""
    monkeypatch.setenv("TZ", "UTC")
    tzlocal.reload_localzone()
    for key in list(os.environ):
        if key.startswith("ALLEY_POKER_"):
            monkeypatch.delenv(key)
    directory = tmp_path / "north"
    assert init(directory, "--pin", PIN, "--no-feed", "--port", str(free_port())).exit_code == 0
    yield directory
    monkeypatch.undo()
    tzlocal.reload_localzone()


def doctor(centre: Path, *extra: str):
    return CliRunner().invoke(main, ["doctor", "--config",
                                     str(centre / "config" / "alley.toml"), *extra])


def test_doctor_finds_nothing_wrong_with_a_fresh_centre(centre):
    result = doctor(centre)
    assert result.exit_code == 0, result.output
    assert "looks right" in result.output


@pytest.mark.parametrize("case", list(CASES))
def test_doctor_names_each_broken_set_up(centre, case):
    breaking, said = CASES[case]
    extra = breaking(centre)
    result = doctor(centre, *extra)
    assert result.exit_code == 1, result.output
    assert said in result.output, result.output
    assert "Traceback" not in result.output
    assert result.output.count("\n- ") + result.output.startswith("- ") == 1, result.output


def test_doctor_says_when_the_backups_have_no_room(centre):
    from alley_poker.setup_centre.doctor import examine

    env = read_env_file(centre / "alley-poker.env")
    problems = examine(centre / "config" / "alley.toml", env=env,
                       backup_headroom_mb=10**12)
    assert len(problems) == 1 and "are free for the backups" in problems[0], problems


def test_doctor_says_when_the_odds_would_run_without_their_compiled_engine(centre, monkeypatch):
    from alley_poker.odds import compiled
    from alley_poker.setup_centre.doctor import examine

    env = read_env_file(centre / "alley-poker.env")
    monkeypatch.setattr(compiled, "AVAILABLE", False)
    problems = examine(centre / "config" / "alley.toml", env=env)
    assert len(problems) == 1 and "compiled engine is not built" in problems[0], problems
    config = centre / "config" / "alley.toml"
    assert "[odds]" not in config.read_text()  # the defaults' odds: on
    config.write_text(config.read_text() + "\n[odds]\nenabled = false\n")
    assert examine(config, env=env) == []
