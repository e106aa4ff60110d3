"""The centre configuration: the shipped file loads; broken files name the file, key, problem."""

from __future__ import annotations

import pytest

from alley_poker.config import ConfigError, load_config, load_config_text

GOOD = """
[centre]
name = "Strike Zone"
lanes = 8
[[feeds]]
name = "north"
url = "socket://127.0.0.1:7001"
lanes = [1, 2, 3, 4]
[[feeds]]
name = "south"
url = "loop://"
dialect = "scoresheet"
lanes = [5, 6]
"""


def test_the_shipped_config_loads_and_pairs_lanes():
    config = load_config(env={})
    assert config.centre.lanes >= 2
    assert config.centre.lane_pairs[0] == (1, 2)
    assert all(config.feed_for_lane(lane) for feed in config.feeds for lane in feed.lanes)


def test_lanes_without_a_feed_are_manual_entry_lanes():
    config = load_config_text(GOOD, env={})
    assert config.feed_for_lane(5).dialect == "scoresheet"
    assert config.feed_for_lane(7) is None
    assert config.database.url.startswith("sqlite:///")


def test_environment_overrides_the_database_url():
    config = load_config_text(GOOD, env={"ALLEY_POKER_DATABASE_URL": "postgresql+psycopg://db/x"})
    assert config.database.url == "postgresql+psycopg://db/x"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("lanes = 8", "lanes = 8\nlane_count = 8"), "centre.lane_count: unknown key"),
        (("lanes = 8", "lanes = 'eight'"), "centre.lanes: Input should be a valid integer"),
        (("lanes = [5, 6]", "lanes = [6, 9]"), "feeds[1].lanes: lane 9 is not a lane"),
        (("lanes = [5, 6]", "lanes = [4, 5]"), "feeds[1].lanes: lane 4 is already carried"),
        (('name = "south"', 'name = "north"'), "feeds[1].name: feed name 'north' is used twice"),
        (('url = "loop://"\n', ""), "feeds[1].url: required key is missing"),
        (("[centre]", "[centre\n"), "not valid TOML"),
        (("[centre]", "[backup]\nat = '4am'\n[centre]"),
         "backup.at: '4am' is not a 24-hour time of day"),
        (("[centre]", "[backup]\nat = '24:00'\n[centre]"), "backup.at: '24:00' is not"),
        (("[centre]", "[backup]\nkeep = 0\n[centre]"),
         "backup.keep: Input should be greater than or equal to 1"),
        (("[centre]", "[backup]\nenabled = 'maybe'\n[centre]"),
         "backup.enabled: Input should be a valid boolean"),
        (("[centre]", "[backup]\nretention = 3\n[centre]"), "backup.retention: unknown key"),
        (("[centre]", "[redis]\nurl = 'localhost:6379'\n[centre]"),
         "redis.url: 'localhost:6379' is not a Redis URL"),
        (("[centre]", "[redis]\nhost = 'x'\n[centre]"), "redis.host: unknown key"),
        (("[centre]", "[night]\nclose = '11:30pm'\n[centre]"),
         "night.close: '11:30pm' is not a 24-hour time of day"),
        (("[centre]", "[night]\ntimezone = 'Mars/Base'\n[centre]"),
         "night.timezone: 'Mars/Base' is not a time zone name"),
        (("[centre]", "[night]\nends = '23:00'\n[centre]"), "night.ends: unknown key"),
        (("[centre]", "[odds]\nsettled_points = 0\n[centre]"),
         "odds.settled_points: Input should be greater than or equal to 0.1"),
    ],
)
def test_a_broken_file_names_the_file_the_key_and_the_problem(change, message):
    old, new = change
    with pytest.raises(ConfigError) as excinfo:
        load_config_text(GOOD.replace(old, new, 1), source="league.toml", env={})
    assert str(excinfo.value).startswith("league.toml: ")
    assert message in str(excinfo.value)


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_config(tmp_path / "nope.toml")


def test_backup_and_redis_defaults_when_the_file_leaves_them_out():
    config = load_config_text(GOOD, env={})
    assert (config.backup.enabled, config.backup.folder) == (True, "var/backups")
    assert (config.backup.hour, config.backup.minute, config.backup.keep) == (4, 0, 14)
    assert config.redis.url == ""


def test_the_shipped_file_sets_backup_and_an_in_process_bus():
    config = load_config(env={})
    assert config.backup.at == "04:00" and config.backup.keep == 14
    assert config.redis.url == ""


def test_backup_settings_from_the_file():
    config = load_config_text(
        GOOD + '\n[backup]\nfolder = "/srv/backups"\nat = "23:45"\nkeep = 3\nenabled = false\n',
        env={},
    )
    assert config.backup.folder == "/srv/backups"
    assert (config.backup.hour, config.backup.minute) == (23, 45)
    assert config.backup.keep == 3 and config.backup.enabled is False


def test_the_nights_close_defaults_to_half_past_eleven_local_and_reads_the_file():
    config = load_config_text(GOOD, env={})
    assert (config.night.hour, config.night.minute, config.night.timezone) == (23, 30, "")
    assert config.night.zone() is not None
    night = load_config_text(GOOD + '\n[night]\nclose = "00:15"\ntimezone = "America/Chicago"\n',
                             env={}).night
    assert (night.hour, night.minute, str(night.zone())) == (0, 15, "America/Chicago")


def test_environment_overrides_the_redis_url():
    env = {"ALLEY_POKER_REDIS_URL": "redis://127.0.0.1:6379/0"}
    assert load_config_text(GOOD, env=env).redis.url == "redis://127.0.0.1:6379/0"
    file_says = GOOD + '\n[redis]\nurl = "redis://cache:6379/1"\n'
    assert load_config_text(file_says, env={}).redis.url == "redis://cache:6379/1"
    assert load_config_text(file_says, env=env).redis.url == "redis://127.0.0.1:6379/0"


def test_a_bad_redis_url_from_the_environment_is_named():
    with pytest.raises(ConfigError, match=r"redis\.url: 'cache' is not a Redis URL"):
        load_config_text(GOOD, env={"ALLEY_POKER_REDIS_URL": "cache"})


def test_every_key_and_override_is_documented():
    """docs/configuration.md lists every key of every table and every environment override."""
    from pathlib import Path

    from alley_poker.config import ENV_OVERRIDES, AlleyConfig

    docs = (Path(__file__).resolve().parents[1] / "docs" / "configuration.md").read_text()
    for table, field in AlleyConfig.model_fields.items():
        heading = f"### `[[{table}]]`" if table == "feeds" else f"### `[{table}]`"
        assert heading in docs, f"no section for [{table}]"
        section = docs.split(heading, 1)[1].split("\n### ", 1)[0]
        model = field.annotation.__args__[0] if table == "feeds" else field.annotation
        for key in model.model_fields:
            assert f"| `{key}` |" in section, f"{table}.{key} is not documented"
    for variable in ENV_OVERRIDES:
        assert f"`{variable}`" in docs, f"{variable} is not documented"
