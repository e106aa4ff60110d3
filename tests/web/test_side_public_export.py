"""A bracket night's export for anyone (``/verify?night=ID`` loads it): withheld with 409
until the night's close reveals the draw's seed, as a match's waits for its settlement;
then it is the desk's export, byte for byte, with no sign-in."""

from __future__ import annotations

import pytest

from tests.web.test_side_games_api import Night

pytestmark = pytest.mark.slow      # a league, a night and its side games: over a second


def test_the_public_export_waits_for_the_seed_and_then_is_the_desks(app):
    night = Night(app)
    night.open_with_entries()
    night.start()
    night.bowled_and_paid()
    anyone = app.test_client()
    public = f"/api/v1/side-nights/{night.night_id}/export"
    early = anyone.get(public)
    assert early.status_code == 409
    assert "seed is revealed" in early.get_json()["error"]["message"]
    assert night.send("/reveal", {}).status_code == 200
    answer = anyone.get(public)
    assert answer.status_code == 200
    assert answer.get_json() == night.desk.get(f"{night.url}/export").get_json()
    missing = anyone.get("/api/v1/side-nights/tue-1999-01-05/export")
    assert missing.status_code == 404 and missing.get_json()["error"]["field"] == "night_id"
