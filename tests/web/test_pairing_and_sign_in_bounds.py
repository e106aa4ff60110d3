"""The rules behind issue 38's points 2 and 5, quickly, in process (the real-server probes are
tests/web/test_pairing_flood.py and tests/web/test_pin_guessing_ceiling.py).

Pairing: a waiting request is never dropped for a newer one; a full table refuses the new
one; each address has a few waiting at most; a request lives while its socket does (or the
kiosk's next socket joins with its secret) and is withdrawn a grace after it left.
Sign-in: the centre-wide ceiling holds unknown devices from any address, with a growing wait;
a known tablet passes it; /metrics counts each failure by what refused it.
"""

from __future__ import annotations

import time

import pytest

from alley_poker.store import EventStore
from alley_poker.store import kiosk_devices as store_module
from alley_poker.store.kiosk_devices import KioskDeviceStore
from alley_poker.web.kiosk_pairing import KioskGate
from alley_poker.web.metrics import CentreMetrics, add_metrics_route
from tests.conftest import centre_app
from tests.web.conftest import PIN, csrf_token_from


@pytest.fixture
def devices() -> KioskDeviceStore:
    return KioskDeviceStore(EventStore.open("sqlite://").engine, centre="north")


def ask(gate: KioskGate, sid: str, address: str, lanes: str = "1-2") -> dict:
    return gate.pair_request({"lanes": lanes}, sid, address)


def test_a_full_table_refuses_the_new_request_and_keeps_the_waiting_ones(devices, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_PENDING", 3)
    first = devices.request("1-2")
    assert devices.request("3-4") and devices.request("5-6")
    assert devices.request("7-8") is None  # refused: nobody pushed out
    assert devices.approve(first.code, actor="commissioner:test").lanes == "1-2"
    assert devices.request("7-8") is not None  # room again once one is paired


def test_fresh_sockets_from_one_address_get_no_fresh_allowance(devices):
    gate = KioskGate(devices, waiting_per_address=2)
    kiosk = ask(gate, "kiosk", "10.0.0.2")
    answers = [ask(gate, f"flood-{n}", "10.0.0.66") for n in range(10)]
    assert [answer.get("ok", False) for answer in answers] == [True, True] + [False] * 8
    refused = answers[-1]["error"]
    assert refused["code"] == "too_many_requests" and "this network address" in refused["message"]
    assert devices.approve(kiosk["code"], actor="commissioner:test") is not None
    assert ask(gate, "another-kiosk", "10.0.0.3")["ok"]


def test_a_code_lives_with_its_kiosk_and_goes_a_grace_after_it(devices):
    gate = KioskGate(devices, grace_s=0.1)
    asked = ask(gate, "first-socket", "10.0.0.2")
    gate.left("first-socket")
    # The kiosk reconnects and joins with its secret, as kiosk.js does: its code still counts.
    assert gate.joined("second-socket", "1-2", asked["device_token"]) is False
    assert gate.waiting("second-socket")
    time.sleep(0.15)
    ask(gate, "someone", "10.0.0.9")  # a later request forgets the gone ones
    assert devices.waiting_with(asked["device_token"]) is not None  # still connected: kept

    gone = ask(gate, "short-lived", "10.0.0.3")
    gate.left("short-lived")
    time.sleep(0.15)
    ask(gate, "someone-else", "10.0.0.10")
    assert devices.approve(gone["code"], actor="commissioner:test") is None
    # A kiosk that comes back after that is told its code no longer counts (and asks again).
    assert gate.joined("back-again", "1-2", gone["device_token"]) is False
    assert not gate.waiting("back-again")


@pytest.mark.slow  # six PIN checks (scrypt): over a second on a busy machine
def test_the_centre_wide_ceiling_holds_every_address_but_not_a_known_tablet(service):
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     sign_in={"centre_wide": "3 per minute; 4 per hour"})
    add_metrics_route(app, CentreMetrics(service))

    def attempt(address: str, pin: str = "000000", client=None):
        client = client or app.test_client()
        environ = {"REMOTE_ADDR": address}
        token = csrf_token_from(client.get("/commissioner", environ_base=environ)
                                .get_data(as_text=True))
        return client.post("/commissioner/sign-in", data={"pin": pin, "csrf_token": token},
                           environ_base=environ)

    desk = app.test_client()
    assert attempt("10.0.0.1", PIN, desk).status_code == 302  # known from now on
    statuses = [attempt(f"10.0.1.{n}").status_code for n in range(6)]
    assert statuses == [401, 401, 429, 429, 429, 429]  # the desk's sign-in took one place
    refused = attempt("10.0.2.1")
    assert "someone may be guessing the PIN" in refused.get_data(as_text=True)
    assert int(refused.headers["Retry-After"]) > 1
    assert attempt("10.0.1.0", PIN, desk).status_code == 302  # the known tablet: not held

    metrics = app.test_client().get("/metrics").get_data(as_text=True)
    assert 'alley_sign_in_failures_total{refused_by="pin"} 2.0' in metrics
    assert 'alley_sign_in_failures_total{refused_by="centre"} 5.0' in metrics


@pytest.mark.slow  # waits out a five-second window
def test_the_centre_wide_wait_grows_with_the_guesses(service):
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     sign_in={"centre_wide": "2 per 5 seconds; 3 per hour"})

    def attempt(n: int):
        client, environ = app.test_client(), {"REMOTE_ADDR": f"10.0.3.{n}"}
        token = csrf_token_from(client.get("/commissioner", environ_base=environ)
                                .get_data(as_text=True))
        return client.post("/commissioner/sign-in", data={"pin": "000000", "csrf_token": token},
                           environ_base=environ)

    assert [attempt(n).status_code for n in range(2)] == [401, 401]
    short = attempt(2)  # (the two PIN checks take well under 5 s, even on a busy machine)
    assert short.status_code == 429 and int(short.headers["Retry-After"]) <= 5
    time.sleep(int(short.headers["Retry-After"]) + 0.2)
    assert attempt(3).status_code == 401
    longer = attempt(4)  # the hour's tier is full now: the wait is the rest of the hour
    assert longer.status_code == 429 and int(longer.headers["Retry-After"]) > 60
    assert "minutes" in longer.get_data(as_text=True)
