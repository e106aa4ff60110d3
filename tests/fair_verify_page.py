"""The browser's verifier (kiosk/static/verify_fair.js) on a served ``/verify`` page, for the
tests that hold its verdicts against ``alley-poker verify``'s: the agreement tests
(tests/web/test_fair_verify_agreement.py) and the mutants' (tests/test_fair_mutants.py)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import centre_app
from tests.web.conftest import serve

#: Exports handed to the page in one ``evaluate``.
BATCH = 40


def browser_verdicts(page, exports: list[dict]) -> list[dict]:
    """The page's verdict on each export: one page load, batches of JSON texts."""
    found: list[dict] = []
    for start in range(0, len(exports), BATCH):
        texts = [json.dumps(export) for export in exports[start:start + BATCH]]
        found += page.evaluate("""async (texts) => {
            const out = [];
            for (const text of texts) {
                const v = await window.AlleyFairVerify.verifyText(text);
                out.push({ok: v.ok, seq: v.seq, text: v.text});
            }
            return out;
        }""", texts)
    return found


@pytest.fixture(scope="module")
def verify_page(module_browser):
    """A served centre's ``/verify`` page, its verifier loaded, for the module's tests."""
    app = centre_app(testing=True, secret_key="test", database_url="sqlite://")
    running = serve(app)
    page = module_browser.new_page()
    page.goto(f"{running.url}/verify")
    page.wait_for_function("window.AlleyFairVerify !== undefined")
    yield page
    page.close()
    running.stop()
