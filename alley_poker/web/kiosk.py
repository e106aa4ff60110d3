"""The lane-side kiosk page, ``/kiosk/<lane-pair>`` (e.g. ``/kiosk/1-2``).

The page itself is static; it renders the public state pushed over Socket.IO.

>>> parse_lane_pair("1-2"), parse_lane_pair("7")
((1, 2), (7,))
>>> parse_lane_pair("2-x")
Traceback (most recent call last):
...
ValueError: lane pair '2-x' must be lane numbers like 1-2
>>> parse_lane_pair("1-" + "9" * 5000)
Traceback (most recent call last):
...
ValueError: lane pair '1-99999999...' is too long to be lane numbers like 1-2

A page, a screen read or a socket only serves a lane pair the centre has
(:func:`centre_lane_pair`): ``[centre] lanes`` of its configuration (outside a request, the
most a configuration allows).
"""

from __future__ import annotations

from flask import Blueprint, abort, has_app_context, render_template

from alley_poker.web.centre_access import current_centre
from alley_poker.web.errors import ApiError

#: The most lanes a centre's configuration allows (``alley_poker.config``'s ``centre.lanes``).
MOST_LANES = 200
#: Longer than "199-200" by a margin: a longer text is not a lane pair (and is not read).
LONGEST_PAIR = 12

kiosk = Blueprint("kiosk", __name__, url_prefix="/kiosk")


def parse_lane_pair(text: str) -> tuple[int, ...]:
    """The lanes named by a kiosk's lane pair, ``"1-2"`` → ``(1, 2)``."""
    text = str(text)
    if len(text) > LONGEST_PAIR:
        raise ValueError(f"lane pair {text[:10] + '...'!r} is too long to be lane numbers "
                         "like 1-2")
    parts = text.split("-")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise ValueError(f"lane pair {text!r} must be lane numbers like 1-2")
    return tuple(int(p) for p in parts)


def centre_lanes() -> int:
    """How many lanes this centre has (``[centre] lanes``; outside a request, the most
    allowed)."""
    return current_centre().config.centre.lanes if has_app_context() else MOST_LANES


def centre_lane_pair(text: str) -> tuple[int, ...]:
    """:func:`parse_lane_pair`, and ValueError for a lane the centre does not have."""
    lanes = parse_lane_pair(text)
    last = centre_lanes()
    for lane in lanes:
        if lane > last:
            raise ValueError(f"lane {lane} is not a lane of this centre; its lanes are "
                             f"1-{last}")
    return lanes


def api_lane_pair(text: str) -> tuple[int, ...]:
    """:func:`centre_lane_pair` for an API route's path: a pair that is no lanes of this
    centre is the API's 404 naming ``lane_pair``."""
    try:
        return centre_lane_pair(text)
    except ValueError as problem:
        raise ApiError(404, "not_found", str(problem), "lane_pair") from None


@kiosk.get("/<lane_pair>")
def lane_pair_page(lane_pair: str):
    try:
        lanes = centre_lane_pair(lane_pair)
    except ValueError as problem:
        abort(404, str(problem))
    return render_template("kiosk.html", lane_pair=lane_pair, lanes=lanes)
