"""Serving, not answering: every part of gunicorn the serving layer relies on, named in one place.

:mod:`~alley_poker.serving.request_buffering` subclasses gunicorn's threaded worker and reads
its private state (``_keep``, ``poller``, ``_lock``, ``tpool``, ``futures``, ``_wrap_future``);
:mod:`~alley_poker.serving.production_server` embeds gunicorn through its application API and
subclasses its arbiter.  Neither is a promise of gunicorn's: a minor release may rename or
remove any of them, and the worker would then fail at its first connection, not at import.
:data:`INTERNALS` lists each, with what it must be (a class, a method with the parameters we
call or override it with, an attribute of an instance, a constant, a setting) and why we need
it; :func:`unmet` checks them against the installed gunicorn (``tests/serving/
test_gunicorn_internals.py`` runs it, and shows it failing on a gunicorn missing one).
pyproject.toml pins gunicorn to the releases checked (``>=22,<24``); raise the pin only with
that test green.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType

#: The kinds of part, and what each must be.
CLASS = "class"  # a class, found by module and name
METHOD = "method"  # a function on the class, with exactly ``parameters`` after ``self``
ATTRIBUTE = "attribute"  # present on an instance gunicorn builds (``instances``)
CONSTANT = "constant"  # an int on the class
SETTING = "setting"  # a known setting of gunicorn.config (a hook: its parameters)

GTHREAD = "gunicorn.workers.gthread"
WORKER = f"{GTHREAD}:ThreadWorker"
TCONN = f"{GTHREAD}:TConn"
REQUEST = "gunicorn.http.message:Request"
APPLICATION = "gunicorn.app.base:BaseApplication"
ARBITER = "gunicorn.arbiter:Arbiter"
CONFIG = "gunicorn.config"


@dataclass(frozen=True)
class Internal:
    """One part of gunicorn we rely on: ``name`` of ``owner`` (``module:Class``, or the
    config module for a setting), of ``kind``; ``parameters`` (after ``self``) where the
    signature matters, None where it does not."""

    owner: str
    name: str
    kind: str
    why: str
    parameters: tuple[str, ...] | None = None

    def __str__(self) -> str:
        return f"{self.owner}.{self.name}"


_OVERRIDE = "overridden by BufferingThreadWorker"

INTERNALS: tuple[Internal, ...] = (
    # -- the threaded worker (request_buffering.BufferingThreadWorker subclasses it) --------
    Internal(GTHREAD, "ThreadWorker", CLASS, "the gthread worker BufferingThreadWorker extends"),
    Internal(WORKER, "init_process", METHOD, f"{_OVERRIDE}: our state is set before "
             "gunicorn's makes the pool, the selector and the lock and runs the loop", ()),
    Internal(WORKER, "get_thread_pool", METHOD, f"{_OVERRIDE}: the requests' pool, which ends "
             "the WebSockets (their own pool) before it shuts down", ()),
    Internal(WORKER, "accept", METHOD, f"{_OVERRIDE}: gunicorn's, plus the arriving request "
             "and its header deadline", ("server", "listener")),
    Internal(WORKER, "on_client_socket_readable", METHOD, f"{_OVERRIDE}: reads without "
             "blocking until the request is whole, then hands it to a thread",
             ("conn", "client")),
    Internal(WORKER, "handle", METHOD, f"{_OVERRIDE}: returns (keepalive, conn); a refused "
             "body's connection is never kept alive", ("conn",)),
    Internal(WORKER, "handle_request", METHOD, f"{_OVERRIDE}: drops Expect (the loop said 100 "
             "Continue) and closes after a refused body", ("req", "conn")),
    Internal(WORKER, "finish_request", METHOD, f"{_OVERRIDE}: a refused body's connection "
             "closes lingering", ("fs",)),
    Internal(WORKER, "murder_keepalived", METHOD, f"{_OVERRIDE}: gunicorn's loop calls it every "
             "turn; ours also closes late and lingering connections and trims memory", ()),
    Internal(WORKER, "_wrap_future", METHOD, "called to register a thread's future: it sets "
             "fs.conn, keeps it in futures and calls finish_request when done", ("fs", "conn")),
    Internal(WORKER, "_keep", ATTRIBUTE, "the kept-alive connections (a deque): one whose next "
             "request begins is taken out of it"),
    Internal(WORKER, "poller", ATTRIBUTE, "the loop's selector: connections are registered on "
             "it while their request arrives or they linger"),
    Internal(WORKER, "_lock", ATTRIBUTE, "guards poller and _keep against the pool's threads"),
    Internal(WORKER, "tpool", ATTRIBUTE, "the requests' thread pool a whole request is "
             "submitted to"),
    Internal(WORKER, "futures", ATTRIBUTE, "the running requests' futures: the WebSockets' "
             "connections are found in it to be shut when the worker stops"),
    Internal(WORKER, "nr_conns", ATTRIBUTE, "the open connections gunicorn counts against "
             "worker_connections: counted up in accept, down when we close one"),
    Internal(WORKER, "cfg", ATTRIBUTE, "the worker's settings (threads: the pool's size)"),
    Internal(WORKER, "app", ATTRIBUTE, "our CentreApplication, whose deadlines and "
             "max_websockets the worker reads"),
    Internal(WORKER, "sockets", ATTRIBUTE, "the listening sockets: post_worker_init says the "
             "address bound"),
    # -- the connection the worker hands around ---------------------------------------------
    Internal(GTHREAD, "TConn", CLASS, "made in accept for each connection, as gunicorn does"),
    Internal(TCONN, "__init__", METHOD, "accept makes one as gunicorn's accept does",
             ("cfg", "sock", "client", "server")),
    Internal(TCONN, "init", METHOD, "makes the connection blocking and its parser, once the "
             "request is whole", ()),
    Internal(TCONN, "close", METHOD, "closes a connection we drop", ()),
    Internal(TCONN, "sock", ATTRIBUTE, "the socket read without blocking in the loop"),
    Internal(TCONN, "initialized", ATTRIBUTE, "True once a request was handed over: a readable "
             "initialized connection is a kept-alive one whose next request begins"),
    Internal(TCONN, "parser.unreader.unread", METHOD, "after init: the bytes read in the loop "
             "are pushed back for gunicorn's parser to read", ("data",)),
    # -- the request the worker answers -----------------------------------------------------
    Internal(REQUEST, "headers", ATTRIBUTE, "(NAME, value) pairs, names upper-cased: the "
             "EXPECT header is dropped by that name"),
    Internal(REQUEST, "must_close", ATTRIBUTE, "True makes the answer say Connection: close"),
    # -- the embedded application and its arbiter (production_server) -----------------------
    Internal("gunicorn.app.base", "BaseApplication", CLASS, "CentreApplication embeds gunicorn "
             "through it"),
    Internal(APPLICATION, "load_config", METHOD, "overridden: our settings into cfg", ()),
    Internal(APPLICATION, "load", METHOD, "overridden: builds the centre in the worker, after "
             "the fork", ()),
    Internal(APPLICATION, "__init__", METHOD, "called with neither usage nor prog: their "
             "defaults", ("usage", "prog")),
    Internal(APPLICATION, "run", METHOD, "replaced: runs our subclass of the arbiter, as "
             "gunicorn's runs its own", ()),
    Internal(APPLICATION, "cfg", ATTRIBUTE, "the settings load_config sets"),
    Internal("gunicorn.arbiter", "Arbiter", CLASS, "CentreApplication.run runs our subclass "
             "of it (it names the signal that stops the centre)"),
    Internal(ARBITER, "__init__", METHOD, "made from the application", ("app",)),
    Internal(ARBITER, "run", METHOD, "runs until stopped", ()),
    Internal(ARBITER, "handle_term", METHOD, "overridden: says SIGTERM, then gunicorn's", ()),
    Internal(ARBITER, "handle_int", METHOD, "overridden: says SIGINT, then gunicorn's", ()),
    Internal(ARBITER, "app", ATTRIBUTE, "the application, whose echo says the signal"),
    Internal(ARBITER, "WORKER_BOOT_ERROR", CONSTANT, "the worker's exit status that stops the "
             "arbiter: a centre that cannot be built exits with it"),
    # -- settings: hooks (their parameters) and every option ServerSettings passes -----------
    Internal(CONFIG, "post_worker_init", SETTING, "the hook that says the address and tunes "
             "the process once the worker is up", ("worker",)),
    Internal(CONFIG, "worker_exit", SETTING, "the hook that stops the centre in the worker",
             ("server", "worker")),
    *(Internal(CONFIG, option, SETTING, "passed by ServerSettings.gunicorn_options")
      for option in ("bind", "workers", "worker_class", "threads", "worker_connections",
                     "keepalive", "timeout", "graceful_timeout", "limit_request_line",
                     "limit_request_fields", "limit_request_field_size", "preload_app",
                     "proc_name", "accesslog", "errorlog", "loglevel",
                     "forwarded_allow_ips")),
)


def unmet(internals: tuple[Internal, ...] = INTERNALS, *, instances: Mapping[str, object],
          find_module: Callable[[str], ModuleType] = importlib.import_module) -> list[str]:
    """What the installed gunicorn does not have as :data:`INTERNALS` says, in words (empty:
    all there).  ``instances`` holds, by owner, an instance gunicorn built, on which that
    owner's attributes are looked for (most are set in ``__init__``, not on the class)."""
    said = []
    for internal in internals:
        try:
            problem = _unmet(internal, instances, find_module)
        except ImportError as error:
            problem = f"cannot be imported ({error})"
        if problem:
            said.append(f"{internal} ({internal.kind}): {problem}")
    return said


