"""The lane-side kiosk page, ``/kiosk/<lane-pair>`` (e.g. ``/kiosk/1-2``).

The page itself is static; it renders the public state pushed over Socket.IO.

>>> parse_lane_pair("1-2"), parse_lane_pair("7")
((1, 2), (7,))
>>> parse_lane_pair("2-x")
Traceback (most recent call last):
...
ValueError: lane pair '2-x' must be lane numbers like 1-2
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template

kiosk = Blueprint("kiosk", __name__, url_prefix="/kiosk")


def parse_lane_pair(text: str) -> tuple[int, ...]:
    """The lanes named by a kiosk's lane pair, ``"1-2"`` → ``(1, 2)``."""
    parts = str(text).split("-")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"lane pair {text!r} must be lane numbers like 1-2")
    return tuple(int(p) for p in parts)


@kiosk.get("/<lane_pair>")
def lane_pair_page(lane_pair: str):
    try:
        lanes = parse_lane_pair(lane_pair)
    except ValueError as problem:
        abort(404, str(problem))
    return render_template("kiosk.html", lane_pair=lane_pair, lanes=lanes)
