"""The client's address: the one definition every per-address limit counts by.

Behind nginx on the same machine (docs/deployment.md) every request comes from 127.0.0.1; the
address of the device that sent it is the last one nginx added to ``X-Forwarded-For``.  That
header is believed only from a proxy the centre runs itself (``TRUSTED_PROXIES``, the same
loopback addresses gunicorn believes ``X-Forwarded-Proto`` from): a phone on the guest Wi-Fi
that sends its own ``X-Forwarded-For`` straight to the server is counted by its own address,
so it cannot pose as another device to dodge a limit.

:class:`BelievedProxy` rewrites ``REMOTE_ADDR`` (Werkzeug's :class:`ProxyFix`, one hop) before
anything else of the app sees the request, so Flask's ``request.remote_addr`` (which
Flask-Limiter's ``get_remote_address`` reads for the sign-in limits,
:mod:`alley_poker.web.sign_in_limits`) and :func:`client_address` (the socket ceiling,
:mod:`alley_poker.web.socket_ceiling`) are the same address.

>>> seen = []
>>> app = BelievedProxy(lambda environ, start: seen.append(client_address(environ)) or [])
>>> _ = app({"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 10.0.0.7"}, None)
>>> _ = app({"REMOTE_ADDR": "10.0.0.9", "HTTP_X_FORWARDED_FOR": "10.0.0.7"}, None)
>>> _ = app({"REMOTE_ADDR": "127.0.0.1"}, None)
>>> seen
['10.0.0.7', '10.0.0.9', '127.0.0.1']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

#: Peers whose ``X-Forwarded-For`` is believed: nginx on the same machine.
TRUSTED_PROXIES = frozenset({"127.0.0.1", "::1"})


class BelievedProxy:
    """WSGI middleware: the client's address from a trusted proxy's ``X-Forwarded-For``."""

    def __init__(self, app: Any, trusted: Iterable[str] = TRUSTED_PROXIES) -> None:
        self.app = app
        self.trusted = frozenset(trusted)
        # One hop (nginx), the address only: gunicorn already reads X-Forwarded-Proto.
        self.through_proxy = ProxyFix(app, x_for=1, x_proto=0, x_host=0, x_port=0,
                                      x_prefix=0)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("REMOTE_ADDR") in self.trusted:
            return self.through_proxy(environ, start_response)
        return self.app(environ, start_response)


def client_address(environ: Mapping[str, Any]) -> str:
    """The address of the device that sent this request (see the module)."""
    return str(environ.get("REMOTE_ADDR") or "unknown")
