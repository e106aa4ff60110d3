"""The ceiling on Socket.IO connections (web.socket_ceiling), on the app itself: each new
Engine.IO session is admitted or refused by the client's address and the centre's count, known
devices get the room kept for them, and an ended session gives its place back.

Long-polling handshakes are the sessions here: each one is a session that stays open without
holding a request, as a WebSocket's would.  The flood on the real server is in
test_socket_flood.py.
"""

from __future__ import annotations

import json

import pytest

from alley_poker.web.centre_access import centre_of
from alley_poker.web.metrics import CentreMetrics, add_metrics_route
from alley_poker.web.socket_ceiling import KIOSK_COOKIE, SocketLimits
from tests.conftest import centre_app
from tests.web.conftest import OPEN_NIGHT, PIN, csrf_token_from, pair_kiosk, signed_in_client

HANDSHAKE = "/socket.io/?EIO=4&transport=polling"


@pytest.fixture
def app(service):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                      sockets={"per_address": 2, "in_all": 5, "kept_for_known_devices": 2},
                      **OPEN_NIGHT)


def open_session(client, address: str, **headers: str):
    """A long-polling handshake from ``address``: (status, sid or the refusal's body, headers)."""
    answer = client.get(HANDSHAKE, environ_base={"REMOTE_ADDR": address}, headers=headers)
    text = answer.get_data(as_text=True)
    if answer.status_code == 200:
        return 200, json.loads(text[1:])["sid"], answer.headers
    return answer.status_code, json.loads(text), answer.headers


def close_session(client, address: str, sid: str) -> None:
    answer = client.post(f"{HANDSHAKE}&sid={sid}", data="1",  # Engine.IO's close packet
                         environ_base={"REMOTE_ADDR": address})
    assert answer.status_code == 200


def test_one_address_gets_its_share_and_the_next_is_told_to_wait(app):
    client = app.test_client()
    assert [open_session(client, "10.0.0.7")[0] for _ in range(2)] == [200, 200]
    status, body, headers = open_session(client, "10.0.0.7")
    assert status == 429
    assert headers["Retry-After"].isdigit()
    assert body["error"]["code"] == "too_many_sockets"
    assert "10.0.0.7" in body["error"]["message"]
    assert open_session(client, "10.0.0.8")[0] == 200  # another address is not held


def test_an_ended_session_gives_its_place_back(app):
    client = app.test_client()
    sids = [open_session(client, "10.0.0.7")[1] for _ in range(2)]
    assert open_session(client, "10.0.0.7")[0] == 429
    close_session(client, "10.0.0.7", sids[0])
    assert open_session(client, "10.0.0.7")[0] == 200
    assert app.extensions["socket_ceiling"].open_sessions == 2


def test_the_last_places_are_kept_for_the_kiosks_and_the_tablet(app):
    client = app.test_client()
    # 3 of the 5 for anyone: from three addresses, then the centre is full for others.
    assert [open_session(client, f"10.0.1.{n}")[0] for n in range(3)] == [200] * 3
    status, body, headers = open_session(client, "10.0.1.9")
    assert (status, headers["Retry-After"].isdigit()) == (503, True)
    assert body["error"]["code"] == "too_many_sockets"

    # A paired kiosk (its cookie) and the signed-in tablet still get in, from an address
    # whose own share is used up too.
    open_session(client, "10.0.0.7")
    kiosk = app.test_client()
    kiosk.set_cookie(KIOSK_COOKIE, pair_kiosk(app), path="/socket.io/")
    assert open_session(kiosk, "10.0.1.0")[0] == 200
    tablet, _token = signed_in_client(app)
    assert open_session(tablet, "10.0.1.0")[0] == 200
    # Then the centre is full for everybody.
    assert open_session(tablet, "10.0.1.0")[0] == 503


