"""``/verify`` in Chromium: a bowler checks a settled match in their own browser (WebCrypto,
written from docs/fairness.md), by match id or by a pasted export, offline once loaded; a
changed card or a wrong night-sheet chain head is named."""

from __future__ import annotations

import copy
import json
import re

import pytest

from alley_poker.cli.demo_alley import run_demo
from alley_poker.fairness.chain import link_hash
from alley_poker.ledger import commands as c
from alley_poker.service import open_service
from alley_poker.service.fair_export import match_export
from tests.conftest import centre_app
from tests.web.conftest import DESK, OPEN_NIGHT, PIN, PROJECT_ROOT, serve
from tests.web.test_accessibility import serious_violations
from tests.web.test_phone_browser import PHONE, code_url

MATCH = "lanes-1-2"


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """A demo night's ledger (every match settled, dealt from committed seeds)."""
    database = tmp_path_factory.mktemp("verify-night") / "demo.sqlite3"
    assert not run_demo(speed=0, seed=11, database=database, echo=lambda line: None).unsettled
    return database


@pytest.fixture
def site(night):
    service = open_service(f"sqlite:///{night}")
    app = centre_app(service, testing=True, secret_key="test", pin=PIN, **OPEN_NIGHT)
    running = serve(app)
    yield running, service
    running.stop()
    service.repository.store.close()


def verdict_of(page):
    verdict = page.locator("#verdict[data-verdict=ok], #verdict[data-verdict=failed]")
    verdict.wait_for(timeout=15_000)
    return verdict


def paste_and_check(page, export: dict | str) -> None:
    page.fill("#export-text", export if isinstance(export, str) else json.dumps(export))
    page.click("#check-pasted")


