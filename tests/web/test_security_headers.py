"""The security headers on every answer, and the access log without a bowler's token.

The route walk reads the app's URL map, so a page added later cannot ship without the
headers.  That the pages still work under the policy is the browser tests' job: every one of
them fails on a violation (tests/csp_watch.py); test_security_headers_browser.py shows the
policy is enforced.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
import urllib.request
from pathlib import Path
from urllib.error import HTTPError

import pytest

from alley_poker.web.access_log import AccessLog
from benchmarks._service_process import ServiceProcess, write_config
from tests.web.conftest import signed_in_client
from tests.web.test_phone import mint, path_of
from tests.web.test_security import SAMPLE_ARGUMENTS

EXPECTED = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"}
#: The phone's pages are stricter still (web.phone_pages): no Referer at all.
REFERRER_POLICIES = {"same-origin", "no-referrer"}
DIRECTIVES = {"default-src 'self'", "script-src 'self'", "style-src 'self'",
              "frame-ancestors 'none'", "base-uri 'self'", "form-action 'self'",
              "object-src 'none'"}


def get_urls(app) -> list[str]:
    """A URL for every route that answers GET (sample arguments filled in)."""
    urls = []
    for rule in app.url_map.iter_rules():
        if "GET" in rule.methods:
            urls.append(rule.build({name: SAMPLE_ARGUMENTS[name]
                                    for name in rule.arguments})[1])
    return sorted(urls)


def assert_secured(answer, url: str) -> None:
    for name, value in EXPECTED.items():
        assert answer.headers.get(name) == value, (url, name, answer.status_code)
    assert answer.headers.get("Referrer-Policy") in REFERRER_POLICIES, url
    policy = set(answer.headers.get("Content-Security-Policy", "").split("; "))
    assert policy >= DIRECTIVES, (url, policy)
    assert "connect-src 'self' ws://localhost wss://localhost" in policy, (url, policy)
    assert not any("unsafe" in directive for directive in policy), (url, policy)


def test_every_get_route_answers_with_the_security_headers(app):
    urls = get_urls(app)
    assert {"/kiosk/<lanes>".replace("<lanes>", "1-2"), "/commissioner", "/phone", "/verify",
            "/service-worker.js", "/static/shared_base.css", "/api/v1/matches"} <= set(urls)
    anonymous = app.test_client()
    tablet, _csrf = signed_in_client(app)
    for url in urls:
        for client in (anonymous, tablet):  # a refusal and a page both carry them
            assert_secured(client.get(url), url)


def test_errors_and_refusals_carry_them_too(app):
    client = app.test_client()
    for answer, url in ((client.get("/no/such/page"), "404"),
                        (client.post("/api/v1/matches/m1/commands/record-ball"), "403")):
        assert answer.status_code == int(url)
        assert_secured(answer, url)


def test_the_phone_keeps_its_stricter_referrer_policy(app):
    """/p/<token> says no-referrer: not even this centre's own pages get the token."""
    code = mint(app)
    opened = app.test_client().get(path_of(code["url"]))
    assert opened.status_code == 303
    assert opened.headers["Referrer-Policy"] == "no-referrer"
    assert "script-src 'self'" in opened.headers["Content-Security-Policy"]


def test_a_hostile_host_header_cannot_write_into_the_policy(app):
    answer = app.test_client().get("/verify", headers={"Host": "evil;script-src *"})
    policy = answer.headers["Content-Security-Policy"]
    assert "script-src *" not in policy and policy.endswith("connect-src 'self'")


# --- the access log ----------------------------------------------------------------------------
def access_lines(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "alley_poker.access"]


def test_each_request_is_one_line_with_status_bytes_time_and_address(app, caplog):
    client = app.test_client()
    with caplog.at_level(logging.INFO, logger="alley_poker.access"):
        # buffered: the test client reads the whole answer (as a server does) and closes it.
        page = client.get("/kiosk/1-2?theme=dark", environ_base={"REMOTE_ADDR": "203.0.113.7"},
                          buffered=True)
        client.get("/no/such/page", buffered=True)
    first, second = access_lines(caplog)
    line = re.fullmatch(r'(\S+) "(GET \S+)" (\d{3}) (\d+) B (\d+\.\d) ms', first)
    assert line is not None, first
    address, request, status, size, _took = line.groups()
    assert (address, request, status, int(size)) == (
        "203.0.113.7", "GET /kiosk/1-2?theme=dark", "200", len(page.data))
    assert '"GET /no/such/page" 404' in second