def test_a_kiosk_cookie_that_is_not_a_paired_kiosks_gets_no_kept_place(app):
    client = app.test_client()
    for n in range(3):
        open_session(client, f"10.0.1.{n}")
    stranger = app.test_client()
    stranger.set_cookie(KIOSK_COOKIE, "made-up", path="/socket.io/")
    assert open_session(stranger, "10.0.2.1")[0] == 503
    waiting = centre_of(app).kiosk_devices.request("3-4")  # asked, never paired
    stranger.set_cookie(KIOSK_COOKIE, waiting.secret, path="/socket.io/")
    assert open_session(stranger, "10.0.2.1")[0] == 503


def test_behind_nginx_each_device_is_counted_by_its_forwarded_address(app):
    client = app.test_client()
    for _ in range(2):
        assert open_session(client, "127.0.0.1", **{"X-Forwarded-For": "10.0.0.7"})[0] == 200
    assert open_session(client, "127.0.0.1", **{"X-Forwarded-For": "10.0.0.7"})[0] == 429
    # nginx appends the peer it saw: what the client claimed before it is not believed.
    assert open_session(client, "127.0.0.1",
                        **{"X-Forwarded-For": "10.9.9.9, 10.0.0.7"})[0] == 429
    assert open_session(client, "127.0.0.1", **{"X-Forwarded-For": "10.0.0.8"})[0] == 200


def test_a_forwarded_address_from_a_device_itself_is_not_believed(app):
    client = app.test_client()
    for n in range(2):
        open_session(client, "10.0.0.7", **{"X-Forwarded-For": f"10.5.5.{n}"})
    assert open_session(client, "10.0.0.7", **{"X-Forwarded-For": "10.5.5.9"})[0] == 429


def test_refusals_are_counted_in_metrics(app, service):
    add_metrics_route(app, CentreMetrics(service))
    client = app.test_client()
    for _ in range(4):
        open_session(client, "10.0.0.7")
    for n in range(2):
        open_session(client, f"10.0.1.{n}")
    text = client.get("/metrics").get_data(as_text=True)
    assert 'alley_socket_refusals_total{reason="address"} 2.0' in text
    assert 'alley_socket_refusals_total{reason="centre"} 1.0' in text


def test_the_limits_must_leave_room_for_others():
    with pytest.raises(ValueError, match="kept_for_known"):
        SocketLimits(per_address=5, in_all=10, kept_for_known=10)
    with pytest.raises(ValueError, match="positive"):
        SocketLimits(per_address=0)


def test_the_settings_come_from_alley_toml():
    from alley_poker.config import ConfigError, load_config_text

    config = load_config_text('[centre]\nid = "x"\nname = "X"\nlanes = 4\n'
                              "[sockets]\nper_address = 8\nin_all = 300\n"
                              "kept_for_known_devices = 40\n")
    assert SocketLimits.from_config(config.sockets) == SocketLimits(
        per_address=8, in_all=300, kept_for_known=40)
    with pytest.raises(ConfigError, match="kept_for_known_devices"):
        load_config_text('[centre]\nid = "x"\nname = "X"\nlanes = 4\n'
                         "[sockets]\nin_all = 30\nkept_for_known_devices = 30\n")


def test_the_sign_in_limits_count_by_the_same_address(service):
    """Behind nginx, wrong PINs from one device's address do not hold another's."""
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     sign_in={"per_address": "2 per minute"})

    def wrong_pin(address: str) -> int:
        client = app.test_client()  # a fresh device cookie each time: the address cap counts
        through_nginx = {"environ_base": {"REMOTE_ADDR": "127.0.0.1"},
                         "headers": {"X-Forwarded-For": address}}
        token = csrf_token_from(client.get("/commissioner", **through_nginx).get_data(
            as_text=True))
        return client.post("/commissioner/sign-in", data={"pin": "1111", "csrf_token": token},
                           **through_nginx).status_code

    assert [wrong_pin("10.0.0.7") for _ in range(3)] == [401, 401, 429]
    assert wrong_pin("10.0.0.8") == 401
