"""The gunicorn internals the serving layer relies on (``serving.gunicorn_internals``) are in the
installed gunicorn, as what we use them as; the list names every one our subclasses touch; and
the check fails on a gunicorn that moved one (a deleted method, a changed signature, a missing
attribute, a module without the class, a setting gone)."""

from __future__ import annotations

import ast
import importlib
import os
import socket
import types
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import pytest
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.http.message import Request
from gunicorn.http.unreader import IterUnreader
from gunicorn.workers.gthread import TConn, ThreadWorker

from alley_poker.serving import gunicorn_internals
from alley_poker.serving.gunicorn_internals import (
    APPLICATION,
    ARBITER,
    INTERNALS,
    REQUEST,
    TCONN,
    WORKER,
    Internal,
    unmet,
)
from alley_poker.serving.production_server import CentreApplication, ServerSettings

SERVING = Path(gunicorn_internals.__file__).parent


def _never_built():
    raise AssertionError("the centre is built in a worker; this test starts none")


@pytest.fixture
def built(monkeypatch) -> Iterator[dict[str, object]]:
    """One instance of each gunicorn class whose attributes we use, built by gunicorn's own
    constructors from our application and settings, as the arbiter and the worker build them."""
    monkeypatch.setenv("SERVER_SOFTWARE", "")  # Arbiter() sets it; put back afterwards
    application = CentreApplication(_never_built, ServerSettings())
    worker = ThreadWorker(0, os.getpid(), [], application, 30, application.cfg, None)
    ours, theirs = socket.socketpair()
    connection = TConn(application.cfg, ours, ("127.0.0.1", 50000), ("127.0.0.1", 8000))
    connection.init()  # its parser, as once a request is whole
    request = Request(application.cfg, IterUnreader(
        [b"POST /api/x HTTP/1.1\r\nHost: alley\r\nExpect: 100-continue\r\n"
         b"Content-Length: 2\r\n\r\n{}"]), ("127.0.0.1", 50000))
    try:
        yield {WORKER: worker, TCONN: connection, REQUEST: request,
               APPLICATION: application, ARBITER: Arbiter(application)}
    finally:
        worker.tmp.close()
        ours.close()
        theirs.close()


def test_every_internal_named_is_in_the_installed_gunicorn_as_we_use_it(built):
    assert unmet(instances=built) == []


def test_the_list_names_every_part_of_gunicorn_our_subclasses_override_or_read(built):
    """Each name our subclasses share with gunicorn's class (a method overridden, an attribute
    or method of ``self`` they read, a ``super()`` call) is in the list, under that owner."""
    listed = {(internal.owner, internal.name) for internal in INTERNALS}
    checked = {
        (SERVING / "request_buffering.py", "BufferingThreadWorker"): (WORKER, built[WORKER]),
        (SERVING / "production_server.py", "CentreApplication"): (APPLICATION,
                                                                 _BareApplication()),
        (SERVING / "production_server.py", "_Arbiter"): (ARBITER, built[ARBITER]),
    }
    missing = []
    for (path, class_name), (owner, gunicorns) in checked.items():
        for name in sorted(_shared_names(path, class_name, gunicorns)):
            if (owner, name) not in listed:
                missing.append(f"{class_name}.{name} ({owner})")
    assert missing == []
    assert len(checked) == 3 and len(listed) > 40  # the scan found its classes and the list


class _BareApplication(BaseApplication):
    """gunicorn's application with nothing of ours: what it has of its own."""

    def load_config(self) -> None:
        pass

    def load(self) -> None:
        pass


