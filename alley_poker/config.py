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
import re
import tomllib
from collections.abc import Mapping
from datetime import tzinfo
from importlib import resources
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from tzlocal import get_localzone
from werkzeug.security import generate_password_hash

from alley_poker.odds.stopping import SETTLED_ERROR
from drivers.feed_urls import is_poll_url, unsupported_feed_url

#: The defaults ship inside the package, so an installed Alley Poker (no checkout) has them;
#: a checkout's ``config/alley.toml`` and ``config/rules/`` files are links to these, not copies.
DEFAULTS_DIR = Path(str(resources.files("alley_poker") / "defaults"))
DEFAULT_CONFIG_PATH = DEFAULTS_DIR / "alley.toml"
#: A centre's own files, relative to the working directory; they win over the shipped ones.
CENTRE_CONFIG_PATH = Path("config") / "alley.toml"
CENTRE_RULES_DIR = Path("config") / "rules"

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
#: The shortest commissioner PIN and session-signing key accepted.
MIN_PIN_LENGTH = 4
MIN_SECRET_KEY_LENGTH = 32


def hash_pin(pin: str) -> str:
    """The scrypt hash of ``pin`` to keep in configuration instead of the PIN itself."""
    if not pin or not pin.strip():
        raise ValueError("the commissioner PIN must not be empty")
    return generate_password_hash(pin, method="scrypt")


def centre_zone(name: str | None) -> tzinfo:
    """The zone called ``name``, or the machine's own zone for None.

    >>> centre_zone("Europe/London").key
    'Europe/London'
    """
    if name:
        return ZoneInfo(name)
    from tzlocal import get_localzone  # only when the file names no zone

    return get_localzone()


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file, key and problem."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CentreConfig(_Strict):
    id: Annotated[str, Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")] = "default"
    name: Annotated[str, Field(min_length=1)]
    lanes: Annotated[int, Field(ge=2, le=200)]
    #: The centre's clock for people (the audit log's times); None: the machine's own zone.
    time_zone: str | None = None

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, name: str | None) -> str | None:
        if name is not None:
            try:
                ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown time zone {name!r}: use a name such as "
                                 "\"Europe/London\" or \"America/Chicago\"") from None
        return name

    @property
    def zone(self) -> tzinfo:
        """The centre's time zone (the machine's when the file names none)."""
        return centre_zone(self.time_zone)

    @property
    def lane_pairs(self) -> list[tuple[int, int]]:
        """Lanes are paired odd-even (1-2, 3-4, ...), as league play uses them."""
        return [(lane, lane + 1) for lane in range(1, self.lanes, 2)]


class DatabaseConfig(_Strict):
    url: Annotated[str, Field(min_length=1)] = "sqlite:///var/alley-poker.sqlite3"


class RulesConfig(_Strict):
    #: A rule book name (``config/rules/<name>.toml`` in the working directory, else one
    #: shipped with Alley Poker) or a path to a TOML file (ending in ``.toml``).
    default: Annotated[str, Field(min_length=1)] = "house-rev-1.2"

    def default_path(self) -> Path:
        """Where the default rule book is read from (see :func:`rule_book_path`)."""
        return rule_book_path(self.default)


def rule_book_path(name: str) -> Path:
    """The file of rule book ``name``: a path as given when it ends in ``.toml``; otherwise the
    centre's ``config/rules/<name>.toml`` if present, else the one shipped in the package.

    >>> rule_book_path("house-rev-1.2").name
    'house-rev-1.2.toml'
    >>> rule_book_path("/srv/league/rules.toml")
    PosixPath('/srv/league/rules.toml')
    """
    if name.endswith(".toml"):
        return Path(name)
    centre_copy = CENTRE_RULES_DIR / f"{name}.toml"
    return centre_copy if centre_copy.is_file() else DEFAULTS_DIR / "rules" / f"{name}.toml"


