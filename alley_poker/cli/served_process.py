"""What every long-running command (``serve``, ``web``, ``worker``) does before it starts."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

#: What python-socketio and python-engineio import, when it is installed, only to offer a
#: Socket.IO *client* (``Client``, ``AsyncClient``): a server never uses them.
SOCKETIO_CLIENT_STACKS = ("aiohttp", "requests", "websocket")


def import_socketio_server_only(*, redis_too: bool) -> None:
    """Import the Socket.IO server without the client stacks installed beside it.

    python-socketio imports aiohttp, requests and websocket-client whenever they are
    installed (the test extras install them: the tests' kiosks are python-socketio
    clients), and RedisManager's redis even when no message queue is configured.  A served
    process never uses them; they cost 13 MB of its memory (19 MB with redis).  So that
    first import is made with them marked missing (python-socketio then leaves its client
    and Redis manager unusable, as in an install without them); anything imported later
    finds them as usual.  ``web`` keeps redis: its Socket.IO message queue is Redis.
    """
    if "engineio" in sys.modules:
        return  # already imported with whatever it found (an in-process caller's)
    names = SOCKETIO_CLIENT_STACKS + (("redis",) if redis_too else ())
    absent = [name for name in names if name not in sys.modules]
    for name in absent:
        sys.modules[name] = None  # type: ignore[assignment]  # "import name" raises ImportError
    try:
        import flask_socketio  # noqa: F401
    finally:
        for name in absent:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


def log_to_stderr() -> None:
    """The router's recoveries and refusals and the feeds' reconnects, in the process's log."""
    import logging

    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler says "Running job"/"executed successfully" at INFO for every run of every
    # job (the feed check runs every few seconds); our jobs log what changed instead.  A job
    # that fails is still logged (at ERROR).
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)


#: What every command that writes a centre's files takes away from what it creates: the
#: group's and everyone else's access (files 0600, folders 0700), as the units' UMask=0077.
PRIVATE_UMASK = 0o077


def keep_new_files_private() -> None:
    """Whatever this process creates from now on is its owner's only.

    The ledger holds the deal seeds of matches in play, and SQLite, logging, gunicorn and
    the backups create files with the process's umask: a login shell's 022 would leave them
    readable by every user of the machine.  The files the store and the backups make are
    created 0600 explicitly as well (:func:`alley_poker.store.database.create_private_file`);
    this covers everything else (journals, snapshots, gunicorn's files) when the command is
    not run by the systemd units, which set ``UMask=0077`` themselves.
    """
    import os

    os.umask(PRIVATE_UMASK)


def listening_options(*, host_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The options of a command that serves HTTP (``serve``, ``web``): its configuration, where
    it listens and which server runs it.  Only the host's help differs between them."""
    options = [
        click.option("--config", "config_path",
                     type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="The centre's configuration (default: config/alley.toml)."),
        click.option("--host", default="127.0.0.1", show_default=True, help=host_help),
        click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
                     help="Port to listen on (0: any free port)."),
        click.option("--server", "server_kind", type=click.Choice(["gunicorn", "werkzeug"]),
                     default="gunicorn", show_default=True,
                     help="The HTTP server: gunicorn (production) or werkzeug's "
                          "(for comparison)."),
    ]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def stop_on_signals() -> threading.Event:
    """An event set by SIGINT or SIGTERM (saying which on stderr): a long-running loop's
    signal to finish what it is doing and return."""
    import signal

    stop = threading.Event()

    def request_stop(signum: int, _frame: object) -> None:
        click.echo(f"{signal.Signals(signum).name}: stopping", err=True)
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, request_stop)
    return stop


def start_http_process(*, redis_too: bool) -> None:
    """What ``serve`` and ``web`` do first: the Socket.IO server imported without its client
    stacks (:func:`import_socketio_server_only`), the log on stderr, new files private."""
    import_socketio_server_only(redis_too=redis_too)
    log_to_stderr()
    keep_new_files_private()
