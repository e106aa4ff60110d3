"""Hostile bodies sent to the API: malformed, deeply nested, oversized, wrongly typed.

Each is refused with the standard error JSON (never a 500) and leaves the ledger as it was.
"""

from __future__ import annotations

import socket

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alley_poker.web.plain_words import FIELD_WORDS
from alley_poker.web.schemas import COMMAND_BODIES
from tests.web.conftest import signed_in_client

RECORD_BALL = "/api/v1/matches/m1/commands/record-ball"


def _post_raw(client, csrf, url, data: bytes | str):
    return client.post(url, data=data, content_type="application/json",
                       headers={"X-CSRFToken": csrf})


@pytest.mark.parametrize("body", [
    "[" * 50_000,
    '{"a":' * 10_000,
    "[" * 30_000 + "]" * 30_000,
    '{"bowler": "Ann", "pins": ',
    "not json at all",
    "\x00\xff\xfe",
], ids=["50k-brackets", "10k-objects", "balanced-30k", "cut-short", "not-json", "binary"])
def test_a_malformed_or_deeply_nested_body_is_a_400_with_the_error_json(app, service, body):
    client, csrf = signed_in_client(app)
    seq = service.state("m1").seq
    answer = _post_raw(client, csrf, RECORD_BALL, body)
    assert answer.status_code == 400, answer.get_data(as_text=True)[:300]
    error = answer.get_json()["error"]
    assert error["code"] == "bad_request" and error["message"]
    assert service.state("m1").seq == seq


def test_deep_nesting_is_refused_on_every_body_route(app, service):
    client, csrf = signed_in_client(app)
    for url in ("/api/v1/matches", "/api/v1/matches/m1/lanes", "/api/v1/tokens",
                "/api/v1/matches/m1/commands/undo-last"):
        method = client.put if url.endswith("/lanes") else client.post
        answer = method(url, data="[" * 50_000, content_type="application/json",
                        headers={"X-CSRFToken": csrf})
        assert answer.status_code == 400, (url, answer.status_code)
        assert answer.get_json()["error"]["code"] == "bad_request"


def test_a_body_over_64_kb_is_a_413_with_the_error_json(app, service):
    client, csrf = signed_in_client(app)
    seq = service.state("m1").seq
    padded = '{"bowler": "Ann", "pins": 7, "reason": "' + "x" * (70 * 1024) + '"}'
    answer = _post_raw(client, csrf, RECORD_BALL, padded)
    assert answer.status_code == 413
    error = answer.get_json()["error"]
    assert error["code"] == "body_too_large" and "64 KB" in error["message"]
    assert service.state("m1").seq == seq


def test_a_300_mb_body_is_answered_413_before_it_is_sent(app, live_server):
    """Over a real socket: the headers announce 300 MB, and the answer comes back at once,
    with no byte of the body sent."""
    client, csrf = signed_in_client(app)
    cookie = client.get_cookie("session").value
    request = (f"POST {RECORD_BALL} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"Content-Type: application/json\r\nContent-Length: {300 * 1024 * 1024}\r\n"
               f"X-CSRFToken: {csrf}\r\nCookie: session={cookie}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", live_server.server.server_port),
                                  timeout=5) as conn:
        conn.sendall(request.encode())
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += conn.recv(4096)
    status_line = reply.split(b"\r\n", 1)[0]
    assert b" 413 " in status_line, reply[:300]
    assert b"application/json" in reply.lower()


