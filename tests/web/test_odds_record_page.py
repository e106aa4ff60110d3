"""The odds' record as pages and JSON (web/odds_record_page, docs/odds.md "The record,
shown"): the tablet's Odds page is signed in and in the tablet's navigation, the public page
has no desk control, the API answers for both, and too few matches are said to be too few."""

from __future__ import annotations

import re

from alley_poker.odds.calibration import Prediction, Report
from alley_poker.service.odds_record import MIN_MATCHES, OddsRecord
from alley_poker.web.centre_access import centre_of
from tests.web.conftest import signed_in_client
from tests.web.test_phone_odds import odds_app  # noqa: F401  (the centre showing odds)


class Recorded:
    """A source that has worked out ``record`` already (the page's drawing of it)."""

    def __init__(self, record: OddsRecord) -> None:
        self.record = record

    def current(self) -> dict:
        return self.record.as_json()


def a_record(matches: int = 40) -> OddsRecord:
    """Favourites given 85 % who won 75 %, outsiders given 15 % who won 25 %."""
    predictions = []
    for m in range(matches):
        favourite_won = m % 4 != 0
        predictions += [Prediction(f"m{m}", "g1f0", "A", 0.85, float(favourite_won), 2),
                        Prediction(f"m{m}", "g1f0", "B", 0.15, float(not favourite_won), 2)]
    return OddsRecord.of(Report.of(predictions), settled=matches, iterations=400)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_record_is_off_where_the_centre_shows_no_odds(app):
    client = app.test_client()
    assert client.get("/api/v1/odds/record").get_json() == {"state": "off"}
    page = client.get("/odds")
    assert page.status_code == 200
    assert "This centre does not show live odds" in page.get_data(as_text=True)


def test_the_tablets_odds_page_is_signed_in_and_in_its_navigation(odds_app):  # noqa: F811
    anyone = odds_app.test_client().get("/commissioner/odds").get_data(as_text=True)
    assert 'id="pin"' in anyone and "How good are our odds" not in anyone
    tablet, _csrf = signed_in_client(odds_app)
    dashboard = tablet.get("/commissioner").get_data(as_text=True)
    assert '<a href="/commissioner/odds">Odds</a>' in dashboard
    centre_of(odds_app).odds_record.current()
    assert centre_of(odds_app).odds_record.wait(30)
    page = _text(tablet.get("/commissioner/odds").get_data(as_text=True))
    # The centre has no settled match yet (m1 is being bowled): it says so, draws nothing.
    assert "Not enough matches yet to judge the odds: the record rests on 0 settled " \
           f"matches (0 predictions), and it is judged from {MIN_MATCHES} matches" in page
    assert "<svg" not in page and "Our odds:" not in page


def test_the_record_is_drawn_with_its_numbers_once_there_are_enough_matches(odds_app):  # noqa: F811
    centre_of(odds_app).odds_record = Recorded(a_record())
    tablet, _csrf = signed_in_client(odds_app)
    html = tablet.get("/commissioner/odds").get_data(as_text=True)
    text = _text(html)
    assert "Our odds: 0.198 ; guessing 1 in n: 0.250; lower is better" in text
    assert "From 40 settled matches and 80 predictions." in text
    assert html.count("<circle") == 2 and 'class="diagonal"' in html
    assert "10–20% 40 15.0% 25.0%" in text and "80–90% 40 85.0% 75.0%" in text
    json = odds_app.test_client().get("/api/v1/odds/record").get_json()
    assert json["enough"] and json["brier"] == 0.1975 and len(json["bins"]) == 2


def test_the_public_record_shows_the_same_without_any_desk_control(odds_app):  # noqa: F811
    centre_of(odds_app).odds_record = Recorded(a_record())
    html = odds_app.test_client().get("/odds").get_data(as_text=True)
    assert "Our odds: 0.198" in _text(html) and html.count("<circle") == 2
    for desk in ("<form", "<nav", "<button", "/commissioner", "Sign out"):
        assert desk not in html, desk


def test_too_few_matches_are_said_to_be_too_few_on_the_public_page_too(odds_app):  # noqa: F811
    centre_of(odds_app).odds_record = Recorded(a_record(matches=MIN_MATCHES - 1))
    text = _text(odds_app.test_client().get("/odds").get_data(as_text=True))
    assert f"the record rests on {MIN_MATCHES - 1} settled matches" in text
    assert "Our odds" not in text
