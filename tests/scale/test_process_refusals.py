"""``alley-poker web`` and ``worker`` refuse a setup they cannot run, naming what to set."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from tests.scale.conftest import SECRET_KEY, write_config

BASE_ENV = {"ALLEY_POKER_COMMISSIONER_PIN": "2468", "ALLEY_POKER_SECRET_KEY": SECRET_KEY,
            "ALLEY_POKER_REDIS_URL": "redis://127.0.0.1:6379/0",
            "ALLEY_POKER_DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:5432/test"}


@pytest.mark.parametrize("command", ["web", "worker"])
def test_the_embedded_sqlite_ledger_is_one_process_only(command, tmp_path):
    config = write_config(tmp_path / "alley.toml", centre="north")
    env = {**BASE_ENV, "ALLEY_POKER_DATABASE_URL": f"sqlite:///{tmp_path / 'ledger.sqlite3'}"}
    result = CliRunner().invoke(main, [command, "--config", str(config)], env=env)
    assert result.exit_code == 1
    assert "to a postgresql+psycopg:// URL (got sqlite)" in result.output
    assert "'alley-poker serve'" in result.output
    assert not (tmp_path / "ledger.sqlite3").exists()


@pytest.mark.parametrize("command", ["web", "worker"])
def test_no_redis_url_is_refused(command, tmp_path):
    config = write_config(tmp_path / "alley.toml", centre="north")
    result = CliRunner().invoke(main, [command, "--config", str(config)],
                                env={**BASE_ENV, "ALLEY_POKER_REDIS_URL": ""})
    assert result.exit_code == 1
    assert "set redis.url (ALLEY_POKER_REDIS_URL)" in result.output


def test_web_processes_need_one_shared_secret_key(tmp_path):
    config = write_config(tmp_path / "alley.toml", centre="north")
    result = CliRunner().invoke(main, ["web", "--config", str(config)],
                                env={**BASE_ENV, "ALLEY_POKER_SECRET_KEY": "short"})
    assert result.exit_code == 1
    assert "set ALLEY_POKER_SECRET_KEY to the same random value" in result.output
