"""Every state-changing route refuses an anonymous caller and a request without a CSRF token.

The tests walk the app's URL map, so a route added later cannot slip through unchecked.
"""

from __future__ import annotations

import time

import pytest

from alley_poker.web.centre_access import centre_of
from alley_poker.web.schemas import COMMAND_BODIES
from tests.conftest import centre_app
from tests.web.conftest import PIN, csrf_token_from, signed_in_client

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
SAMPLE_ARGUMENTS = {"match_id": "m1", "kind": "record-ball", "lane_pair": "1-2",
                    "filename": "shared_base.css", "token_id": 1, "item_id": 1,
                    "device_id": 1, "league_id": "tue", "bowler_id": 1, "request_id": 1,
                    "night_date": "2026-11-24", "link_id": 1, "token": "not-a-token",
                    "game": "hdcp", "night_id": "tue-2026-11-24"}


def state_changing_requests(app):
    """(method, url) for every state-changing method of every route (every command kind)."""
    found = []
    for rule in app.url_map.iter_rules():
        kinds = COMMAND_BODIES if "kind" in rule.arguments else [SAMPLE_ARGUMENTS["kind"]]
        for kind in kinds:
            arguments = {name: SAMPLE_ARGUMENTS[name] for name in rule.arguments}
            url = rule.build(arguments | ({"kind": kind} if "kind" in arguments else {}))[1]
            found += [(method, url) for method in sorted(rule.methods & STATE_CHANGING)]
    return found


def test_the_walk_finds_the_known_state_changing_routes(app):
    urls = {url for _, url in state_changing_requests(app)}
    assert {"/commissioner/sign-in", "/commissioner/sign-out",
            "/api/v1/matches/m1/commands/record-ball"} <= urls


def test_every_state_changing_route_refuses_an_anonymous_caller(app, service):
    client = app.test_client()
    token = csrf_token_from(client.get("/commissioner").get_data(as_text=True))
    seq = service.state("m1").seq
    for method, url in state_changing_requests(app):
        answer = client.open(url, method=method, headers={"X-CSRFToken": token},
                             json={"bowler": "Ann", "pins": 10, "pin": "0000"})
        assert answer.status_code == 401, (method, url, answer.status_code)
    assert service.state("m1").seq == seq


def test_every_state_changing_route_refuses_a_missing_csrf_token(app, service):
    client, _token = signed_in_client(app)
    seq = service.state("m1").seq
    for method, url in state_changing_requests(app):
        answer = client.open(url, method=method, json={"bowler": "Ann", "pins": 10},
                             data=None)
        assert answer.status_code == 403, (method, url, answer.status_code)
        assert answer.get_json()["error"]["code"] == "csrf_failed"
        wrong = client.open(url, method=method, headers={"X-CSRFToken": "forged"},
                            json={"bowler": "Ann", "pins": 10})
        assert wrong.status_code == 403, (method, url)
    assert service.state("m1").seq == seq


def test_session_cookie_is_httponly_and_samesite_lax(app):
    client = app.test_client()
    token = csrf_token_from(client.get("/commissioner").get_data(as_text=True))
    answer = client.post("/commissioner/sign-in", data={"pin": PIN, "csrf_token": token})
    cookie = answer.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert PIN not in cookie


def test_the_pin_is_kept_only_as_a_password_hash(app):
    commissioner = centre_of(app).config.commissioner
    stored = commissioner.pin_hash
    assert stored.startswith("scrypt:") and PIN not in stored
    assert commissioner.model_dump() == {"pin_hash": stored}  # the PIN itself is not kept
    assert "COMMISSIONER_PIN" not in app.config


