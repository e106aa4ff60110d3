"""The two ways the latency benchmark runs the centre, behind one interface.

:class:`SingleBox` is ``alley-poker serve`` over a SQLite file: one process reads the feeds,
keeps the ledger and serves the kiosks.  :class:`ScaledOut` is the deployment of
docs/deployment.md on loopback: one ``alley-poker worker`` (the feeds, the ledger's writes,
the odds) and two ``alley-poker web`` processes (the kiosks), over a PostgreSQL schema and a
Redis centre prefix of the benchmark's own, both removed afterwards.

Each has ``database_url`` and ``centre`` (to set the matches up before anything starts),
``start(...)``, ``urls`` (where kiosks connect), ``feeds_process`` (the one that runs the balls
and their odds), ``processes`` (all of them, by name) and ``close()``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchmarks._service_process import ONE_MACHINE_FLEET, ServiceProcess, write_config

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
#: Signs tablet cookies; the web processes of a centre must share one (none is used here).
BENCH_SECRET_KEY = "latency-bench-secret-key-0123456789abcdef"

Feeds = Sequence[tuple[str, str, Sequence[int]]]


class _Deployment:
    """What both deployments share: their ``processes`` by name, the one of them named
    ``feeds_name`` reading the feeds, and every one stopped on ``close()``."""

    feeds_name: str
    processes: dict[str, ServiceProcess]

    @property
    def feeds_process(self) -> ServiceProcess:
        return self.processes[self.feeds_name]

    def close(self) -> None:
        for process in self.processes.values():
            process.stop()


class SingleBox(_Deployment):
    name = "single"
    feeds_name = "serve"

    def __init__(self, workdir: Path, *, server: str | None = None):
        self.workdir = workdir
        self.server = server
        self.database_url = f"sqlite:///{workdir / 'alley.sqlite3'}"
        self.centre = "default"
        self.processes: dict[str, ServiceProcess] = {}

    def start(self, *, lanes: int, feeds: Feeds, odds: Mapping[str, object] | None,
              profile: str | None) -> None:
        config = write_config(self.workdir / "alley.toml", lanes=lanes,
                              database_url=self.database_url, feeds=feeds, odds=odds,
                              sections={"sockets": ONE_MACHINE_FLEET})
        serve = ServiceProcess(config, self.workdir, sample_stacks_to=profile,
                               server=self.server)
        self.processes["serve"] = serve.start()
        serve.wait_serving(timeout=60)

    @property
    def urls(self) -> list[str]:
        return [self.processes["serve"].base_url]


class ScaledOut(_Deployment):
    name = "scaled"
    feeds_name = "worker"

    def __init__(self, workdir: Path, *, pg_url: str = DEFAULT_PG_URL,
                 redis_url: str = DEFAULT_REDIS_URL, web_processes: int = 2,
                 server: str | None = None):
        import redis
        import sqlalchemy as sa
        from sqlalchemy.engine import make_url

        self.workdir = workdir
        self.server = server
        self.redis_url = redis_url
        self.web_processes = web_processes
        tag = uuid.uuid4().hex[:10]
        # The centre id prefixes every Redis channel and Socket.IO room of the run, so a run
        # never reaches (or hears) another centre's processes on the same Redis.
        self.centre = f"bench-{tag}"
        self.schema = f"bench_latency_{tag}"
        self.processes: dict[str, ServiceProcess] = {}
        self._closed = False
        client = redis.Redis.from_url(redis_url, socket_connect_timeout=2)
        try:
            client.ping()
        except Exception as error:  # any reason: the scaled-out deployment cannot run
            raise RuntimeError(f"Redis unreachable at {redis_url}: {error}") from error
        finally:
            client.close()
        self._admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
        try:
            with self._admin.connect() as connection:
                connection.execute(sa.text(f'CREATE SCHEMA "{self.schema}"'))
        except Exception as error:
            self._admin.dispose()
            shown = make_url(pg_url).render_as_string(hide_password=True)
            raise RuntimeError(f"PostgreSQL unreachable at {shown}: {error}") from error
        self.database_url = make_url(pg_url).update_query_dict(
            {"options": f"-csearch_path={self.schema}"}).render_as_string(hide_password=False)

    def start(self, *, lanes: int, feeds: Feeds, odds: Mapping[str, object] | None,
              profile: str | None) -> None:
        config = write_config(self.workdir / "alley.toml", lanes=lanes, database_url=None,
                              feeds=feeds, centre_id=self.centre, odds=odds,
                              sections={"sockets": ONE_MACHINE_FLEET})
        env = {"ALLEY_POKER_DATABASE_URL": self.database_url,
               "ALLEY_POKER_REDIS_URL": self.redis_url,
               "ALLEY_POKER_CENTRE": self.centre,
               "ALLEY_POKER_SECRET_KEY": BENCH_SECRET_KEY}
        names = ["worker", *(f"web{index}" for index in range(1, self.web_processes + 1))]
        for name in names:
            self.processes[name] = ServiceProcess(
                config, self.workdir, command="web" if name.startswith("web") else "worker",
                env=env, name=name, sample_stacks_to=f"{profile}.{name}" if profile else None,
                server=self.server if name.startswith("web") else None,
            ).start()
        for process in self.processes.values():
            process.wait_serving(timeout=90)

    @property
    def urls(self) -> list[str]:
        return [process.base_url for name, process in self.processes.items()
                if name.startswith("web")]

    def close(self) -> None:
        import redis
        import sqlalchemy as sa

        super().close()
        if self._closed:
            return
        self._closed = True
        try:
            with self._admin.connect() as connection:
                connection.execute(sa.text("SET lock_timeout = '20s'"))
                connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
        finally:
            self._admin.dispose()
        client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=2)
        try:
            keys = list(client.scan_iter(match=f"*{self.centre}*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
