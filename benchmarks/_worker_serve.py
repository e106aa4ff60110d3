"""``alley-poker`` with another gunicorn worker, for :mod:`benchmarks.idle_sockets` only.

``ALLEY_POKER_BENCH_WORKER``: ``threads`` (the server's own worker) or ``gevent``
(gunicorn's gevent worker, which monkey-patches the worker process after the fork, with
Flask-SocketIO's ``gevent`` async mode over simple-websocket);
``ALLEY_POKER_BENCH_POOL``: the threaded worker's request threads (empty: the server's
default); ``ALLEY_POKER_BENCH_WEBSOCKETS``: its ceiling of open WebSockets (likewise);
``ALLEY_POKER_BENCH_STACK_KB``: the stack of every thread started from then on (empty:
the C library's default, 8 MB of address space).
The command line is the CLI's (``python -m benchmarks._worker_serve serve --config ...``).
"""

from __future__ import annotations

import os
import threading

import flask_socketio

from alley_poker.cli import main
from alley_poker.serving import production_server

WORKER = os.environ.get("ALLEY_POKER_BENCH_WORKER", "threads")
POOL = os.environ.get("ALLEY_POKER_BENCH_POOL", "")
WEBSOCKETS = os.environ.get("ALLEY_POKER_BENCH_WEBSOCKETS", "")
STACK_KB = os.environ.get("ALLEY_POKER_BENCH_STACK_KB", "")
if STACK_KB:
    threading.stack_size(int(STACK_KB) * 1024)  # inherited by the forked worker

_options = production_server.ServerSettings.gunicorn_options


def _bench_options(settings: production_server.ServerSettings) -> dict:
    if POOL:
        settings.threads = int(POOL)
    if WEBSOCKETS:
        settings.websockets = int(WEBSOCKETS)
    options = _options(settings)
    if WORKER == "gevent":
        options["worker_class"] = "gevent"
        options["worker_connections"] = 20000  # greenlets at once: the probe's sockets
    return options


production_server.ServerSettings.gunicorn_options = _bench_options  # type: ignore[method-assign]

if WORKER == "gevent":
    _init = flask_socketio.SocketIO.__init__

    def _gevent_mode(self, app=None, **kwargs):
        if kwargs.get("async_mode") == "threading":
            kwargs["async_mode"] = "gevent"
        _init(self, app, **kwargs)

    flask_socketio.SocketIO.__init__ = _gevent_mode  # type: ignore[method-assign]

# Guarded: the odds pool's processes are spawned, and a spawned process imports the main
# module again (as ``__mp_main__``); unguarded, each would start a second server.
if __name__ == "__main__":
    main()
