"""The browser's verifier (kiosk/static/verify_fair.js, written from docs/fairness.md) and
``alley-poker verify`` (re-execution through the ledger) agree, in Chromium: on 1,000 generated
exports (both OK) and on every match of a league night; on every re-chained mutant of a
varied night's exports in tests/test_fair_mutants.py, beside ``verify``'s own verdicts on
them.  The counts are reported."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from alley_poker.cli.season_demo import run_season
from alley_poker.service import open_service
from alley_poker.service.fair_export import match_export
from alley_poker.verifier.verify import verify_export
from tests.fair_verify_page import browser_verdicts, verify_page  # noqa: F401  (a fixture)
from tests.fairness_corpus import rechain, varied_exports

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


@pytest.mark.parametrize("rule", ["flag_or_full_rack", "flag_only", "full_rack"])
def test_both_verifiers_count_gutter_balls_by_the_house_rule(verify_page, rule):  # noqa: F811
    """The browser's verifier checks each ball's gutter mark against the house's
    ``gutter_detection`` (a hidden gutter ball would keep a card the bowler lost): under each
    rule, with the scorer flagging some balls of no pins "not a gutter", both pass the
    night, and both refuse it with a gutter mark turned over."""
    night = varied_exports(24, seed=7, gutter_detection=rule)
    marks = Counter((b["data"]["pins"], b["data"]["gutter"], b["data"]["gutter_ball"])
                    for export in night for b in export["events"]
                    if b["type"] == "ball_recorded" and b["data"]["pins"] == 0)
    assert len({gutter for _pins, gutter, _ball in marks}) == 3, marks  # True, False, None
    assert all(verify_export(export).ok for export in night)
    assert all(v["ok"] for v in browser_verdicts(verify_page, night))
    turned = [turn_a_gutter_mark(export) for export in night[:6]]
    python = [verify_export(export) for export in turned]
    browser = browser_verdicts(verify_page, turned)
    assert [(v.ok, v.seq) for v in python] == [(v["ok"], v["seq"]) for v in browser], (
        [str(v) for v in python], [v["text"] for v in browser])
    assert not any(v.ok for v in python)


def turn_a_gutter_mark(export: dict) -> dict:
    """``export`` with its first 0-pin ball's gutter mark turned over, re-chained."""
    events = copy.deepcopy(export["events"])
    ball = next(e for e in events if e["type"] == "ball_recorded" and e["data"]["pins"] == 0)
    ball["data"]["gutter_ball"] = not ball["data"]["gutter_ball"]
    return rechain(dict(export, events=events))
