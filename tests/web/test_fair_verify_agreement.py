"""The browser's verifier (kiosk/static/verify_fair.js, written from docs/fairness.md) and
``alley-poker verify`` (re-execution through the ledger) agree, in Chromium: on 1,000 generated
exports (both OK) and on every match of a league night; on every re-chained mutant of a
varied night's exports in tests/test_fair_mutants.py, beside ``verify``'s own verdicts on
them.  The counts are reported."""

from __future__ import annotations

import pytest

from alley_poker.cli.season_demo import run_season
from alley_poker.service import open_service
from alley_poker.service.fair_export import match_export
from alley_poker.verifier.verify import verify_export
from tests.fair_verify_page import browser_verdicts, verify_page  # noqa: F401  (a fixture)
from tests.fairness_corpus import varied_exports

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def exports():
    return varied_exports(1000, seed=0)


def test_both_verifiers_pass_1000_generated_exports(verify_page, exports, report):  # noqa: F811
    python = [verify_export(export) for export in exports]
    assert all(v.ok for v in python), next(str(v) for v in python if not v.ok)
    browser = browser_verdicts(verify_page, exports)
    refused = [(e["match_id"], v["text"]) for e, v in zip(exports, browser, strict=True)
               if not v["ok"]]
    assert not refused, refused[:3]
    report(f"browser and Python verifiers agree on {len(exports)} generated exports (all OK)")


def test_the_browser_passes_every_match_of_a_league_night(verify_page, tmp_path, report):  # noqa: F811
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