class FeedConfig(_Strict):
    name: Annotated[str, Field(min_length=1)]
    #: A serial URL or device, or an ``http(s)://`` live-score page to poll (docs/feeds.md).
    url: Annotated[str, Field(min_length=1)]
    #: Default ``apf1`` for a serial feed, ``live-board`` for a page.
    dialect: Annotated[str, Field(min_length=1)] = "apf1"
    lanes: Annotated[list[int], Field(min_length=1)]
    baudrate: Annotated[int, Field(gt=0)] = 9600
    #: A feed silent for longer than this turns amber on the tablet (red at three times it).
    heartbeat_s: Annotated[float, Field(gt=0)] = 10.0
    #: A page feed: seconds between polls, and how long one request may take.
    poll_s: Annotated[float, Field(ge=0.05, le=300)] = 2.0
    timeout_s: Annotated[float, Field(gt=0, le=60)] = 5.0

    @model_validator(mode="before")
    @classmethod
    def _page_dialect_by_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and "dialect" not in data and \
                is_poll_url(str(data.get("url", ""))):
            return {**data, "dialect": "live-board"}
        return data

    @field_validator("url")
    @classmethod
    def _a_url_a_feed_reads(cls, value: str) -> str:
        problem = unsupported_feed_url(value)
        if problem:
            raise ValueError(problem)
        return value

    @property
    def polls_a_page(self) -> bool:
        """True for a live-score page polled over HTTP, False for a serial feed."""
        return is_poll_url(self.url)


_LOCAL_TIME = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")


class BackupConfig(_Strict):
    """The nightly online backup of a SQLite ledger (PostgreSQL is backed up by its own tools)."""

    enabled: bool = True
    #: Where the dated copies go; relative to the working directory, like the database URL.
    folder: Annotated[str, Field(min_length=1)] = "var/backups"
    #: Local time of day, 24-hour ``HH:MM``.
    at: str = "04:00"
    #: How many nightly copies to keep; older ones are deleted after each backup.
    keep: Annotated[int, Field(ge=1, le=3650)] = 14

    @field_validator("at")
    @classmethod
    def _a_time_of_day(cls, value: str) -> str:
        if not _LOCAL_TIME.match(value):
            raise ValueError(f"{value!r} is not a 24-hour time of day like \"04:00\"")
        return value

    @property
    def hour(self) -> int:
        return int(self.at.split(":")[0])

    @property
    def minute(self) -> int:
        return int(self.at.split(":")[1])


class NightConfig(_Strict):
    """The league night's scheduled close: a match still in play then raises an alarm."""

    #: Local time of day, 24-hour ``HH:MM`` (a close after midnight is the next morning's).
    close: str = "23:30"
    #: An IANA time zone such as ``"America/Chicago"``; empty: the machine's local zone.
    timezone: str = ""

    @field_validator("close")
    @classmethod
    def _a_time_of_day(cls, value: str) -> str:
        if not _LOCAL_TIME.match(value):
            raise ValueError(f"{value!r} is not a 24-hour time of day like \"23:30\"")
        return value

    @field_validator("timezone")
    @classmethod
    def _a_time_zone(cls, value: str) -> str:
        if value:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"{value!r} is not a time zone name like "
                                 "\"America/Chicago\" (or leave it empty for the machine's "
                                 "local zone)") from None
        return value

    @property
    def hour(self) -> int:
        return int(self.close.split(":")[0])

    @property
    def minute(self) -> int:
        return int(self.close.split(":")[1])

    def zone(self) -> tzinfo:
        """The zone the close is in: the configured one, else the machine's local zone."""
        return ZoneInfo(self.timezone) if self.timezone else get_localzone()


class RedisConfig(_Strict):
    #: Empty: one process with the in-process bus.  Set it to run web and worker processes apart.
    url: str = ""

    @field_validator("url")
    @classmethod
    def _a_redis_url(cls, value: str) -> str:
        if value and not value.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(
                f"{value!r} is not a Redis URL (redis://, rediss:// or unix://), or leave it empty"
            )
        return value


