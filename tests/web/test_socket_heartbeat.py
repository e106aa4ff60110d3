"""Socket.IO's heartbeat as the clients hear it: a hung server shows on a screen within 8 s.

The browser's client takes the server for gone after the handshake's ``pingInterval`` plus
``pingTimeout`` without a ping (the library's 25 s + 20 s left a kiosk "● Live" on a hung
server for 41 s, issue 38).  tests/web/test_kiosk_hung_server.py shows it in Chromium against
the real server; this checks the handshake every client reads and the setting's errors.
"""

from __future__ import annotations

import json

import pytest

from alley_poker.config import load_config_text
from tests.conftest import centre_app


def handshake(app) -> dict:
    """Engine.IO's open packet, as a client's first polling request receives it."""
    answer = app.test_client().get("/socket.io/?EIO=4&transport=polling")
    assert answer.status_code == 200
    body = answer.get_data(as_text=True)
    assert body.startswith("0"), body  # the open packet
    return json.loads(body[1:])


def test_clients_are_told_to_give_the_server_up_after_8_s_of_silence():
    opened = handshake(centre_app(testing=True))
    assert (opened["pingInterval"], opened["pingTimeout"]) == (4000, 4000)


def test_the_heartbeat_can_be_set_and_a_bad_setting_is_named():
    opened = handshake(centre_app(testing=True,
                                  sockets={"ping_interval_s": 10, "ping_timeout_s": 5}))
    assert (opened["pingInterval"], opened["pingTimeout"]) == (10_000, 5_000)
    with pytest.raises(ValueError, match=r"sockets\.ping_timeout_s"):
        load_config_text('[centre]\nname = "X"\nlanes = 2\n[sockets]\nping_timeout_s = 0',
                         env={})