def _shared_names(path: Path, class_name: str, gunicorns: object) -> set[str]:
    """Names ``class_name`` in ``path`` defines, reads on ``self`` or calls on ``super()``
    that gunicorn's class (or instance) ``gunicorns`` has too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [ours] = [node for node in ast.walk(tree)
              if isinstance(node, ast.ClassDef) and node.name == class_name]
    names = {node.name for node in ours.body if isinstance(node, ast.FunctionDef)}
    for node in ast.walk(ours):
        if isinstance(node, ast.Attribute) and (_is_name(node.value, "self") or (
                isinstance(node.value, ast.Call) and _is_name(node.value.func, "super"))):
            names.add(node.attr)
    return {name for name in names if hasattr(gunicorns, name)
            and (not name.startswith("__") or name == "__init__")}


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def test_a_gunicorn_that_moved_a_method_or_an_attribute_is_caught(built, monkeypatch):
    monkeypatch.delattr(ThreadWorker, "murder_keepalived")
    monkeypatch.setattr(ThreadWorker, "accept", lambda self, listener: None)
    monkeypatch.delattr(built[WORKER], "_keep")
    monkeypatch.delattr(built[REQUEST], "must_close")
    assert unmet(instances=built) == [
        f"{WORKER}.accept (method): parameters ('listener',), not ('server', 'listener')",
        f"{WORKER}.murder_keepalived (method): no such method",
        f"{WORKER}._keep (attribute): not on an instance gunicorn built",
        f"{REQUEST}.must_close (attribute): not on an instance gunicorn built",
    ]


def test_a_gunicorn_without_a_class_a_constant_or_a_setting_is_caught(built):
    def find_module(name: str) -> types.ModuleType:
        if name == "gunicorn.arbiter":  # an arbiter class with none of what we use
            return types.SimpleNamespace(Arbiter=type("Arbiter", (), {}))  # type: ignore[return-value]
        if name == "gunicorn.config":
            config = importlib.import_module(name)
            return types.SimpleNamespace(KNOWN_SETTINGS=[  # type: ignore[return-value]
                setting for setting in config.KNOWN_SETTINGS
                if setting.name != "worker_exit"])
        if name == "gunicorn.http.message":
            raise ImportError("No module named 'gunicorn.http.message'")
        return importlib.import_module(name)

    found = unmet(instances=built, find_module=find_module)
    assert f"{ARBITER}.WORKER_BOOT_ERROR (constant): no such int" in found
    assert f"{ARBITER}.run (method): no such method" in found
    assert "gunicorn.config.worker_exit (setting): no such setting" in found
    assert any(each.startswith(f"{REQUEST}.headers (attribute): cannot be imported")
               for each in found)
    assert not any("post_worker_init" in each or WORKER in each for each in found)


def test_a_hook_whose_parameters_changed_is_caught(built, monkeypatch):
    from gunicorn import config

    [exit_hook] = [setting for setting in config.KNOWN_SETTINGS if setting.name == "worker_exit"]
    monkeypatch.setattr(exit_hook, "default", staticmethod(lambda worker: None))
    assert unmet(instances=built) == [
        "gunicorn.config.worker_exit (setting): a hook of parameters ('worker',), "
        "not ('server', 'worker')"]


def test_an_attribute_with_no_instance_to_look_on_is_not_taken_as_there():
    assert unmet((Internal(WORKER, "poller", "attribute", "why"),), instances={}) == [
        f"{WORKER}.poller (attribute): no instance given to look for it on"]


def test_wrap_future_registers_the_future_as_the_worker_relies_on(built):
    """What BufferingThreadWorker._submit expects of ``_wrap_future``: the future carries its
    connection (``fs.conn``), is among ``futures`` (shut_websockets walks them), and
    ``finish_request`` is called with it when it is done."""
    worker = built[WORKER]
    finished = []
    worker.finish_request = finished.append
    future: futures.Future = futures.Future()
    worker._wrap_future(future, built[TCONN])
    assert future.conn is built[TCONN] and future in worker.futures and finished == []
    future.set_result((False, built[TCONN]))
    assert finished == [future]


def test_a_request_s_header_names_are_upper_cased_as_handle_request_filters_them(built):
    request = built[REQUEST]
    assert ("EXPECT", "100-continue") in request.headers
    assert request.must_close is False