def test_a_phone_token_reaches_no_log_line(app, caplog):
    """The token in /p/…, in a query and Engine.IO's session id are all rewritten, in the
    access log and in any other line that quotes the URL."""
    token = mint(app)["url"].rsplit("/", 1)[1]
    sid = secrets.token_urlsafe(16)
    client = app.test_client()
    with caplog.at_level(logging.DEBUG):
        assert client.get(f"/p/{token}", buffered=True).status_code == 303
        # Spent, on another phone: its page, also logged.
        assert app.test_client().get(f"/p/{token}", buffered=True).status_code == 410
        client.get(f"/socket.io/?EIO=4&transport=polling&sid={sid}", buffered=True)
        client.get(f"/verify?match=m1&token={token}", buffered=True)
    lines = [record.getMessage() for record in caplog.records]
    access = access_lines(caplog)
    assert [line.split('"')[1] for line in access] == [
        "GET /p/[token]", "GET /p/[token]",
        "GET /socket.io/?EIO=4&transport=polling&sid=[redacted]",
        "GET /verify?match=m1&token=[redacted]"], access
    assert not any(token in line for line in lines), lines
    # (Engine.IO itself names an unknown session id, "Invalid session …": nobody's secret.)
    assert not any(sid in line for line in access), access


def test_a_websocket_is_logged_when_it_closes_and_an_exception_as_500(caplog):
    def websocket(environ, start_response):
        raise StopIteration  # how simple-websocket ends a closed WebSocket on gunicorn

    def broken(environ, start_response):
        raise RuntimeError("boom")

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/socket.io/", "REMOTE_ADDR": "10.0.0.5",
               "QUERY_STRING": "EIO=4&transport=websocket", "HTTP_UPGRADE": "websocket"}
    with caplog.at_level(logging.INFO, logger="alley_poker.access"):
        with pytest.raises(StopIteration):
            AccessLog(websocket)(environ, lambda *args: None)
        with pytest.raises(RuntimeError):
            AccessLog(broken)(environ | {"HTTP_UPGRADE": ""}, lambda *args: None)
    opened, failed = access_lines(caplog)
    assert '"GET /socket.io/?EIO=4&transport=websocket" 101 0 B' in opened
    assert " 500 0 B" in failed


@pytest.mark.slow
def test_the_production_server_logs_each_request_without_the_token(tmp_path: Path):
    """``serve`` on gunicorn, as ``init`` sets it up: the lines are in its output (the
    journal), the token in none of them, and the answers carry the headers."""
    config = write_config(tmp_path / "alley.toml", lanes=2,
                          database_url=f"sqlite:///{tmp_path / 'alley.sqlite3'}")
    token = secrets.token_urlsafe(24)
    with ServiceProcess(config, tmp_path) as served:
        served.wait_serving(timeout=60)
        with pytest.raises(HTTPError) as unknown:
            urllib.request.urlopen(f"{served.base_url}/p/{token}", timeout=10)
        assert unknown.value.code == 404  # the "not known" page, logged all the same
        assert "script-src 'self'" in unknown.value.headers["Content-Security-Policy"]
        with urllib.request.urlopen(f"{served.base_url}/kiosk/1-2", timeout=10) as kiosk:
            assert kiosk.headers["X-Frame-Options"] == "DENY"
            size = len(kiosk.read())
        deadline = time.monotonic() + 20  # the line follows the answer's last byte
        while time.monotonic() < deadline:
            output = list(served._output)
            if any('"GET /kiosk/1-2" 200' in line for line in output):
                break
            time.sleep(0.05)
    access = [line for line in output if "alley_poker.access" in line]
    assert any('"GET /p/[token]" 404' in line for line in access), output
    assert any(f'"GET /kiosk/1-2" 200 {size} B' in line for line in access), access
    assert not any(token in line for line in output)