class OddsConfig(_Strict):
    """The live win odds on the kiosk and the tablet (docs/odds.md): on by default (on a
    24-lane league night, two cores, the first estimate about 0.1 s after a ball and the
    settled odds about 0.3 s after it, at the 95th percentile: docs/performance.md)."""

    enabled: bool = True
    #: Simulated matches once the odds have settled: more is steadier and slower to settle
    #: (docs/odds.md has figures).
    iterations: Annotated[int, Field(ge=20, le=200_000)] = 20_000
    #: Simulated matches of the first estimate, which the screens get at once after a ball
    #: (left out: 2400, or ``iterations`` when that is fewer; a chunk of about a tenth of a
    #: second per process at most, so more runs only when the runs are cheap).
    first_iterations: Annotated[int | None, Field(ge=20, le=200_000)] = None
    #: Processes that compute them, apart from the balls (0: a thread of the web process).
    #: Two: a two-core box's spare core and what the service leaves of its own (they run at
    #: a lower priority than the balls); the league-night figures are measured with two.
    processes: Annotated[int, Field(ge=0, le=16)] = 2
    #: The centre's average game: the ball model every bowler starts from.
    centre_average: Annotated[int, Field(ge=100, le=240)] = 150
    #: The odds settle once every bowler's chance is known to within this many points (one
    #: standard error; ±1.5 points at 3.75 of them).  More settles a busier centre sooner
    #: and less precisely (docs/performance.md: the centre sizes each keeps up with).
    settled_points: Annotated[float, Field(ge=0.1, le=5.0)] = round(SETTLED_ERROR * 100, 6)
    #: A scaled-out centre's worker also hands chunks of runs to ``alley-poker odds-helper``
    #: processes, on any machine that reaches its Redis (docs/deployment.md: when it is
    #: worth it).  Without helpers running, nothing changes; a one-box ``serve`` ignores it.
    shared: bool = False

    @property
    def first_estimate(self) -> int:
        """The first estimate's runs: as set, else 2400 or ``iterations`` when that is fewer.

        >>> OddsConfig(iterations=100).first_estimate, OddsConfig().first_estimate
        (100, 2400)
        """
        if self.first_iterations is None:
            return min(2400, self.iterations)
        return self.first_iterations

    @model_validator(mode="after")
    def _first_estimate_within_the_settled_odds(self) -> OddsConfig:
        if self.first_iterations is not None and self.first_iterations > self.iterations:
            raise ValueError(f"first_iterations ({self.first_iterations}) may not exceed "
                             f"iterations ({self.iterations})")
        return self


class SocketsConfig(_Strict):
    """The ceiling on open Socket.IO connections (kiosks, tablets, phones;
    :mod:`alley_poker.web.socket_ceiling`, docs/deployment.md for why these numbers)."""

    #: Per client address (a paired kiosk and the tablet are not held by it).
    per_address: Annotated[int, Field(ge=1, le=100_000)] = 20
    #: In all, for this server process (the worker's own ceiling, 4,000, stays above it).
    in_all: Annotated[int, Field(ge=1, le=100_000)] = 600
    #: Of ``in_all``, kept for paired kiosks and the commissioner's tablet only.
    kept_for_known_devices: Annotated[int, Field(ge=0, le=100_000)] = 100
    #: Socket.IO's heartbeat (web.sockets): a client that hears no ping for interval +
    #: timeout says "Reconnecting…": a hung server shows within 8 s, not the library's 45
    #: (25 + 20).  Its cost, a ping and a pong per client every 4 s, is in
    #: docs/deployment.md ("A hung server").
    ping_interval_s: Annotated[float, Field(ge=1, le=60)] = 4
    ping_timeout_s: Annotated[float, Field(ge=1, le=60)] = 4

    @model_validator(mode="after")
    def _room_left_for_others(self) -> SocketsConfig:
        if self.kept_for_known_devices >= self.in_all:
            raise ValueError(f"kept_for_known_devices ({self.kept_for_known_devices}) must be "
                             f"less than in_all ({self.in_all})")
        return self


class SignInConfig(_Strict):
    """How many wrong commissioner PINs are answered before a wait (web.sign_in_limits), in
    Flask-Limiter's words ("5 per minute; 10 per 15 minutes")."""

    #: Wrong PINs per device: the more of them, the longer the wait.
    per_device: Annotated[str, Field(min_length=1)] = "5 per minute; 10 per 15 minutes; 20 per day"
    #: Wrong PINs per network address, whatever the device: the cap against brute force.
    per_address: Annotated[str, Field(min_length=1)] = "30 per 10 minutes; 100 per day"
    #: PINs tried centre-wide by devices not known yet (a tablet that signed in before is not
    #: held): the ceiling over many addresses, its wait growing (web.sign_in_ceiling).
    centre_wide: Annotated[str, Field(min_length=1)] = \
        "50 per 10 minutes; 100 per hour; 200 per day"

    @field_validator("per_device", "per_address", "centre_wide")
    @classmethod
    def _limits(cls, value: str) -> str:
        from limits import parse_many

        try:
            parse_many(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate limit like \"5 per minute; 20 per day\"")\
                from None
        return value


class KiosksConfig(_Strict):
    #: Decisions one paired kiosk may send per minute (a bowler taps a few times a frame).
    decisions_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 20
    #: Kiosks one network address may have waiting for pairing at once (web.kiosk_pairing).
    pairing_per_address: Annotated[int, Field(ge=1, le=10_000)] = 4


