"""The kiosk in Chromium under the socket ceiling (web.socket_ceiling): refused while its
address has its share, it says it is reconnecting and gets in on its own once a place is
free; a paired kiosk gets in at once (its device token rides the handshake in a cookie).

The places are taken by long-polling sessions opened through the app itself from the
kiosk's address (127.0.0.1), as a flooding script on that address would hold them.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import centre_app
from tests.web.conftest import OPEN_NIGHT, PIN, pair_kiosk, serve
from tests.web.test_socket_ceiling import close_session, open_session

KIOSK = "127.0.0.1"  # where Chromium connects from


@pytest.fixture
def app(service):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                      sockets={"per_address": 2, "in_all": 10, "kept_for_known_devices": 2},
                      **OPEN_NIGHT)


@pytest.fixture
def live_server(app):
    running = serve(app)
    yield running
    running.stop()


def take_places(app, count: int) -> list[str]:
    client = app.test_client()
    taken = [open_session(client, KIOSK) for _ in range(count)]
    assert [status for status, _sid, _headers in taken] == [200] * count
    return [sid for _status, sid, _headers in taken]


def test_a_refused_kiosk_says_so_and_gets_in_once_a_place_is_free(browser, live_server, app):
    sids = take_places(app, 2)
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/kiosk/1-2")
    page.wait_for_selector("#connection[data-state=down]")
    assert "Reconnecting" in page.inner_text("#connection")
    assert app.extensions["socket_ceiling"].refused["address"] >= 1
    close_session(app.test_client(), KIOSK, sids[0])
    page.wait_for_selector("#connection[data-state=live]")  # Socket.IO's own back-off
    page.wait_for_selector("section.bowler[data-bowler=Ann]")


def test_a_paired_kiosk_gets_in_from_an_address_that_has_its_share(browser, live_server, app):
    take_places(app, 2)
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.add_init_script(f"localStorage.setItem('alley-poker-kiosk-device:1-2', "
                         f"{json.dumps(pair_kiosk(app))})")
    page.goto(f"{live_server.url}/kiosk/1-2")
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector("body[data-paired=yes]")
    assert app.extensions["socket_ceiling"].refused["address"] == 0
