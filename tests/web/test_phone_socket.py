"""The phone's live room over the network: a real python-socketio client with the phone's
session cookie joins its bowler's room, receives every change, and resyncs after a drop."""

from __future__ import annotations

import functools
import queue
import time
from datetime import UTC, date, datetime, timedelta

import pytest

from alley_poker.ledger import commands as c
from alley_poker.store.phone_links import PhoneLinkStore
from alley_poker.web.public import public_match_view
from alley_poker.web.view_patch import take_update
from tests.socket_client import InOrderClient
from tests.web.conftest import pair_kiosk
from tests.web.test_sockets import KioskClient, QueuedClient, state_after_a_server_restart


def phone_session(service, bowler: str = "Ann") -> str:
    """A code minted and opened as the tablet and the phone would: the phone's cookie."""
    links = PhoneLinkStore(service.repository.store.engine)
    made = links.mint("m1", bowler, date.today(), datetime.now(UTC) + timedelta(hours=3),
                      actor="commissioner:test")
    return links.open(made.secret).session


class PhoneClient(QueuedClient):
    """Like phone.js: joins its room on every (re)connection, with the session cookie."""

    def __init__(self, url: str, session: str | None,
                 kinds: tuple[str, ...] = ("state", "match_update")):
        self.messages: queue.Queue = queue.Queue()
        self.joins: queue.Queue = queue.Queue()
        self.client = InOrderClient(reconnection=True, reconnection_delay=0.1,
                                      reconnection_delay_max=0.5)

        @self.client.event
        def connect():
            self.client.emit("phone_join", {}, callback=self.joins.put)

        for kind in kinds:
            self.client.on(kind, functools.partial(self._put, kind))
        headers = {"Cookie": f"alley_phone={session}"} if session else {}
        self.client.connect(url, transports=["websocket"], headers=headers, wait_timeout=5)

    def _put(self, kind, message):
        self.messages.put((kind, message))


def test_the_bowlers_room_gets_every_change_of_the_match(live_server, service):
    phone = PhoneClient(live_server.url, phone_session(service))
    try:
        assert phone.joins.get(timeout=5) == {"ok": True, "match_id": "m1", "bowler": "Ann"}
        kind, message = phone.next()
        assert kind == "state"
        held = message["state"]
        assert message["screen"]["Ann"]["lane"] == 1 and message["screen"]["Ann"]["up"]
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        kind, message = phone.next()
        assert kind == "match_update"
        held = take_update(held, message)
        assert held == public_match_view(service.state("m1"))
        assert len(held["bowlers"]["Ann"]["hand"]) == 3
        # Who is up and her total come with the push: a strike waits for its bonus balls.
        assert message["screen"]["Ann"]["score_at_least"] == 10
        assert message["screen"]["Ann"]["ball"] == 1
    finally:
        phone.close()


def test_a_socket_without_a_live_link_joins_no_room(live_server, app, service):
    stranger = PhoneClient(live_server.url, None)
    forged = PhoneClient(live_server.url, "forged-session-forged-session-forged")
    try:
        for client in (stranger, forged):
            answer = client.joins.get(timeout=5)
            assert answer["error"]["code"] == "phone_sign_in_required"
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        time.sleep(0.3)
        assert stranger.messages.empty() and forged.messages.empty()
    finally:
        stranger.close()
        forged.close()


def test_a_kiosk_shows_a_code_only_when_paired_and_for_its_own_lanes(live_server, app):
    unpaired = KioskClient(live_server.url)
    paired = KioskClient(live_server.url, device_token=pair_kiosk(app, "1-2"))
    other = KioskClient(live_server.url, lanes="5-6", device_token=pair_kiosk(app, "5-6"))
    try:
        ask = {"match_id": "m1", "bowler": "Bob"}
        assert unpaired.client.call("phone_code", ask, timeout=5)["error"]["code"] == \
            "kiosk_not_paired"
        assert other.client.call("phone_code", ask, timeout=5)["error"]["code"] == "forbidden"
        shown = paired.client.call("phone_code", ask, timeout=5)
        assert shown["ok"] is True and shown["link"]["bowler"] == "Bob"
        assert shown["svg"].startswith("<svg") and "/p/" in shown["url"]
    finally:
        for client in (unpaired, paired, other):
            client.close()


@pytest.mark.slow
def test_after_a_dropped_connection_the_phone_resyncs(database, service):
    """The server process is killed, the ledger moves on, a new process serves: the phone
    reconnects by itself, joins its room again and is whole (its session is in the ledger's
    database, so it survives the restart)."""
    session = phone_session(service)
    state_after_a_server_restart(service, database, lambda url: PhoneClient(url, session))
