"""schemathesis (v4) against the published OpenAPI document: no 500s, conforming answers.

The run is signed in (session cookie + CSRF header), so commands, tokens, settlement and
audit are exercised past the auth check against a real service over a tmp SQLite ledger with a
started match ``m1``.  Every operation gets generated and boundary-value bodies, paths and
query strings; each answer must be a documented status with a documented content type whose
body fits the documented schema.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import centre_app
from tests.web.conftest import PIN, open_service, signed_in_client, start_match

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory):
    service = open_service(tmp_path_factory.mktemp("schemathesis") / "ledger.sqlite3")
    start_match(service)
    return centre_app(service, testing=True, pin=PIN, secret_key="schemathesis", lanes=4)


@pytest.fixture(scope="module")
def api_schema(fuzzed_app):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", fuzzed_app)


@pytest.fixture(scope="module")
def credentials(fuzzed_app):
    """The tablet's session cookie and CSRF header, and an API token made with them."""
    client, csrf = signed_in_client(fuzzed_app)
    made = client.post("/api/v1/tokens", json={"name": "schemathesis"},
                       headers={"X-CSRFToken": csrf})
    assert made.status_code == 201, made.get_json()
    return ({"session": client.get_cookie("session").value}, {"X-CSRFToken": csrf},
            {"Authorization": f"Bearer {made.get_json()['token']}"})


schema = schemathesis.pytest.from_fixture("api_schema")


# ~30-45 s for the 40 operations (every generated command is a real, fsynced ledger write).
@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_the_api_answers_every_generated_request_as_documented(case, credentials):
    cookies, csrf, token = credentials
    # Real credentials instead of generated ones: tokens are managed by the signed-in tablet
    # (session + CSRF), everything else is called with the API token.
    headers = {name: value for name, value in (case.headers or {}).items()
               if name.lower() not in ("authorization", "x-csrftoken")}
    headers.update(csrf if case.path.startswith("/api/v1/tokens") else token)
    case.headers = headers
    case.cookies = {}
    case.call_and_validate(cookies=cookies, checks=CHECKS)
