"""The tables of ``alley.toml`` that set up the centre itself, one typed, frozen section each:
the centre and its lanes, the database, the rule book, the feeds, the nightly backup, the
night's close, Redis and the odds (:mod:`alley_poker.config.screen_sections` holds the screens'
and sign-in's).  :class:`alley_poker.config.AlleyConfig` gathers them."""

from __future__ import annotations

import re
from datetime import tzinfo
from importlib import resources
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from tzlocal import get_localzone

from alley_poker.odds.stopping import SETTLED_ERROR
from drivers.feed_urls import is_poll_url, unsupported_feed_url

#: The defaults ship inside the package, so an installed Alley Poker (no checkout) has them;
#: a checkout's ``config/alley.toml`` and ``config/rules/`` files are links to these, not copies.
DEFAULTS_DIR = Path(str(resources.files("alley_poker") / "defaults"))
DEFAULT_CONFIG_PATH = DEFAULTS_DIR / "alley.toml"
#: A centre's own files, relative to the working directory; they win over the shipped ones.
CENTRE_CONFIG_PATH = Path("config") / "alley.toml"
CENTRE_RULES_DIR = Path("config") / "rules"


def centre_zone(name: str | None) -> tzinfo:
    """The zone called ``name``, or the machine's own zone for None.

    >>> centre_zone("Europe/London").key
    'Europe/London'
    """
    if name:
        return ZoneInfo(name)
    from tzlocal import get_localzone  # only when the file names no zone

    return get_localzone()


class Section(BaseModel):
    """A table of alley.toml: unknown keys refused, never changed once read."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class KeyProblem(ValueError):
    """Raised inside validators so the key path survives pydantic's wrapping."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


class CentreConfig(Section):
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


class DatabaseConfig(Section):
    url: Annotated[str, Field(min_length=1)] = "sqlite:///var/alley-poker.sqlite3"


class RulesConfig(Section):
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


class FeedConfig(Section):
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


def _a_time_of_day(value: str) -> str:
    if not _LOCAL_TIME.match(value):
        raise ValueError(f"{value!r} is not a 24-hour time of day like \"04:00\"")
    return value


#: A local time of day, 24-hour ``HH:MM``.
TimeOfDay = Annotated[str, AfterValidator(_a_time_of_day)]


def hour_and_minute(time_of_day: str) -> tuple[int, int]:
    """The hour and the minute of an ``HH:MM`` time.

    >>> hour_and_minute("23:30")
    (23, 30)
    """
    hour, minute = time_of_day.split(":")
    return int(hour), int(minute)


class BackupConfig(Section):
    """The nightly online backup of a SQLite ledger (PostgreSQL is backed up by its own tools)."""

    enabled: bool = True
    #: Where the dated copies go; relative to the working directory, like the database URL.
    folder: Annotated[str, Field(min_length=1)] = "var/backups"
    at: TimeOfDay = "04:00"
    #: How many nightly copies to keep; older ones are deleted after each backup.
    keep: Annotated[int, Field(ge=1, le=3650)] = 14

    @property
    def hour(self) -> int:
        return hour_and_minute(self.at)[0]

    @property
    def minute(self) -> int:
        return hour_and_minute(self.at)[1]


class NightConfig(Section):
    """The league night's scheduled close: a match still in play then raises an alarm."""

    #: A close after midnight is the next morning's.
    close: TimeOfDay = "23:30"
    #: An IANA time zone such as ``"America/Chicago"``; empty: the machine's local zone.
    timezone: str = ""

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
        return hour_and_minute(self.close)[0]

    @property
    def minute(self) -> int:
        return hour_and_minute(self.close)[1]

    def zone(self) -> tzinfo:
        """The zone the close is in: the configured one, else the machine's local zone."""
        return ZoneInfo(self.timezone) if self.timezone else get_localzone()


class RedisConfig(Section):
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


class OddsConfig(Section):
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
