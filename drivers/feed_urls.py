"""Which feed URLs the drivers can open: one answer for the configuration, ``init`` and ``doctor``.

A feed is a live-score page polled over HTTP (:mod:`drivers.http_feed`: ``http://`` and
``https://``) or anything pyserial's ``serial_for_url`` opens (:mod:`drivers.serial_feed`): a
device path such as ``/dev/ttyUSB0`` (no ``://``), or a URL whose scheme has a pyserial URL
handler (``socket://``, ``rfc2217://``, ``loop://``, ...).  pyserial finds a scheme's handler
as the module ``protocol_<scheme>`` of its handler packages, so the same lookup says here
whether it would find one: a scheme pyserial gains or loses is gained or lost here too.

>>> unsupported_feed_url("/dev/ttyUSB0"), unsupported_feed_url("socket://10.0.0.20:4001")
(None, None)
>>> unsupported_feed_url("HTTPS://scorer.local/live") is None
True
>>> print(unsupported_feed_url("ftp://x"))
'ftp://x': no feed reads ftp:// (a serial device such as /dev/ttyUSB0, or http, https, \
alt, cp2110, hwgrep, loop, rfc2217, socket, spy)
"""

from __future__ import annotations

import importlib.util
import pkgutil

#: URL schemes that make a feed in ``alley.toml`` a poll feed rather than a serial one.
HTTP_SCHEMES = ("http://", "https://")

_HANDLER_PREFIX = "protocol_"


def is_poll_url(url: str) -> bool:
    """True for a page to poll, False for a serial URL or device.

    >>> is_poll_url("http://scorer.local/live"), is_poll_url("socket://10.0.0.7:4001")
    (True, False)
    """
    return url.lower().startswith(HTTP_SCHEMES)


def _handler_packages() -> list[str]:
    import serial

    return list(serial.protocol_handler_packages)


def serial_url_schemes() -> list[str]:
    """The URL schemes pyserial has a handler for, sorted."""
    schemes = set()
    for package in _handler_packages():
        spec = importlib.util.find_spec(package)
        for module in pkgutil.iter_modules(spec.submodule_search_locations if spec else []):
            if module.name.startswith(_HANDLER_PREFIX):
                schemes.add(module.name.removeprefix(_HANDLER_PREFIX))
    return sorted(schemes)


def _serial_handler_exists(scheme: str) -> bool:
    # As serial_for_url looks it up: package + ".protocol_" + scheme.
    for package in _handler_packages():
        try:
            if importlib.util.find_spec(f"{package}.{_HANDLER_PREFIX}{scheme}") is not None:
                return True
        except (ImportError, ValueError):
            continue
    return False


def unsupported_feed_url(url: str) -> str | None:
    """Why no feed can read ``url``, in words; None when one can."""
    if "://" not in url or is_poll_url(url):
        return None  # a device path, or a page to poll
    scheme = url.split("://", 1)[0].lower()
    if scheme.isidentifier() and _serial_handler_exists(scheme):
        return None
    known = ", ".join([scheme.removesuffix("://") for scheme in HTTP_SCHEMES]
                      + serial_url_schemes())
    return (f"{url!r}: no feed reads {scheme}:// (a serial device such as /dev/ttyUSB0, "
            f"or {known})")
