"""Serving, not answering: ``serve`` and ``web`` run on gunicorn, the production WSGI server
Flask-SocketIO documents for its threading mode (gunicorn's threaded worker, WebSockets by
simple-websocket, one worker).

gunicorn is embedded through its application API (:class:`CentreApplication`, a
``gunicorn.app.base.BaseApplication``), so the command stays what it was: ``alley-poker serve``
is the centre, not a gunicorn command line.  gunicorn runs an *arbiter* process that binds the
port and watches one *worker* process it forks; the arbiter holds nothing of the centre.  The
centre's wiring (the ledger, the feeds, the scheduler and the web app for ``serve``; the app,
the Redis bus and the ledger for ``web``) is built **in the worker, after the fork**
(``BaseApplication.load``, which gunicorn calls in the worker when ``preload_app`` is off), so
exactly one process reads the feeds, runs the jobs and serves the kiosks, and no thread or
database connection is carried across a fork.  There is one worker because Socket.IO keeps
each client's session in the process that serves it (Flask-SocketIO: one worker per gunicorn;
more processes are more ``web`` processes behind nginx, docs/deployment.md).  Should the worker
die, the arbiter starts a new one, which rebuilds the centre from the ledger as a restart does.

Deadlines (see :mod:`alley_poker.serving.request_buffering` for how they are kept): the request
line and headers in ``header_deadline_s`` (10 s), the body in ``body_deadline_s`` (15 s), an
idle kept-alive connection closed after gunicorn's ``keepalive`` (5 s), the whole request
head bounded by ``max_head_bytes`` (32 KB, answered 431) and each line by gunicorn's
``limit_request_line`` / ``limit_request_fields`` / ``limit_request_field_size``; gunicorn's
``timeout`` is the worker's heartbeat (a worker stuck that long is restarted), not a request
deadline.  A WebSocket keeps a thread of its own pool for as long as it is open (and
python-engineio three more: its reader, its writer and its ping), so ``websockets`` bounds the
open sockets (kiosks, tablets, phones; one more is answered 503) and ``threads`` the requests
answered at once; neither waits for the other.  Why threads and not gevent: docs/performance.md,
"Idle websockets and the worker model".
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

from alley_poker.serving.request_buffering import BufferingThreadWorker, Deadlines

#: Threads answering requests at once (gunicorn starts them as they are needed).  A request
#: is read whole before a thread takes it and answered in milliseconds: these are for bursts.
DEFAULT_THREADS = 200
#: Open WebSockets at once: a centre's kiosks, tablets and bowlers' phones, with room for
#: reconnect storms (each costs four threads, ~70 KB: docs/performance.md).
DEFAULT_WEBSOCKETS = 4000


@dataclass
class ServerSettings:
    """What ``serve`` and ``web`` pass to gunicorn (and its worker's deadlines)."""

    host: str = "127.0.0.1"
    port: int = 8000
    threads: int = DEFAULT_THREADS
    websockets: int = DEFAULT_WEBSOCKETS
    deadlines: Deadlines = field(default_factory=Deadlines)
    keepalive_s: int = 5
    #: The worker's heartbeat: the arbiter restarts a worker silent this long (start-up
    #: included: rebuilding a long night's matches from the ledger takes a few seconds).
    heartbeat_timeout_s: int = 120
    graceful_timeout_s: int = 20

    def gunicorn_options(self) -> dict[str, Any]:
        return {
            "bind": f"[{self.host}]:{self.port}" if ":" in self.host else
                    f"{self.host}:{self.port}",
            "workers": 1,  # one process holds the centre (module docstring)
            "worker_class": BufferingThreadWorker,
            "threads": self.threads,
            # Connections at once (sockets, requests, kept-alive, arriving): beyond the
            # threads, room for kept-alive and slowly arriving ones.
            "worker_connections": self.websockets + self.threads + 1000,
            "keepalive": self.keepalive_s,
            "timeout": self.heartbeat_timeout_s,
            "graceful_timeout": self.graceful_timeout_s,
            "limit_request_line": 8190,
            "limit_request_fields": 100,
            "limit_request_field_size": 8190,
            "preload_app": False,  # the centre is built in the worker, after the fork
            "proc_name": "alley-poker",
            "accesslog": None,
            "errorlog": "-",
            "loglevel": "info",
            # Behind nginx on the same machine: X-Forwarded-Proto from it is believed.
            "forwarded_allow_ips": "127.0.0.1,::1",
        }


class Built:
    """What the worker built: the WSGI app, and how to start, describe and stop the centre."""

    def __init__(self, app: Any, *, start: Callable[[], None], stop: Callable[[], None],
                 ready_lines: Callable[[str], list[str]]) -> None:
        self.app = app
        self.start = start
        self.stop = stop
        self.ready_lines = ready_lines


class BuildError(RuntimeError):
    """The centre cannot be built as configured; the message says what to fix."""


class CentreApplication(BaseApplication):
    """gunicorn, embedded: one threaded worker whose app is built after the fork."""

    def __init__(self, build: Callable[[], Built], settings: ServerSettings,
                 echo: Callable[[str], None] = print) -> None:
        self.build = build
        self.settings = settings
        self.deadlines = settings.deadlines  # read by the worker (BufferingThreadWorker)
        self.echo = echo
        self.built: Built | None = None
        self.arbiter_pid = os.getpid()
        super().__init__()

    @property
    def max_websockets(self) -> int:
        """Read by the worker (BufferingThreadWorker), like :attr:`deadlines`."""
        return self.settings.websockets

    # -- gunicorn's application API -------------------------------------------------------
    def load_config(self) -> None:
        for key, value in self.settings.gunicorn_options().items():
            self.cfg.set(key, value)
        self.cfg.set("post_worker_init", self._post_worker_init)
        self.cfg.set("worker_exit", self._worker_exit)

    def load(self) -> Any:
        """In the worker, after the fork: build the centre and start its feeds and jobs."""
        die_with_parent(self.arbiter_pid)
        raise_open_files_limit()
        try:
            self.built = self.build()
            self.built.start()
        except BuildError as problem:
            print(f"cannot start: {problem}", file=sys.stderr, flush=True)
            # gunicorn's arbiter stops (exit status 3) when its worker cannot boot.
            raise SystemExit(Arbiter.WORKER_BOOT_ERROR) from None
        return self.built.app

    # -- hooks, in the worker ---------------------------------------------------------------
    def _post_worker_init(self, worker: Any) -> None:
        host, port = worker.sockets[0].getsockname()[:2]
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        assert self.built is not None
        for line in self.built.ready_lines(f"http://{shown}:{port}"):
            self.echo(line)
        # The worker's loop starts taking connections when this returns; the collector's
        # first full pass and freeze (a fraction of a second on a long night's ledger) run
        # beside it, as they do after Werkzeug's server has started.
        threading.Thread(target=self._tune, name="tune-after-start", daemon=True).start()

    def _tune(self) -> None:
        from alley_poker.serving.process_tuning import tune_garbage_collector, tune_thread_switching

        self._pacer = tune_garbage_collector()
        tune_thread_switching()

    def _worker_exit(self, _arbiter: Any, worker: Any) -> None:
        from alley_poker.serving.memory_report import write_memory_snapshot

        with contextlib.suppress(AttributeError):
            worker.shut_websockets()  # stopped by SIGINT/SIGQUIT: its pool was not shut down
        if getattr(self, "_pacer", None) is not None:
            self._pacer.stop()
        if self.built is not None:
            write_memory_snapshot()  # only when asked for (serving.memory_report)
            self.built.stop()

    def run(self) -> None:  # BaseApplication.run, with an arbiter that says why it stops
        try:
            _Arbiter(self).run()
        except RuntimeError as problem:
            print(f"cannot start: {problem}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None

    def serve(self) -> int:
        """Run until SIGINT or SIGTERM (the arbiter forwards it to the worker); exit status."""
        arbiter = self.arbiter_pid = os.getpid()
        try:
            self.run()
        except SystemExit as stopped:
            if os.getpid() != arbiter:
                raise  # the worker's own exit (it was forked inside run): not ours to handle
            return stopped.code if isinstance(stopped.code, int) else 1
        return 0


class _Arbiter(Arbiter):
    """gunicorn's arbiter, saying which signal stops the centre (as ``serve`` always has)."""

    def handle_term(self) -> None:
        self.app.echo("SIGTERM: stopping")
        super().handle_term()

    def handle_int(self) -> None:
        self.app.echo("SIGINT: stopping")
        super().handle_int()


def die_with_parent(arbiter_pid: int) -> None:
    """The worker ends with its arbiter, even a SIGKILLed one (Linux's parent-death signal):
    an orphaned worker would keep the feeds and the port while a restarted ``serve`` opens
    them again."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != arbiter_pid:  # the arbiter died before that was set
        os._exit(1)


def raise_open_files_limit() -> None:
    """Every socket is a file: lift the soft limit to the hard one (systemd's soft default
    is 1024, a night's kiosks, phones and reconnects come near it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def build_one_box(config: Any) -> Callable[[], Built]:
    """``serve``'s centre, built in the worker: service, feeds, scheduler and web app."""

    def build() -> Built:
        from alley_poker.config import ConfigError
        from alley_poker.serving.centre_servers import AlleyServer
        from alley_poker.store.event_store import StoreError

        try:
            server = AlleyServer(config, listen=False)
        except (ConfigError, StoreError, OSError) as problem:  # e.g. a feed's unknown dialect
            raise BuildError(str(problem)) from None
        return Built(server.app, start=server.start, stop=server.stop,
                     ready_lines=server.serving_lines)

    return build


def build_web_process(config: Any) -> Callable[[], Built]:
    """``web``'s app, built in the worker: the web app over PostgreSQL and Redis."""

    def build() -> Built:
        from alley_poker.centre import ScaledSetupError
        from alley_poker.service.redis_bus import BusUnavailable
        from alley_poker.serving.centre_servers import WebServer
        from alley_poker.store.event_store import StoreError

        try:
            server = WebServer(config, listen=False)
        except (StoreError, ScaledSetupError, BusUnavailable, OSError) as problem:
            raise BuildError(str(problem)) from None
        return Built(server.app, start=server.start, stop=server.stop,
                     ready_lines=server.serving_lines)

    return build


def run_production(build: Callable[[], Built], settings: ServerSettings,
                   echo: Callable[[str], None] = print) -> int:
    """Serve ``build``'s app on gunicorn until signalled; the exit status."""
    os.environ.pop("GUNICORN_CMD_ARGS", None)  # the settings are ours, not the environment's
    status = CentreApplication(build, settings, echo).serve()
    echo("stopped")
    return status


def serve_one_box(config: Any, host: str, port: int,
                  echo: Callable[[str], None] = print) -> int:
    """``alley-poker serve`` on gunicorn."""
    return run_production(build_one_box(config), ServerSettings(host=host, port=port), echo)


def serve_web_process(config: Any, host: str, port: int,
                      echo: Callable[[str], None] = print) -> int:
    """``alley-poker web`` on gunicorn (its settings checked before anything forks)."""
    check_web_settings(config)
    return run_production(build_web_process(config),
                          ServerSettings(host=host, port=port), echo)


def check_web_settings(config: Any) -> None:
    """Refuse, in the command's own process, what a web process cannot run on: no PostgreSQL
    or no Redis URL (:func:`~alley_poker.centre.scaled_settings`), or a Redis not
    answering."""
    import redis

    from alley_poker.centre import scaled_settings
    from alley_poker.service.redis_bus import BusUnavailable

    _database_url, redis_url = scaled_settings(config)
    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except Exception as error:  # any reason at all: the web process cannot run
        raise BusUnavailable(f"cannot reach Redis at {redis_url}: {error}") from None
    finally:
        client.close()