@pytest.mark.parametrize("kind, body, field", [
    ("record-ball", {"bowler": "Ann", "pins": True}, "pins"),
    ("record-ball", {"bowler": "Ann", "pins": "7"}, "pins"),
    ("record-ball", {"bowler": "Ann", "pins": 7.0}, "pins"),
    ("record-ball", {"bowler": "Ann", "pins": 7, "game": "1"}, "game"),
    ("record-ball", {"bowler": "Ann", "pins": 7, "standing": [True, 2, 3]}, "standing.0"),
    ("record-ball", {"bowler": "Ann", "pins": 7, "foul": "false"}, "foul"),
    ("record-ball", {"bowler": "Ann", "pins": 7, "foul": 0}, "foul"),
    ("correct-ball", {"bowler": "Ann", "game": 1, "frame": 1.0, "ball": 1, "pins": 3},
     "frame"),
    ("correct-ball", {"bowler": "Ann", "game": 1, "frame": 1, "ball": True, "pins": 3},
     "ball"),
    ("buy", {"bowler": "Ann", "accept": "yes"}, "accept"),
    ("end-draw", {"bowler": "Ann", "accept": 1}, "accept"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 16 else None)
def test_a_loosely_typed_command_field_is_refused_naming_the_field(app, service, kind, body,
                                                                  field):
    client, csrf = signed_in_client(app)
    seq = service.state("m1").seq
    answer = client.post(f"/api/v1/matches/m1/commands/{kind}", json=body,
                         headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422, answer.get_json()
    error = answer.get_json()["error"]
    # The message names the field as the desk does ("Foul must be yes or no ...").
    words = FIELD_WORDS.get(field.split(".")[0], field)
    assert error["field"] == field and words.lower() in error["message"].lower(), error
    assert service.state("m1").seq == seq


@pytest.mark.parametrize("change, field", [
    ({"games": "1"}, "games"),
    ({"games": True}, "games"),
    ({"ante_cents": 150.0}, "ante_cents"),
    ({"ante_cents": "150"}, "ante_cents"),
    ({"slots": [{"lane": "3", "slot": 1, "bowler": "Cy"}]}, "slots.0.lane"),
    ({"slots": [{"lane": 3, "slot": True, "bowler": "Cy"}]}, "slots.0.slot"),
])
def test_a_loosely_typed_new_match_is_refused_and_claims_no_lanes(app, service, change, field):
    client, csrf = signed_in_client(app)
    body = {"match_id": "m2", "games": 1, "ante_cents": 150,
            "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"}]} | change
    answer = client.post("/api/v1/matches", json=body, headers={"X-CSRFToken": csrf})
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["error"]["field"] == field
    assert service.state("m2").status == "new" and service.lanes.bowler_at(3, 1) is None


# --- a fuzz run of hand-made hostile bodies over every body route ---------------------------
HOSTILE_TEXT = st.sampled_from([
    "Ann\x00", "\x1b[2J", "Ann\u202eeoJ", "A\u200bnn", "\ufeff", "<img src=x onerror=alert(1)>",
    "x" * 5000, "\ud7ff", "𝔸𝕟𝕟", "Ann", "", " ", "7", "1e308", "NaN"])
HOSTILE_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
              st.floats(allow_nan=False), HOSTILE_TEXT),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(HOSTILE_TEXT, children, max_size=4)),
    max_leaves=12)
FIELDS = ["bowler", "pins", "game", "frame", "ball", "standing", "foul", "accept", "card",
          "side", "from_bowler", "reason", "expected_seq", "match_id", "slots", "games",
          "ante_cents", "name", "code", "action", "review_id", "seat_order", "rules"]


def body_routes() -> list[tuple[str, str]]:
    return [*(("POST", f"/api/v1/matches/m1/commands/{kind}") for kind in COMMAND_BODIES),
            ("POST", "/api/v1/matches"), ("PUT", "/api/v1/matches/m1/lanes"),
            ("POST", "/api/v1/tokens"), ("POST", "/api/v1/kiosks/pair"),
            ("POST", "/api/v1/held/1/apply"), ("POST", "/api/v1/held/1/discard"),
            ("POST", "/api/v1/matches/m1/resync")]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(route=st.sampled_from(body_routes()),
       body=st.one_of(st.dictionaries(st.sampled_from(FIELDS), HOSTILE_VALUE, max_size=6),
                      HOSTILE_VALUE))
@pytest.mark.slow
def test_hostile_bodies_never_answer_5xx_and_a_refusal_changes_nothing(app, service, route,
                                                                       body):
    client, csrf = _fuzz_client(app)
    method, url = route
    before = (service.state("m1"), service.lanes.assignment("m1"))
    answer = client.open(url, method=method, json=body, headers={"X-CSRFToken": csrf})
    assert answer.status_code < 500, (url, body, answer.get_data(as_text=True)[:300])
    if answer.status_code >= 400:
        assert set(answer.get_json()["error"]) == {"code", "message", "field"}
        assert (service.state("m1"), service.lanes.assignment("m1")) == before, (url, body)


_CLIENTS: dict[int, tuple] = {}


def _fuzz_client(app):
    """One signed-in client per app (hypothesis reruns the test body with the same app)."""
    if id(app) not in _CLIENTS:
        _CLIENTS.clear()
        _CLIENTS[id(app)] = signed_in_client(app)
    return _CLIENTS[id(app)]