def test_a_wrong_pin_is_refused_and_attempts_are_rate_limited(app):
    client = app.test_client()
    token = csrf_token_from(client.get("/commissioner").get_data(as_text=True))
    statuses = [client.post("/commissioner/sign-in",
                            data={"pin": "1111", "csrf_token": token}).status_code
                for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    # Even the right PIN waits out the limit: guessing cannot be sped up.
    answer = client.post("/commissioner/sign-in", data={"pin": PIN, "csrf_token": token})
    assert answer.status_code == 429
    refused = client.post("/api/v1/matches/m1/commands/record-ball",
                          json={"bowler": "Ann", "pins": 10}, headers={"X-CSRFToken": token})
    assert refused.status_code == 401


@pytest.mark.parametrize("path", ["/kiosk/1-2", "/commissioner"])
def test_pages_load_without_signing_in(app, path):
    assert app.test_client().get(path).status_code == 200


def test_the_signed_in_dashboard_lists_every_match(app):
    client, _token = signed_in_client(app)
    page = client.get("/commissioner").get_data(as_text=True)
    assert 'data-match="m1"' in page and "Ann, Bob" in page and "$2.00" in page
    assert "Sign out" in page


def _revoked_and_foreign_tokens(app, service):
    from alley_poker.store.api_tokens import ApiTokenStore

    client, csrf = signed_in_client(app)
    made = client.post("/api/v1/tokens", json={"name": "soon revoked"},
                       headers={"X-CSRFToken": csrf}).get_json()
    client.delete(f"/api/v1/tokens/{made['id']}", headers={"X-CSRFToken": csrf})
    foreign = ApiTokenStore(service.repository.store.engine, centre="riverside").create("theirs")
    return {"bad": "guessed-token", "revoked": made["token"], "other centre": foreign.secret}


def test_every_api_route_refuses_a_bad_revoked_or_foreign_token(app, service):
    tokens = _revoked_and_foreign_tokens(app, service)
    caller = app.test_client()
    seq = service.state("m1").seq
    api_routes = [(method, url) for method, url in state_changing_requests(app)
                  if url.startswith("/api/")]
    api_routes += [("GET", "/api/v1/settlement"), ("GET", "/api/v1/audit.csv")]
    assert len(api_routes) >= 25
    for label, secret in tokens.items():
        for method, url in api_routes:
            answer = caller.open(url, method=method, json={"bowler": "Ann", "pins": 10},
                                 headers={"Authorization": f"Bearer {secret}"})
            assert answer.status_code == 401, (label, method, url, answer.status_code)
    assert service.state("m1").seq == seq


def test_money_and_the_audit_are_not_for_the_settee(app):
    client = app.test_client()
    for url in ("/api/v1/settlement", "/api/v1/settlement.csv", "/api/v1/audit",
                "/api/v1/audit.csv", "/api/v1/tokens"):
        answer = client.get(url)
        assert answer.status_code == 401, url
        assert answer.get_json()["error"]["code"] == "sign_in_required"


@pytest.mark.slow
def test_wrong_pins_wait_longer_and_longer_per_device_under_a_cap_per_address(service):
    """The staircase of per-device limits grows the wait; fresh devices hit the address cap."""
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     sign_in={"per_device": "2 per 2 seconds; 3 per minute",
                              "per_address": "5 per minute"})

    def device():
        client = app.test_client()
        return client, csrf_token_from(client.get("/commissioner").get_data(as_text=True))

    def attempt(client, token, pin="1111"):
        return client.post("/commissioner/sign-in", data={"pin": pin, "csrf_token": token})

    guesser, token = device()
    assert [attempt(guesser, token).status_code for _ in range(2)] == [401, 401]
    slowed = attempt(guesser, token)
    assert slowed.status_code == 429 and int(slowed.headers["Retry-After"]) <= 3
    assert "Try again in" in slowed.get_data(as_text=True)
    time.sleep(2.1)
    assert attempt(guesser, token).status_code == 401
    longer = attempt(guesser, token)  # the third wrong PIN: now the minute-long wait
    assert longer.status_code == 429 and int(longer.headers["Retry-After"]) > 30

    # Another device at the same address is not locked out by the guesser...
    desk, desk_token = device()
    assert attempt(desk, desk_token, PIN).status_code == 302
    # ...but a script that takes a fresh device cookie per guess meets the address cap.
    statuses = [attempt(*device()).status_code for _ in range(3)]
    assert statuses == [401, 401, 429]
    capped = attempt(*device())
    assert "from this network" in capped.get_data(as_text=True)