class PhonesConfig(_Strict):
    #: Per phone link: decisions and reads (page data, live joins) a minute.
    decisions_per_minute: Annotated[int, Field(ge=1, le=10_000)] = 20
    reads_per_minute: Annotated[int, Field(ge=1, le=100_000)] = 120


class CommissionerConfig(_Strict):
    """The commissioner's PIN, kept only as its scrypt hash: a plain ``pin`` (from
    ALLEY_POKER_COMMISSIONER_PIN) is hashed as the configuration is read.

    >>> CommissionerConfig(pin="2468").pin_hash.startswith("scrypt:")
    True
    >>> load_config_text('[centre]\\nname = "X"\\nlanes = 2', source="alley.toml",
    ...                  env={"ALLEY_POKER_COMMISSIONER_PIN": "12"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.config.ConfigError: alley.toml (ALLEY_POKER_COMMISSIONER_PIN): commissioner.pin: \
the commissioner's PIN must have at least 4 characters ...
    """

    #: None: no PIN set (a server refuses to start so: web.server.commissioner_pin_hash).
    pin_hash: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _hash_a_plain_pin(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "pin" not in data:
            return data
        data = dict(data)
        pin = str(data.pop("pin") or "").strip()
        if pin.startswith("scrypt:"):
            return {**data, "pin_hash": pin}  # a hash where the PIN was expected: keep it
        if pin and len(pin) < MIN_PIN_LENGTH:
            raise _KeyProblem("commissioner.pin", "the commissioner's PIN must have at least "
                              f"{MIN_PIN_LENGTH} characters (or set "
                              "ALLEY_POKER_COMMISSIONER_PIN_HASH from 'alley-poker init')")
        return {**data, "pin_hash": hash_pin(pin)} if pin else data

    @field_validator("pin_hash")
    @classmethod
    def _a_scrypt_hash(cls, value: str | None) -> str | None:
        value = (value or "").strip() or None
        if value is not None and not value.startswith("scrypt:"):
            raise ValueError("not a PIN hash from 'alley-poker init' or 'alley-poker set-pin' "
                             "(it starts with \"scrypt:\")")
        return value


class WebConfig(_Strict):
    #: The session-signing key (ALLEY_POKER_SECRET_KEY) every web process of a centre shares;
    #: None: ``serve`` makes its own per start (a tablet then signs in again after a restart).
    secret_key: SecretStr | None = None

    @field_validator("secret_key")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        if len(value.get_secret_value().strip()) < MIN_SECRET_KEY_LENGTH:
            raise ValueError(f"set ALLEY_POKER_SECRET_KEY to the same random value (at least "
                             f"{MIN_SECRET_KEY_LENGTH} characters, e.g. from 'python -c "
                             "\"import secrets; print(secrets.token_hex(32))\"') for every "
                             "web process of the centre")
        return SecretStr(value.get_secret_value().strip())


class AlleyConfig(_Strict):
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
    feeds: list[FeedConfig] = []

    @model_validator(mode="after")
    def _feeds_fit_the_centre(self) -> AlleyConfig:
        seen_names: set[str] = set()
        lane_owner: dict[int, str] = {}
        for index, feed in enumerate(self.feeds):
            where = f"feeds[{index}]"
            if feed.name in seen_names:
                raise _KeyProblem(f"{where}.name", f"feed name {feed.name!r} is used twice")
            seen_names.add(feed.name)
            for lane in feed.lanes:
                if not 1 <= lane <= self.centre.lanes:
                    raise _KeyProblem(
                        f"{where}.lanes",
                        f"lane {lane} is not a lane of this centre (lanes 1-{self.centre.lanes})",
                    )
                if lane in lane_owner:
                    raise _KeyProblem(
                        f"{where}.lanes",
                        f"lane {lane} is already carried by feed {lane_owner[lane]!r}",
                    )
                lane_owner[lane] = feed.name
        return self

    def feed_for_lane(self, lane: int) -> FeedConfig | None:
        """The feed that carries ``lane``, or None for a lane scored by manual entry."""
        return next((feed for feed in self.feeds if lane in feed.lanes), None)


class _KeyProblem(ValueError):
    """Raised inside validators so the key path survives pydantic's wrapping."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def _describe(error: ValidationError, source: str, env: Mapping[str, str]) -> str:
    first = error.errors()[0]
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, _KeyProblem):
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
