"""The centre the web app serves, read through one typed accessor.

:func:`alley_poker.web.create_app` keeps the finished :class:`~alley_poker.centre.Centre` once;
a view reads its parts (the service, the stores, the league desk, the odds, the boards) and its
configuration as typed attributes of it, never by string keys of ``app.extensions``.
"""

from __future__ import annotations

from flask import Flask, current_app

from alley_poker.centre import Centre

#: The one key the centre is kept under in ``app.extensions``.
CENTRE_KEY = "alley_centre"


def keep_centre(app: Flask, centre: Centre) -> None:
    """Make ``centre`` the one this app serves (:func:`create_app` does, once)."""
    if CENTRE_KEY in app.extensions:
        raise RuntimeError("this app already serves a centre")
    app.extensions[CENTRE_KEY] = centre


def centre_of(app: Flask) -> Centre:
    """The centre ``app`` serves."""
    return app.extensions[CENTRE_KEY]


def current_centre() -> Centre:
    """The centre the current request's app serves."""
    return centre_of(current_app)  # type: ignore[arg-type]
