"""The browser's verifier (kiosk/static/verify_fair.js, written from docs/fairness.md) and
``alley-poker verify`` (re-execution through the ledger) agree, in Chromium: on 1,000 generated
exports (both OK) and on every re-chained mutant of a varied night's exports.

The browser does not re-run the game's rules, but what it checks (docs/fairness.md section 11)
is enough for every mutant here: each verdict must agree, and a changed card or power must be
named at the same event by both.  The counts are reported."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from alley_poker.cli.season_demo import run_season
from alley_poker.service import open_service
from alley_poker.service.fair_export import match_export
from alley_poker.verifier.verify import verify_export
from tests.conftest import centre_app
from tests.fairness_corpus import mutants, varied_exports
from tests.web.conftest import serve

pytestmark = pytest.mark.slow

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
    app = centre_app(testing=True, secret_key="test", database_url="sqlite://")
    running = serve(app)
    page = module_browser.new_page()
    page.goto(f"{running.url}/verify")
    page.wait_for_function("window.AlleyFairVerify !== undefined")
    yield page
    page.close()
    running.stop()


@pytest.fixture(scope="module")
def exports():
    return varied_exports(1000, seed=0)


def test_both_verifiers_pass_1000_generated_exports(verify_page, exports, report):
    python = [verify_export(export) for export in exports]
    assert all(v.ok for v in python), next(str(v) for v in python if not v.ok)
    browser = browser_verdicts(verify_page, exports)
    refused = [(e["match_id"], v["text"]) for e, v in zip(exports, browser, strict=True)
               if not v["ok"]]
    assert not refused, refused[:3]
    report(f"browser and Python verifiers agree on {len(exports)} generated exports (all OK)")


def test_the_verifiers_agree_on_every_mutant(verify_page, report):
    # One match of each plan (undo, drain, void, correct, plain, ...): the first eight of the
    # corpus, made on their own (the corpus is deterministic), not the thousand of the test
    # above, which may run on another worker.
    night = varied_exports(8, seed=0)
    tried = [(what, kind, mutated) for export in night for what, kind, mutated in mutants(export)]
    python = [verify_export(mutated) for _, _, mutated in tried]
    browser = browser_verdicts(verify_page, [mutated for _, _, mutated in tried])
    tally: Counter = Counter()
    wrong = []
    for (what, kind, _), py, js in zip(tried, python, browser, strict=True):
        tally[kind] += 1
        if py.ok == js["ok"]:
            tally["agree"] += 1
            tally[f"{kind} agree"] += 1
            same = py.ok or py.seq == js["seq"]
            tally["same event" if same else "other event"] += 1
            if not same and kind in ("card", "power"):  # randomness and cards: to the event
                wrong.append((what, str(py), js["text"]))
        else:
            wrong.append((what, str(py), js["text"]))
    report(f"mutants: {len(tried)} tried; the browser's verdict agrees with Python's on "
           f"{tally['agree']} ({tally['same event']} of them naming the same event or both OK, "
           f"{tally['other event']} another event)")
    report("  by field kind, agreeing/tried: " + ", ".join(
        f"{kind} {tally[kind + ' agree']}/{tally[kind]}" for kind in sorted(
            {kind for _, kind, _ in tried})))
    assert not wrong, wrong[:5]


def test_the_browser_passes_every_match_of_a_league_night(verify_page, tmp_path, report):
    """Real nights, not only the corpus: three games, handicaps, the scorer's feed."""
    database = tmp_path / "league.sqlite3"
    # No seed: a seeded season deals from test generators (it repeats) and commits to nothing.
    assert not run_season(weeks=1, seed=None, database=database, echo=lambda line: None).unsettled
    service = open_service(f"sqlite:///{database}")
    try:
        exports = [match_export(service, match_id)
                   for match_id in service.repository.store.match_ids()]
    finally:
        service.repository.store.close()
    assert exports
    verdicts = browser_verdicts(verify_page, exports)
    assert all(v["ok"] for v in verdicts), [v["text"] for v in verdicts if not v["ok"]]
    report(f"browser verifier: OK for the {len(exports)} matches of a league night")
