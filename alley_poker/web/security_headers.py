"""The headers every answer carries: what a browser may load, frame or send on a page's behalf.

The pages need nothing but their own origin: scripts and styles are files under ``/static``
(no inline ``<script>``, no ``on…=`` handler, no ``style=`` attribute in any template; the
scripts set sizes through the CSSOM, ``element.style``, which a policy does not govern), the
QR codes are inline SVG elements, the ``/verify`` page checks an export with WebCrypto (no
``eval``, no WebAssembly), and every fetch and socket goes to the page's own server.  So the
policy is ``'self'`` throughout and ``'none'`` for what the pages never use:

- ``script-src 'self'``: an injected ``<script>`` or ``onclick=`` does not run, whatever a
  hostile bowler's name or a feed's text might smuggle past the templates' escaping.
- ``style-src 'self'``: no ``'unsafe-inline'`` either: no template needs it (see above), and
  without it injected markup cannot restyle a page (a fake "PIN" box over the sign-in form).
- ``connect-src 'self'`` plus ``ws://`` and ``wss://`` of the page's own host: CSP 3 counts a
  WebSocket to the page's own host as ``'self'`` (Chromium since 71, Firefox, Safari since
  16); older Safari on a bowler's phone does not, and the phone's live updates are a
  WebSocket only.  The host is the request's, checked to be a plain ``host[:port]``.
- ``img-src 'self'``: the favicon is a file and the QR codes are SVG elements, not images;
  no page uses a ``data:`` URL.
- ``frame-ancestors 'none'`` (and ``X-Frame-Options: DENY`` for browsers before CSP 2): no
  other site can frame the tablet under a decoy and steer its taps.
- ``base-uri 'self'``, ``form-action 'self'``, ``object-src 'none'``: an injected ``<base>``
  or form cannot send the page's links or the PIN elsewhere.

``X-Content-Type-Options: nosniff``: a CSV export or a JSON answer is never run as a script
or rendered as a page.  ``Referrer-Policy: same-origin``: a phone link's token (``/p/…``)
never leaves the centre in a ``Referer``; not ``no-referrer`` everywhere, because the CSRF
check compares the ``Referer`` of a tablet's POST over HTTPS with the host (Flask-WTF's
``WTF_CSRF_SSL_STRICT``).  The phone's own pages say ``no-referrer`` (``web.phone_pages``), which
is kept: a header a view set is never overwritten here.

:func:`install_security_headers` puts them on every answer of the app (pages, the JSON API,
static files, errors), from this one place.

>>> from flask import Flask
>>> app = Flask(__name__)
>>> install_security_headers(app)
>>> headers = app.test_client().get("/nowhere", headers={"Host": "alley:8000"}).headers
>>> headers["X-Frame-Options"], headers["X-Content-Type-Options"], headers["Referrer-Policy"]
('DENY', 'nosniff', 'same-origin')
>>> [d for d in headers["Content-Security-Policy"].split("; ") if d.startswith("connect")]
["connect-src 'self' ws://alley:8000 wss://alley:8000"]
"""

from __future__ import annotations

import re

from flask import Flask, Response, request

#: The policy's directives but ``connect-src`` (which names the request's host, see above).
POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
)

HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

#: A Host header fit to name in the policy: a name or address and a port, nothing else.
PLAIN_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def content_security_policy(host: str) -> str:
    """The policy for a page served as ``host``.

    >>> content_security_policy("alley").endswith("connect-src 'self' ws://alley wss://alley")
    True
    >>> content_security_policy("x; script-src *").endswith("connect-src 'self'")
    True
    """
    connect = "connect-src 'self'"
    if PLAIN_HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    return "; ".join((*POLICY, connect))


def install_security_headers(app: Flask) -> None:
    """Every answer of ``app`` gets the headers above (a view's own value wins)."""

    def add_security_headers(answer: Response) -> Response:
        answer.headers.setdefault("Content-Security-Policy",
                                  content_security_policy(request.host))
        for name, value in HEADERS.items():
            answer.headers.setdefault(name, value)
        return answer

    app.after_request(add_security_headers)
