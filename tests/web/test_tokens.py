"""API tokens: made on the signed-in tablet, shown once, kept only as a hash, revocable,
and good only for their own centre."""

from __future__ import annotations

import hashlib

import sqlalchemy as sa

from tests.conftest import centre_app
from tests.web.conftest import PIN, signed_in_client


def make_token(app, name="league office"):
    client, csrf = signed_in_client(app)
    answer = client.post("/api/v1/tokens", json={"name": name}, headers={"X-CSRFToken": csrf})
    assert answer.status_code == 201, answer.get_json()
    return client, csrf, answer.get_json()


def bearer(secret):
    return {"Authorization": f"Bearer {secret}"}


def test_a_token_is_shown_once_and_only_its_hash_is_stored(app, service):
    client, _csrf, made = make_token(app)
    assert set(made) == {"id", "name", "token"} and made["name"] == "league office"
    listed = client.get("/api/v1/tokens").get_json()["tokens"]
    assert [(t["id"], t["name"], t["revoked_at"]) for t in listed] == [
        (made["id"], "league office", None)]
    assert made["token"] not in client.get("/api/v1/tokens").get_data(as_text=True)
    with service.repository.store.engine.connect() as connection:
        stored = connection.execute(sa.text("SELECT token_hash FROM api_tokens")).scalars().all()
    assert stored == [hashlib.sha256(made["token"].encode()).hexdigest()]


def test_a_token_runs_commands_without_a_csrf_token_and_is_named_in_the_audit(app, service):
    _client, _csrf, made = make_token(app)
    caller = app.test_client()  # no session cookie at all
    answer = caller.post("/api/v1/matches/m1/commands/record-ball", headers=bearer(made["token"]),
                         json={"bowler": "Ann", "pins": 10})
    assert answer.status_code == 200, answer.get_json()
    assert len(service.state("m1").hands["Ann"]) == 3
    audit = caller.get("/api/v1/audit?type=ball_recorded", headers=bearer(made["token"]))
    assert [e["actor"] for e in audit.get_json()["entries"]] == [f"commissioner:token-{made['id']}"]


def test_a_bad_or_revoked_token_is_refused_with_401_and_changes_nothing(app, service):
    client, csrf, made = make_token(app)
    seq = service.state("m1").seq
    caller = app.test_client()
    for secret in ("not-a-token", made["token"] + "x", ""):
        answer = caller.post("/api/v1/matches/m1/commands/record-ball", headers=bearer(secret),
                             json={"bowler": "Ann", "pins": 10})
        assert answer.status_code == 401, secret
        assert answer.get_json()["error"]["field"] == "Authorization"
    assert client.delete(f"/api/v1/tokens/{made['id']}",
                         headers={"X-CSRFToken": csrf}).status_code == 204
    revoked = caller.post("/api/v1/matches/m1/commands/record-ball",
                          headers=bearer(made["token"]), json={"bowler": "Ann", "pins": 10})
    assert revoked.status_code == 401 and revoked.get_json()["error"]["code"] == "bad_token"
    assert caller.get("/api/v1/settlement", headers=bearer(made["token"])).status_code == 401
    assert service.state("m1").seq == seq
    listed = client.get("/api/v1/tokens").get_json()["tokens"]
    assert listed[0]["revoked_at"] is not None
    again = client.delete(f"/api/v1/tokens/{made['id']}", headers={"X-CSRFToken": csrf})
    assert again.status_code == 404


def test_a_token_of_another_centre_is_refused(app, service):
    _client, _csrf, made = make_token(app)
    other_centre = centre_app(service, testing=True, pin=PIN, secret_key="s",
                              centre_id="riverside")
    answer = other_centre.test_client().post(
        "/api/v1/matches/m1/commands/record-ball", headers=bearer(made["token"]),
        json={"bowler": "Ann", "pins": 10})
    assert answer.status_code == 401


def test_a_session_of_another_centre_is_not_the_commissioner_here(app, service):
    client, csrf = signed_in_client(app)
    other_centre = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                              centre_id="riverside")
    # The same signed cookie (same secret key) presented to the other centre's app.
    stranger = other_centre.test_client()
    stranger.set_cookie("session", client.get_cookie("session").value)
    answer = stranger.post("/api/v1/matches/m1/commands/record-ball",
                           headers={"X-CSRFToken": csrf}, json={"bowler": "Ann", "pins": 10})
    assert answer.status_code == 401
    assert stranger.get("/api/v1/settlement").status_code == 401


def test_tokens_are_managed_by_the_tablet_not_by_a_token(app):
    _client, _csrf, made = make_token(app)
    caller = app.test_client()
    for method, url in (("GET", "/api/v1/tokens"), ("POST", "/api/v1/tokens"),
                        ("DELETE", f"/api/v1/tokens/{made['id']}")):
        answer = caller.open(url, method=method, headers=bearer(made["token"]),
                             json={"name": "escalated"})
        assert answer.status_code == 403, (method, url)
        assert answer.get_json()["error"]["code"] == "tablet_required"


def test_token_names_are_validated(app):
    client, csrf = signed_in_client(app)
    for body in ({"name": ""}, {"name": "   "}, {"name": "x" * 101}, {}, {"name": "a", "b": 1}):
        answer = client.post("/api/v1/tokens", json=body, headers={"X-CSRFToken": csrf})
        assert answer.status_code == 422, body
    assert client.get("/api/v1/tokens").get_json() == {"tokens": []}
