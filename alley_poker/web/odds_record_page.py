"""The odds' record, shown (docs/odds.md, "The record, shown"): the tablet's Odds page
(``/commissioner/odds``), the public page the bowler's phone links to (``/odds``: the same
figures, no desk controls), and ``GET /api/v1/odds/record`` for both.

The figures are aggregates of settled matches (chances given and shares won per tenth of the
scale, Brier scores, counts): they name no bowler and show no card, so they are public like
the lanes' screens.  The projection is :mod:`alley_poker.service.odds_record`; the chart is
an SVG drawn here, beside a table of the same numbers for screen readers.

>>> geometry = chart_geometry([{"low": 0.8, "high": 0.9, "count": 40, "predicted": 0.85,
...                             "observed": 0.75, "interval": [0.6, 0.86], "readable": True}])
>>> point = geometry["points"][0]
>>> point["x"], point["y"], point["label"]
(290.0, 86.0, '85% given, 75% won (40 predictions)')
"""

from __future__ import annotations

from typing import Any, Literal

from flask import Blueprint, jsonify, render_template
from pydantic import BaseModel, Field

from alley_poker.service.odds_record import MIN_BIN, MIN_MATCHES, OddsRecordSource
from alley_poker.web.api_request import API_PREFIX
from alley_poker.web.centre_access import current_centre
from alley_poker.web.commissioner_pages import commissioner, commissioner_page

#: This module's routes of the JSON API (registered by the app factory).
api = Blueprint("odds_record_api", __name__, url_prefix=API_PREFIX)
#: The public page (registered by the app factory).
public_record = Blueprint("odds_record", __name__)

#: The chart's drawing: a square plot of chance given (x) against share won (y), 0-100 %.
PLOT_LEFT, PLOT_TOP, PLOT_SIZE = 52, 16, 280
CHART_WIDTH, CHART_HEIGHT = PLOT_LEFT + PLOT_SIZE + 16, PLOT_TOP + PLOT_SIZE + 48


class RecordBin(BaseModel):
    low: float = Field(description="the tenth of the scale: chances from low")
    high: float = Field(description="to high")
    count: int = Field(description="predictions given a chance in it")
    predicted: float = Field(description="their mean chance given")
    observed: float = Field(description="the share of the pot they took (a tie of k: 1/k)")
    interval: list[float] = Field(description="Wilson's 95% interval of observed")
    readable: bool = Field(description="enough predictions (min_bin) to read the bin")


class OddsRecordView(BaseModel):
    """The centre's record: its live odds judged on its own settled matches."""

    state: Literal["off", "working", "failed", "ready"] = Field(
        description="off: the centre shows no live odds; working: the first record is being "
                    "worked out; failed: it could not be (see the log); ready: below")
    enough: bool | None = Field(default=None, description="enough matches to judge "
                                "(min_matches, and a bin of min_bin predictions)")
    matches: int | None = Field(default=None, description="matches the record rests on")
    settled_matches: int | None = Field(default=None, description="settled matches the "
                                        "centre holds (the record rests on the latest 500)")
    predictions: int | None = None
    min_matches: int | None = None
    min_bin: int | None = None
    brier: float | None = Field(default=None, description="the odds' Brier score (lower is "
                                "better)")
    naive_brier: float | None = Field(default=None, description="guessing 1 in n's")
    iterations: int | None = Field(default=None, description="runs per prediction")
    computed_at: str | None = None
    bins: list[RecordBin] | None = None


def record_source() -> OddsRecordSource | None:
    return current_centre().odds_record


def current_record() -> dict[str, Any]:
    source = record_source()
    return {"state": "off"} if source is None else source.current()


def _scale(value: float) -> float:
    return round(PLOT_SIZE * value, 1)


def chart_geometry(bins: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the chart's points, whiskers and ticks go (SVG units; y grows down).  Only bins
    with enough predictions to read are drawn."""
    bottom = PLOT_TOP + PLOT_SIZE
    points = [{"x": PLOT_LEFT + _scale(b["predicted"]), "y": bottom - _scale(b["observed"]),
               "top": bottom - _scale(b["interval"][1]),
               "bottom": bottom - _scale(b["interval"][0]),
               "label": f"{round(100 * b['predicted'])}% given, {round(100 * b['observed'])}% "
                        f"won ({b['count']} predictions)"}
              for b in bins if b["readable"]]
    ticks = [{"value": tick / 10, "text": f"{10 * tick}%", "x": PLOT_LEFT + _scale(tick / 10),
              "y": bottom - _scale(tick / 10)} for tick in range(0, 11, 2)]
    return {"points": points, "ticks": ticks, "left": PLOT_LEFT, "top": PLOT_TOP,
            "size": PLOT_SIZE, "right": PLOT_LEFT + PLOT_SIZE, "bottom": bottom,
            "width": CHART_WIDTH, "height": CHART_HEIGHT}


def _context() -> dict[str, Any]:
    record = current_record()
    chart = chart_geometry(record["bins"]) if record.get("enough") else None
    return {"record": record, "chart": chart, "min_matches": MIN_MATCHES, "min_bin": MIN_BIN}


@commissioner.get("/odds")
def odds_record_page():
    return commissioner_page("commissioner_odds.html", **_context())


@public_record.get("/odds")
def public_odds_record():
    return render_template("odds_record.html", **_context())


@api.get("/odds/record")
def odds_record_json():
    return jsonify(current_record())