def test_a_settled_match_checks_by_its_id_and_a_changed_card_is_named(browser, site):
    running, service = site
    export = match_export(service, MATCH)
    page = browser.new_page()
    page.goto(f"{running.url}/verify?match={MATCH}")  # as the phone's link opens it
    verdict = verdict_of(page)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    assert verdict.text_content().startswith(f"OK: Match {MATCH} is a fair deal")
    assert export["chain_head"] in page.locator("#verify-details").text_content()
    # The head printed on the night sheet, mistyped: the page says it differs.
    page.fill("#printed-head", "0" * 64)
    page.click("#load-match")
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'failed'")
    assert "night sheet" in page.text_content("#verdict")
    # One card changed in the export (as an insider would, chain head recomputed is beside the
    # point: the card is no longer the top of the pile).
    page.fill("#printed-head", "")
    changed = copy.deepcopy(export)
    drawn = [e for e in changed["events"] if e["type"] == "card_drawn"]
    target = drawn[len(drawn) // 2]
    target["data"]["card"] = next(e["data"]["card"] for e in drawn
                                  if e["data"]["card"] != target["data"]["card"])
    paste_and_check(page, changed)
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'failed'")
    assert page.get_attribute("#verdict", "data-seq") == str(target["seq"])
    assert "the top of the pile was" in page.text_content("#verdict")
    # Not an export at all: a sentence, not a stack trace.
    paste_and_check(page, "{not json")
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'failed'")
    assert "not JSON" in page.text_content("#verdict")


def test_the_page_checks_a_pasted_export_offline(browser, site, tmp_path):
    running, service = site
    export = match_export(service, MATCH)
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{running.url}/verify")
    page.locator("#check-pasted").wait_for()
    context.set_offline(True)
    paste_and_check(page, export)
    verdict = verdict_of(page)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()
    # A saved export file, picked (offline too); one edited is refused.
    saved = tmp_path / "match.json"
    export["events"][-1]["data"]["reason"] = "edited afterwards"
    saved.write_text(json.dumps(export), encoding="utf-8")
    page.set_input_files("#export-file", str(saved))
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'failed'")
    assert "chain head" in page.text_content("#verdict")
    # The same file dropped on the page.
    dropped = page.evaluate_handle("""(text) => {
        const data = new DataTransfer();
        data.items.add(new File([text], "match.json", {type: "application/json"}));
        return data;
    }""", json.dumps(match_export(service, MATCH)))
    page.dispatch_event(".verify-paste", "drop", {"dataTransfer": dropped})
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'ok'")
    # Loading by id needs the server: offline, the page says so and how to do without.
    page.fill("#match-id", MATCH)
    page.click("#load-match")
    page.wait_for_function("document.querySelector('#verify-status').textContent"
                           ".startsWith('No connection')")
    context.close()


def test_an_unfinished_or_unknown_match_is_explained(browser, site):
    running, _ = site
    page = browser.new_page()
    page.goto(f"{running.url}/verify?match=no-such-match")
    page.wait_for_function("document.querySelector('#verify-status').textContent"
                           ".startsWith('There is no match')")
    assert page.locator("#verdict").is_hidden()


def test_the_settlement_page_links_each_finished_match_to_its_check(browser, site):
    running, _ = site
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{running.url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#live-state")
    card = page.locator(".fair-deal a.check-match").first  # the dashboard's match card
    card.wait_for(state="attached")
    # A settled match is folded away on the Lanes page: the desk opens its fold.
    page.locator("details.settled-matches:has(.fair-deal a.check-match) > summary").first.click()
    card.wait_for()
    assert card.get_attribute("href").startswith("/verify?match=lanes-")
    page.goto(f"{running.url}/commissioner/settlement")
    link = page.locator("#fair-deals a.check-match").first
    link.wait_for()
    assert link.text_content() == "Check this match"
    link.click()
    verdict = verdict_of(page)
    assert verdict.get_attribute("data-verdict") == "ok", verdict.text_content()


def test_the_phone_links_to_the_check_once_the_match_is_over(browser, live_server, app, service):
    """Ann's phone (a match dealt by a test source, so it has no commitment): no link while it
    is played; once voided, "Check this match" opens /verify, which says why it cannot."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(code_url(app).replace("http://localhost", live_server.url))
    page.wait_for_selector("#connection[data-state=live]")
    assert page.locator("#check-match").count() == 0
    service.execute("m1", c.CommissionerVoidMatch(reason="lane broke", actor=DESK))
    link = page.locator("#check-match")
    link.wait_for()
    assert link.get_attribute("href") == "/verify?match=m1"
    link.click()
    verdict = verdict_of(page)
    assert "committed to no seed" in verdict.text_content()
    context.close()


def test_the_settled_kiosk_links_to_the_check(browser, site):
    running, _ = site
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(f"{running.url}/kiosk/1-2")
    link = page.locator("#fair-deal a.check-match")
    link.wait_for(timeout=10_000)
    assert link.get_attribute("href") == f"/verify?match={MATCH}"


def doc_vectors() -> dict[str, str]:
    """Every ``name: value`` line of docs/fairness.md's vector blocks."""
    text = (PROJECT_ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    found = {}
    for block in re.findall(r"```vector\n(.*?)```", text, re.S):
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            found[name] = value
    return found


def test_the_browser_code_meets_the_documented_vectors_and_the_python_chain(browser, site):
    """The page's WebCrypto code against section 8's vectors, and its canonical JSON against
    the Python chain on a record with non-ASCII names, escapes and keys beyond U+FFFF (code
    point order differs from JavaScript's own string order there)."""
    running, _ = site
    vectors = doc_vectors()
    tricky = {"match_id": "m1", "seq": 2, "type": "bowler_added", "at": "2026-03-06T19:00:00Z",
              "data": {"bowler": "Zoë \"Z\" \\ 😀\n\t\u0001\u007f", "\uffff": 1, "😀": [True, None],
                       "é": {"b": -3, "a": "\u2028"}}}
    page = browser.new_page()
    page.goto(f"{running.url}/verify")
    page.wait_for_function("window.AlleyFairVerify !== undefined")
    got = page.evaluate("""async ([v, tricky, genesis]) => {
        const F = window.AlleyFairCrypto;
        const seed = F.fromHex(v["seed"]);
        const drbg = await F.drbg(seed, v["salt"]);
        const draws = drbg.stream("deck", 5), first = [];
        for (const n of [54, 53, 52, 51, 50]) first.push(await draws.below(n));
        const hands = {};
        v["courtesy hands"].split(" ").forEach((part) => {
            const [who, cards] = part.split("="); hands[who] = cards.split(","); });
        const courtesy = drbg.stream("courtesy", Number(v["courtesy at seq"]));
        const victim = await courtesy.pick(["Ann", "Bob"]);
        const card = await courtesy.pick(hands[victim]);
        return {
            commitment: F.hex(await F.sha256(seed)), key: drbg.key, first: first.join(" "),
            deck: (await drbg.stream("deck", 5).shuffle(window.AlleyFairVerify.DECK)).join(" "),
            courtesy: victim + " " + card,
            chain: await F.linkHash(F.GENESIS, JSON.parse(v["record"])),
            tricky: await F.linkHash(genesis, tricky),
        };
    }""", [vectors, tricky, "ab" * 32])
    assert got == {
        "commitment": vectors["commitment"], "key": vectors["key"],
        "first": vectors["deck stream at seq 5, first draws below 54, 53, 52, 51, 50"],
        "deck": vectors["first deck (match_started at seq 5, top first)"],
        "courtesy": vectors["courtesy victim and card"],
        "chain": vectors["hash after genesis"],
        "tricky": link_hash("ab" * 32, tricky),
    }


def test_forged_inputs_or_a_stacked_undo_are_named(browser, site):
    """Two forgeries the browser refuses by itself: an export whose listed inputs give an action
    another actor, and an undo re-ordering that puts a card on top no later action drew."""
    running, service = site
    export = match_export(service, MATCH)
    assert export["version"] == 2
    page = browser.new_page()
    page.goto(f"{running.url}/verify")
    page.wait_for_function("window.AlleyFairVerify !== undefined")
    verify = ("async (e) => { const v = await window.AlleyFairVerify.verifyExport(e); "
              "return [v.ok, v.seq, v.text]; }")
    forged = copy.deepcopy(export)
    forged["inputs"][5]["actor"] = "commissioner:someone"
    ok, seq, text = page.evaluate(verify, forged)
    assert (ok, seq) == (False, forged["inputs"][5]["action"]), text
    assert "inputs" in text
    stacked = copy.deepcopy(export)
    events = stacked["events"]
    shuffle = next(e for e in events if e["type"] == "pile_shuffled")
    shuffle["data"]["why"] = "undo: later cards dealt as before"  # a reshuffle relabelled
    stacked["chain_head"] = None
    ok, seq, text = page.evaluate(verify, stacked)
    assert (ok, seq) == (False, shuffle["seq"]), text
    assert "no undo made" in text


def test_the_page_and_the_settled_kiosks_link_have_no_serious_accessibility_violation(
        browser, site):
    running, _ = site
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{running.url}/verify?match={MATCH}")
    verdict_of(page)
    assert serious_violations(page) == []
    paste_and_check(page, "[]")
    page.wait_for_function("document.querySelector('#verdict').dataset.verdict === 'failed'")
    assert serious_violations(page) == []
    kiosk = browser.new_page(viewport={"width": 1280, "height": 720})
    kiosk.goto(f"{running.url}/kiosk/1-2")
    kiosk.locator("#fair-deal a.check-match").wait_for()
    assert serious_violations(kiosk) == []