def _unmet(internal: Internal, instances: Mapping[str, object],
           find_module: Callable[[str], ModuleType]) -> str | None:
    module_name, _, class_name = internal.owner.partition(":")
    module = find_module(module_name)
    if internal.kind == SETTING:
        return _unmet_setting(internal, module)
    if internal.kind == CLASS:
        found = getattr(module, internal.name, None)
        return None if isinstance(found, type) else "no such class"
    owner = getattr(module, class_name, None)
    if not isinstance(owner, type):
        return f"no class {class_name}"
    if internal.kind == CONSTANT:
        return None if isinstance(getattr(owner, internal.name, None), int) else "no such int"
    if internal.kind == ATTRIBUTE or "." in internal.name:
        if internal.owner not in instances:
            return "no instance given to look for it on"
        found = instances[internal.owner]
        for part in internal.name.split("."):
            if not hasattr(found, part):
                return "not on an instance gunicorn built"
            found = getattr(found, part)
        return _unmet_signature(internal, found) if internal.kind == METHOD else None
    found = getattr(owner, internal.name, None)
    if not inspect.isfunction(found):
        return "no such method"
    return _unmet_signature(internal, found)


def _unmet_signature(internal: Internal, found: object) -> str | None:
    if not callable(found):
        return "not callable"
    if internal.parameters is None:
        return None
    names = tuple(inspect.signature(found).parameters)
    if inspect.isfunction(found):
        names = names[1:]  # self
    if names != internal.parameters:
        return f"parameters {names}, not {internal.parameters}"
    return None


def _unmet_setting(internal: Internal, config: ModuleType) -> str | None:
    known = {setting.name: setting for setting in getattr(config, "KNOWN_SETTINGS", ())}
    if internal.name not in known:
        return "no such setting"
    if internal.parameters is None:
        return None
    default = known[internal.name].default
    names = tuple(inspect.signature(default).parameters) if callable(default) else None
    if names is None or len(names) != len(internal.parameters):
        return f"a hook of parameters {names}, not {internal.parameters}"
    return None
