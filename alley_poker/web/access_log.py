"""The access log: one line per request, in the server's log, with no bowler's token in it.

:class:`AccessLog` wraps the whole WSGI app (Socket.IO's handshakes and WebSockets included),
so the line is the same on gunicorn and on werkzeug's server, whichever serves the app.  It
goes to the ``alley_poker.access`` logger at INFO, which ``serve`` and ``web`` write to
standard error (``cli.served_process.log_to_stderr``; under systemd, the journal)::

    203.0.113.7 "GET /p/[token]" 303 0 B 4.2 ms

the client's address (behind the local nginx: the address it forwarded, as every
per-address limit counts it, :mod:`alley_poker.web.client_address`, then ``via`` nginx's
own), the method and path with its query, the status, the body's bytes, and the time from
the request's arrival to its last byte handed to the server (for a WebSocket: how long it
was open; its status is 101).

A phone link's token is a bowler's key to their own hand for the night; the access log is
read by whoever looks after the box.  So a request's target is logged only through
:func:`redact`: ``/p/<token>`` becomes ``/p/[token]`` and the value of any query parameter
that carries a secret (:data:`SECRET_PARAMETERS`: Engine.IO's session id ``sid`` among them)
becomes ``[redacted]``.  Headers are not logged at all (API tokens and cookies travel there).
:class:`RedactSecrets` puts the same rewriting on the other loggers that may quote a URL
(werkzeug's, Flask's error lines).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from alley_poker.web.client_address import client_address

log = logging.getLogger("alley_poker.access")

#: Query parameters whose values are secrets, whatever route they are sent to.
SECRET_PARAMETERS = ("token", "access_token", "api_token", "sid", "key", "secret", "password",
                     "pin", "session")

_PHONE_TOKEN = re.compile(r"/p/[^\s?\"'#/]+")
_SECRET_VALUE = re.compile(
    r"([?&](?:" + "|".join(SECRET_PARAMETERS) + r")=)[^&\s\"'#]*", re.IGNORECASE)

def redact(text: str) -> str:
    """``text`` (a path, a URL or a whole log line) without the secrets it carries.

    >>> redact("/p/s3cr3t-T0ken_x?x=1")
    '/p/[token]?x=1'
    >>> redact("/socket.io/?EIO=4&transport=polling&sid=AbC123&t=Px")
    '/socket.io/?EIO=4&transport=polling&sid=[redacted]&t=Px'
    >>> redact('"GET /verify?match=m1&TOKEN=abc HTTP/1.1" 200')
    '"GET /verify?match=m1&TOKEN=[redacted] HTTP/1.1" 200'
    >>> redact("/api/v1/phone-links?tokenish=1")
    '/api/v1/phone-links?tokenish=1'
    """
    return _SECRET_VALUE.sub(r"\1[redacted]", _PHONE_TOKEN.sub("/p/[token]", text))


class RedactSecrets(logging.Filter):
    """Rewrites the secrets :func:`redact` knows out of a log record before it is written.

    >>> record = logging.LogRecord("werkzeug", logging.INFO, "", 0,
    ...     '%s - - "%s" %s', ("127.0.0.1", "GET /p/s3cr3t-T0ken_x HTTP/1.1", "303"), None)
    >>> RedactSecrets().filter(record), record.getMessage()
    (True, '127.0.0.1 - - "GET /p/[token] HTTP/1.1" 303')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def install_log_redaction(*loggers: logging.Logger) -> None:
    """Put the redaction on loggers that may quote a request's URL (once each)."""
    for logger in loggers:
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())


def shown_address(environ: dict[str, Any]) -> str:
    """Who asked (:func:`~alley_poker.web.client_address.client_address`: behind the local
    nginx, the address it forwarded), and through which proxy.

    >>> shown_address({"REMOTE_ADDR": "203.0.113.7"})
    '203.0.113.7'
    >>> shown_address({"REMOTE_ADDR": "198.51.100.2",
    ...                "werkzeug.proxy_fix.orig": {"REMOTE_ADDR": "127.0.0.1"}})
    '198.51.100.2 via 127.0.0.1'
    """
    address = client_address(environ)
    proxy = (environ.get("werkzeug.proxy_fix.orig") or {}).get("REMOTE_ADDR")
    return f"{address} via {proxy}" if proxy and proxy != address else address


def request_target(environ: dict[str, Any]) -> str:
    """The request's path and query as the client sent them, redacted."""
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    # PEP 3333: the path is latin-1 decoded bytes; show it as the UTF-8 the client sent.
    path = path.encode("latin-1", "replace").decode("utf-8", "replace")
    query = environ.get("QUERY_STRING", "")
    return redact(f"{path}?{query}" if query else path)


class AccessLog:
    """WSGI middleware: logs each request once its answer is sent (see the module)."""

    def __init__(self, app: Callable[..., Iterable[bytes]],
                 logger: logging.Logger = log) -> None:
        self.app = app
        self.logger = logger

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()
        answer = _Answer()

        def recording_start_response(status: str, headers: list[tuple[str, str]],
                                     exc_info: Any = None) -> Callable[[bytes], Any]:
            answer.status = status.split(" ", 1)[0]
            answer.length = next((int(value) for name, value in headers
                                  if name.lower() == "content-length" and value.isdigit()),
                                 None)
            write = start_response(status, headers, exc_info)

            def counting_write(data: bytes) -> Any:
                answer.sent += len(data)
                return write(data)

            return counting_write

        def done() -> None:
            self._write(environ, answer, time.perf_counter() - started)

        try:
            body = self.app(environ, recording_start_response)
        except BaseException:
            # A WebSocket served by gunicorn ends this way when it closes (simple-websocket
            # has no answer to return); anything else is the server's 500.
            answer.status = answer.status or _unanswered_status(environ)
            done()
            raise
        file_wrapper = environ.get("wsgi.file_wrapper")
        if file_wrapper is not None and isinstance(body, file_wrapper):
            # A static file: the server sends it itself (sendfile), so it is logged now,
            # with the length it declared.
            answer.sent = answer.length or 0
            done()
            return body
        return _LoggedBody(body, answer, done)

    def _write(self, environ: dict[str, Any], answer: _Answer, elapsed_s: float) -> None:
        self.logger.info('%s "%s %s" %s %d B %.1f ms', shown_address(environ),
                         environ.get("REQUEST_METHOD", "-"), request_target(environ),
                         answer.status or _unanswered_status(environ), answer.sent,
                         elapsed_s * 1000)


def _unanswered_status(environ: dict[str, Any]) -> str:
    upgrade = environ.get("HTTP_UPGRADE", "").lower() == "websocket"
    return "101" if upgrade else "500"


class _Answer:
    __slots__ = ("length", "sent", "status")

    def __init__(self) -> None:
        self.status: str | None = None
        self.length: int | None = None
        self.sent = 0


class _LoggedBody:
    """The app's body, counted as the server takes it; logged once it is all taken (or the
    server closes it early: a client gone mid-answer)."""

    def __init__(self, body: Iterable[bytes], answer: _Answer,
                 done: Callable[[], None]) -> None:
        self._body = body
        self._answer = answer
        self._done: Callable[[], None] | None = done

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            self._answer.sent += len(chunk)
            yield chunk
        self._log()

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._log()

    def _log(self) -> None:
        done, self._done = self._done, None
        if done is not None:
            done()
