"""``/verify`` in Chromium on a bracket night's export (kiosk/static/verify_side_games.js): the
demo's league night checks by its night id and pasted; a re-ordered draw and a changed payout are
refused, naming what is wrong; and on the same exports the browser's verdict is
``alley-poker verify``'s (``verify_side_export``)."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from alley_poker.cli.demo_side_night import run_side_night_demo
from alley_poker.cli.root import main
from alley_poker.service import open_service
from alley_poker.service.side_export import side_night_export
from alley_poker.verifier.side_night import verify_side_export
from alley_poker.web.centre_access import centre_of
from tests.conftest import centre_app
from tests.web.conftest import OPEN_NIGHT, PIN, serve
from tests.web.test_refusal_words import page_leaks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def league_night(tmp_path_factory):
    """The demo's league night with side games: bowled, paid, its seed revealed."""
    database = tmp_path_factory.mktemp("side-verify") / "night.sqlite3"
    result = run_side_night_demo(speed=0, seed=7, database=database, echo=lambda line: None)
    assert not result.unsettled and result.verdict.startswith("OK"), result.verdict
    return database, result.night_id


@pytest.fixture(scope="module")
def site(league_night):
    database, night_id = league_night
    service = open_service(f"sqlite:///{database}")
    app = centre_app(service, testing=True, secret_key="test", pin=PIN, **OPEN_NIGHT)
    running = serve(app)
    export = side_night_export(centre_of(app).league_desk.side_games, night_id)
    yield running, export
    running.stop()
    service.repository.store.close()


@pytest.fixture(scope="module")
def page(module_browser, site):
    running, _export = site
    opened = module_browser.new_page()
    opened.goto(f"{running.url}/verify")
    yield opened
    opened.close()


def reordered(export: dict) -> dict:
    """The export with two bowlers of one bracket's round one swapped across matches (the
    money and the payments left as they were: only the draw is re-ordered)."""
    changed = copy.deepcopy(export)
    drawn = next(e for e in changed["events"] if e["type"] == "draw_made")
    slots = drawn["data"]["brackets"][2]
    slots[1], slots[2] = slots[2], slots[1]
    return changed


def payout_changed(export: dict) -> dict:
    changed = copy.deepcopy(export)
    paid = next(e for e in changed["events"] if e["type"] == "bracket_paid")
    paid["data"]["payouts"][0][1] += 500
    return changed


def check_pasted(page, export: dict) -> tuple[str, str]:
    page.fill("#export-text", json.dumps(export))
    page.click("#check-pasted")
    verdict = page.locator("#verdict[data-verdict]:not([data-verdict=''])")
    verdict.wait_for(timeout=30_000)
    return verdict.get_attribute("data-verdict"), verdict.text_content()


def test_a_bracket_night_checks_by_its_night_id(module_browser, site, league_night):
    running, _export = site
    _database, night_id = league_night
    page = module_browser.new_page()
    page.goto(f"{running.url}/verify?night={night_id}")     # as the night sheet links it
    verdict = page.locator("#verdict[data-verdict=ok], #verdict[data-verdict=failed]")
    verdict.wait_for(timeout=30_000)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    assert verdict.text_content().startswith(f"OK: Bracket night {night_id} is a fair draw")
    details = page.text_content("#verify-details")
    assert "1 draw re-done here from the revealed seed" in details
    assert "$20.00 refunded" in details and "to the organiser" in details
    page.close()


def test_a_reordered_draw_and_a_changed_payout_are_refused(page, site):
    _running, export = site
    assert check_pasted(page, export)[0] == "ok"
    verdict, words = check_pasted(page, reordered(export))
    assert verdict == "failed"
    drawn = next(e["seq"] for e in export["events"] if e["type"] == "draw_made")
    assert (f"event #{drawn} (the draw): hdcp: bracket 3 is not what the seed draws from "
            "the entries") in words, words
    assert page_leaks(page.locator("main").inner_text()) == []
    verdict, words = check_pasted(page, payout_changed(export))
    assert verdict == "failed"
    assert "did not pay what its games decide" in words, words
    assert "the money does not reconcile: entries $" in page.text_content("#verify-details")
    assert page_leaks(page.locator("main").inner_text()) == []


def mutants(export: dict) -> list[dict]:
    """The export and ways an insider could change it."""
    found = [export, reordered(export), payout_changed(export)]
    unrevealed = copy.deepcopy(export)
    unrevealed["events"] = [e for e in unrevealed["events"] if e["type"] != "seed_revealed"]
    for seq, event in enumerate(unrevealed["events"], start=1):
        event["seq"] = seq
    found.append(unrevealed)
    other_seed = copy.deepcopy(export)
    revealed = next(e for e in other_seed["events"] if e["type"] == "seed_revealed")
    revealed["data"]["seed"] = "00" * 32
    found.append(other_seed)
    refunded = copy.deepcopy(export)
    drawn = next(e for e in refunded["events"] if e["type"] == "draw_made")
    drawn["data"]["refunded"] = drawn["data"]["refunded"][1:]
    found.append(refunded)
    entry = copy.deepcopy(export)
    first = next(e for e in entry["events"] if e["type"] == "entry_recorded")
    first["data"]["entries"] += 1
    found.append(entry)
    pot = copy.deepcopy(export)
    paid = next(e for e in pot["events"] if e["type"] == "pot_paid")
    paid["data"]["organiser_cents"] += 1
    found.append(pot)
    return found


def test_the_browser_agrees_with_alley_poker_verify(page, site, tmp_path):
    _running, export = site
    cases = mutants(export)
    browser = page.evaluate("""async (texts) => {
        const out = [];
        for (const text of texts) {
            const v = await window.AlleySideVerify.verifyExport(JSON.parse(text));
            out.push({ok: v.ok, problems: v.problems, unproven: v.unproven});
        }
        return out;
    }""", [json.dumps(case) for case in cases])
    for index, (case, seen) in enumerate(zip(cases, browser, strict=True)):
        verdict = verify_side_export(case)
        assert seen["ok"] == verdict.ok, (index, seen, str(verdict))
        assert bool(seen["unproven"]) == bool(verdict.unproven), (index, seen, str(verdict))
        # The same events named, in the same order.
        named = [p.split(":")[0] for p in seen["problems"]]
        assert named == [p.split(":")[0] for p in verdict.problems], (index, seen, str(verdict))
        path = tmp_path / f"case-{index}.json"
        path.write_text(json.dumps(case))
        outcome = CliRunner().invoke(main, ["verify", str(path)])
        assert (outcome.exit_code == 0) == seen["ok"], (index, outcome.output)
    assert [seen["ok"] for seen in browser] == [True] + [False] * (len(cases) - 1)
