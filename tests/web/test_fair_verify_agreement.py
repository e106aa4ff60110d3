"""The browser's verifier (kiosk/static/fair_verify.js, written from docs/fairness.md) and
``alley-poker verify`` (re-execution through the ledger) agree, in Chromium: on 1,000 generated
exports (both OK) and on every re-chained mutant of a varied night's exports.

The browser cannot re-run the game's rules (which ball earns which card, who must decide,
who wins), so a mutant the rules alone refuse (a ball's pins, a decision's bowler, ...) passes
in the browser: those fields are listed in RULES_ONLY, and every disagreement must be one of
them, never a card, a shuffle, a seed or the chain.  The counts are reported."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from alley_poker.fairness.verify import verify_export
from alley_poker.web import create_app
from tests.fairness_corpus import mutants, varied_exports
from tests.web.conftest import serve

pytestmark = pytest.mark.slow

#: (event type, field) whose change only the rules can refuse: the browser checks where every
#: card goes and the money, not which ball or ruling caused it.
RULES_ONLY = {
    ("ball_recorded", "pins"), ("ball_recorded", "bowler"), ("ball_corrected", "balls[0].pins"),
    ("ball_corrected", "bowler"), ("review_raised", "bowler"), ("match_ending", "lowest"),
    ("decision_opened", "bowler"), ("decision_closed", "bowler"), ("guess_made", "bowler"),
    ("guess_resolved", "bowler"), ("guess_voided", "bowler"), ("hole_deepened", "bowler"),
    ("hole_paid_off", "bowler"), ("draw_skipped", "bowler"), ("consent_recorded", "bowler"),
    ("card_drawn", "bowler"), ("card_taken", "bowler"), ("card_taken", "from_bowler"),
    ("card_taken", "card"), ("card_returned", "card"), ("card_returned", "bowler"),
    ("buy_paid", "bowler"), ("buy_paid", "cents"), ("automatic_win", "bowler"),
    ("automatic_win", "card"), ("match_created", "bowlers"), ("showdown", "winners"),
    ("showdown", "shares"), ("payout", "bowler"), ("holland_daze", "bowler"),
}
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
def verify_page(browser_module):
    app = create_app({"TESTING": True, "SECRET_KEY": "test", "DATABASE_URL": "sqlite://"})
    running = serve(app)
    page = browser_module.new_page()
    page.goto(f"{running.url}/verify")
    page.wait_for_function("window.AlleyFairVerify !== undefined")
    yield page
    page.close()
    running.stop()


@pytest.fixture(scope="module")
def browser_module():
    from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


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


def test_the_verifiers_agree_on_every_mutant_but_the_rules_only_fields(verify_page, exports,
                                                                        report):
    night = exports[:8]  # one match of each plan: undo, drain, void, correct, plain, ...
    tried = [(what, kind, mutated) for export in night for what, kind, mutated in mutants(export)]
    python = [verify_export(mutated) for _, _, mutated in tried]
    browser = browser_verdicts(verify_page, [mutated for _, _, mutated in tried])
    tally: Counter = Counter()
    wrong = []
    for (what, kind, _), py, js in zip(tried, python, browser, strict=True):
        field = (what.split("(", 1)[1].split(")")[0], what.rsplit(" ", 1)[1])
        if py.ok == js["ok"]:
            tally["agree"] += 1
            tally["same event" if py.ok or py.seq == js["seq"] else "other event"] += 1
        elif not py.ok and field in RULES_ONLY:
            tally[f"rules only: {field[0]}.{field[1]}"] += 1
        else:
            wrong.append((what, str(py), js["text"]))
    report(f"mutants: {len(tried)} tried; browser agrees with Python on {tally['agree']} "
           f"({tally['same event']} naming the same event or both OK); "
           f"{len(tried) - tally['agree'] - len(wrong)} refused by the rules only")
    for key, count in sorted(tally.items()):
        if key.startswith("rules only"):
            report(f"  {key}: {count}")
    assert not wrong, wrong[:5]
