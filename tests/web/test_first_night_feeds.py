"""The First night guide's feed step: a feed that talks but whose every ball is refused is
not OK, and the guide says why (issue 37: "1 of 1 feed OK" while all 53 balls were refused)."""

from __future__ import annotations

from tests.conftest import centre_app
from tests.web.conftest import OPEN_NIGHT, PIN, open_service, signed_in_client


def test_first_night_counts_a_refusing_feed_not_ok_and_says_why(tmp_path):
    """The tablet's First night guide: a connected feed whose balls are all refused is not
    one of the feeds OK, and the guide gives the feed's reason."""
    service = open_service(tmp_path / "ledger.sqlite3")
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret", **OPEN_NIGHT)
    client, _token = signed_in_client(app)
    why = ("the last 53 lines were all refused (the last: impossible ball: the game is over; "
           "there is no frame 1 ball 2)")
    service.bus.publish("alley", {"kind": "feed_health", "feeds": [
        {"source": "lanes-1-4", "lanes": [1, 2, 3, 4], "state": "amber", "refusing": why}]})
    page = client.get("/commissioner/first-night").get_data(as_text=True)
    assert "0 of 1 feed OK." in page
    assert f"lanes-1-4: {why}." in page
