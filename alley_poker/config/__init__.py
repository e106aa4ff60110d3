"""The centre's configuration: ``config/alley.toml`` validated, plus environment overrides.

Everything a centre sets up once lives here: its lanes and lane pairs, each scoreboard feed
(serial URL, dialect, which lanes it carries), the database, the default rule book.  A broken
file is refused at start-up with the file, the key and the problem named:

>>> load_config_text('''
... [centre]
... name = "Demo Lanes"
... lanes = 4
... [[feeds]]
... name = "main"
... url = "loop://"
... lanes = [1, 2, 5]
... ''', source="alley.toml")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
alley_poker.config.ConfigError: alley.toml: feeds[0].lanes: lane 5 is not a lane of this ...
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, model_validator

from alley_poker.config.screen_sections import (
    CommissionerConfig,
    KiosksConfig,
    PhonesConfig,
    SignInConfig,
    SocketsConfig,
    WebConfig,
)
from alley_poker.config.sections import (
    CENTRE_CONFIG_PATH,
    DEFAULT_CONFIG_PATH,
    BackupConfig,
    CentreConfig,
    DatabaseConfig,
    FeedConfig,
    KeyProblem,
    NightConfig,
    OddsConfig,
    RedisConfig,
    RulesConfig,
    Section,
)

#: Environment variables that override a key of the file (deployment sets these).
ENV_OVERRIDES = {
    "ALLEY_POKER_DATABASE_URL": ("database", "url"),
    "ALLEY_POKER_CENTRE": ("centre", "id"),
    "ALLEY_POKER_REDIS_URL": ("redis", "url"),
    # Secrets: in the environment (or the service's environment file), never in alley.toml.
    "ALLEY_POKER_COMMISSIONER_PIN": ("commissioner", "pin"),
    "ALLEY_POKER_COMMISSIONER_PIN_HASH": ("commissioner", "pin_hash"),
    "ALLEY_POKER_SECRET_KEY": ("web", "secret_key"),
    # Set in the environment before these were keys of the file; they still are.
    "ALLEY_POKER_SIGN_IN_RATE_LIMIT": ("sign_in", "per_device"),
    "ALLEY_POKER_SIGN_IN_ADDRESS_LIMIT": ("sign_in", "per_address"),
    "ALLEY_POKER_SIGN_IN_CENTRE_LIMIT": ("sign_in", "centre_wide"),
    "ALLEY_POKER_KIOSK_PAIRING_PER_ADDRESS": ("kiosks", "pairing_per_address"),
    "ALLEY_POKER_SOCKETIO_PING_INTERVAL": ("sockets", "ping_interval_s"),
    "ALLEY_POKER_SOCKETIO_PING_TIMEOUT": ("sockets", "ping_timeout_s"),
}
class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file, key and problem."""


class AlleyConfig(Section):
    """The one configuration object: every section of alley.toml, read and checked once."""

    centre: CentreConfig
    database: DatabaseConfig = DatabaseConfig()
    rules: RulesConfig = RulesConfig()
    backup: BackupConfig = BackupConfig()
    night: NightConfig = NightConfig()
    redis: RedisConfig = RedisConfig()
    odds: OddsConfig = OddsConfig()
    sockets: SocketsConfig = SocketsConfig()
    sign_in: SignInConfig = SignInConfig()
    kiosks: KiosksConfig = KiosksConfig()
    phones: PhonesConfig = PhonesConfig()
    commissioner: CommissionerConfig = CommissionerConfig()
    web: WebConfig = WebConfig()
    feeds: list[FeedConfig] = Field(default_factory=list)

    @model_validator(mode="after")
    def _feeds_fit_the_centre(self) -> AlleyConfig:
        seen_names: set[str] = set()
        lane_owner: dict[int, str] = {}
        for index, feed in enumerate(self.feeds):
            where = f"feeds[{index}]"
            if feed.name in seen_names:
                raise KeyProblem(f"{where}.name", f"feed name {feed.name!r} is used twice")
            seen_names.add(feed.name)
            for lane in feed.lanes:
                if not 1 <= lane <= self.centre.lanes:
                    raise KeyProblem(
                        f"{where}.lanes",
                        f"lane {lane} is not a lane of this centre (lanes 1-{self.centre.lanes})",
                    )
                if lane in lane_owner:
                    raise KeyProblem(
                        f"{where}.lanes",
                        f"lane {lane} is already carried by feed {lane_owner[lane]!r}",
                    )
                lane_owner[lane] = feed.name
        return self

    def feed_for_lane(self, lane: int) -> FeedConfig | None:
        """The feed that carries ``lane``, or None for a lane scored by manual entry."""
        return next((feed for feed in self.feeds if lane in feed.lanes), None)


def _describe(error: ValidationError, source: str, env: Mapping[str, str]) -> str:
    first = error.errors()[0]
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, KeyProblem):
        return f"{source}{_from_env(cause.key, env)}: {cause.key}: {cause.problem}"
    key = ".".join(
        f"[{part}]" if isinstance(part, int) else str(part) for part in first["loc"]
    ).replace(".[", "[")
    message = first["msg"]
    if first["type"] == "value_error":
        message = message.removeprefix("Value error, ")
    elif first["type"] == "extra_forbidden":
        message = "unknown key (check the spelling; see config/alley.toml for every key)"
    elif first["type"] == "missing":
        message = "required key is missing"
    return f"{source}{_from_env(key, env)}: {key or '(top level)'}: {message}"


def _from_env(key: str, env: Mapping[str, str]) -> str:
    """`` (ALLEY_POKER_…)`` when the environment set ``key``: the file is not to blame."""
    for variable, path in ENV_OVERRIDES.items():
        if env.get(variable) and key == ".".join(path):
            return f" ({variable})"
    return ""


def _apply_env(data: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    merged = {section: dict(values) if isinstance(values, dict) else values
              for section, values in data.items()}
    for variable, (section, key) in ENV_OVERRIDES.items():
        if env.get(variable):
            target = merged.setdefault(section, {})
            if isinstance(target, dict):
                target[key] = env[variable]
    return merged


def load_config_text(
    text: str, *, source: str = "<config>", env: Mapping[str, str] | None = None
) -> AlleyConfig:
    """Parse and validate configuration TOML; ``env`` overrides keys (see ENV_OVERRIDES)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    env = os.environ if env is None else env
    data = _apply_env(data, env)
    try:
        return AlleyConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source, env)) from None


def default_config_path() -> Path:
    """``config/alley.toml`` in the working directory if there is one, else the shipped one."""
    return CENTRE_CONFIG_PATH if CENTRE_CONFIG_PATH.is_file() else DEFAULT_CONFIG_PATH


def load_config(path: str | os.PathLike[str] | None = None,
                *, env: Mapping[str, str] | None = None) -> AlleyConfig:
    """Load ``path`` (default: :func:`default_config_path`) with environment overrides."""
    config_path = Path(path) if path is not None else default_config_path()
    try:
        text = config_path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{config_path}: cannot read the file: {exc.strerror}") from None
    return load_config_text(text, source=str(config_path), env=env)
