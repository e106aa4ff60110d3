"""The match's story on the screens: the public API read (409 while in play), the tablet's
story page in Chromium at a tablet's and a phone's width (axe-core clean, nothing clipped),
the bowler's phone with their own moments highlighted, and the night sheet printed with the
stories on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import centre_app
from tests.ledger.story_match import bowl_varied_match, play_varied_match, start_varied_match
from tests.web.conftest import (
    OPEN_NIGHT,
    PIN,
    open_service,
    serve,
    signed_in_client,
    signed_in_desk,
)
from tests.web.test_accessibility import serious_violations


@pytest.fixture
def story_app(tmp_path):
    """A service whose match m1 is the varied match, bowled to its settlement."""
    service = open_service(tmp_path / "story.sqlite3")
    play_varied_match(service)
    return centre_app(service, testing=True, pin=PIN, secret_key="story", **OPEN_NIGHT)


@pytest.fixture
def story_server(story_app):
    running = serve(story_app)
    yield running
    running.stop()


def test_the_story_is_told_once_the_match_is_settled_and_not_before(app, story_app):
    refused = app.test_client().get("/api/v1/matches/m1/story")
    assert refused.status_code == 409
    assert refused.get_json()["error"]["message"] == (
        "the match is playing: its story is told once it is settled or voided")
    assert app.test_client().get("/api/v1/matches/nope/story").status_code == 404
    desk, _ = signed_in_client(app)
    assert desk.get("/commissioner/matches/nope/story").status_code == 404
    page = desk.get("/commissioner/matches/m1/story").get_data(as_text=True)
    assert "The match is playing: its story is told once it is settled or voided." in page
    told = story_app.test_client().get("/api/v1/matches/m1/story")
    assert told.status_code == 200
    story = told.get_json()
    assert story["status"] == "settled" and story["bowlers"] == ["Ann", "Bob", "Cy"]
    texts = [entry["text"] for entry in story["entries"]]
    assert "Bob: strike (entered at the desk) → drew 3♦ and 4♦." not in texts  # service deals
    assert any(text.startswith("The desk undid “Frame 2, ball 1: Bob: strike (entered at the "
                               "desk)") for text in texts)
    assert texts[-1].startswith("Paid out: ") and texts[-1].endswith(
        "$4.00; the match is settled (hands checked).")
    assert "order" not in str(story) and "pile\":" not in str(story)


def test_the_openapi_document_describes_the_story(app):
    document = app.test_client().get("/api/v1/openapi.json").get_json()
    operation = document["paths"]["/api/v1/matches/{match_id}/story"]["get"]
    assert set(operation["responses"]) >= {"200", "404", "409"}
    assert "MatchStory" in document["components"]["schemas"]


def no_clipping(page, width: int) -> list[str]:
    """Every moment and its text lie within the page's width; nothing scrolls sideways."""
    problems = page.evaluate("""(width) => {
      const out = [];
      if (document.documentElement.scrollWidth > width + 1) out.push("the page scrolls sideways");
      document.querySelectorAll(".story-entry, .story-when, .story-text").forEach((node) => {
        const box = node.getBoundingClientRect();
        if (box.left < -0.5 || box.right > width + 0.5) out.push(node.className + " outside");
        if (node.scrollWidth > node.clientWidth + 1) out.push(node.className + " cut off");
      });
      return out;
    }""", width)
    return problems


@pytest.mark.slow
def test_the_story_page_at_a_tablets_and_a_phones_width(browser, story_server, story_app,
                                                        tmp_path):
    entries = story_app.test_client().get("/api/v1/matches/m1/story").get_json()["entries"]
    page = signed_in_desk(browser, story_server.url, timeout_ms=10_000, ready=".tablet-header")
    page.goto(f"{story_server.url}/commissioner/settlement")
    page.click("#story-links a")  # the settlement page links every finished match's story
    page.wait_for_selector("ol.story .story-entry.kind-showdown")
    assert page.locator(".story-entry").count() == len(entries)
    assert page.locator(".story-entry.undone").count() == 1
    winner = page.locator(".story-entry.kind-showdown tr.winner")
    assert winner.count() == 1 and "$4.00" in winner.inner_text()
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function(f"document.documentElement.clientWidth === {width}")
        assert no_clipping(page, width) == [], width
        assert serious_violations(page) == [], width
        page.evaluate("document.querySelector('.story-entry.kind-end').scrollIntoView()")
        page.screenshot(path=tmp_path / f"story-{width}.png")


@pytest.mark.slow
def test_the_bowlers_phone_shows_the_story_with_their_own_moments(browser, tmp_path):
    service = open_service(tmp_path / "phone.sqlite3")
    start_varied_match(service)
    app = centre_app(service, testing=True, pin=PIN, secret_key="story", **OPEN_NIGHT)
    client, csrf = signed_in_client(app)
    made = client.post("/api/v1/matches/m1/phone-links", json={"bowler": "Cy"},
                       headers={"X-CSRFToken": csrf})
    assert made.status_code == 201, made.get_json()
    bowl_varied_match(service)
    server = serve(app)
    try:
        phone_sees_the_story(browser, server.url, made.get_json()["url"], tmp_path)
    finally:
        server.stop()


def phone_sees_the_story(browser, url: str, link: str, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url + "/" + link.split("://", 1)[-1].partition("/")[2] if "://" in link
              else url + link)
    page.wait_for_selector("#story:not([hidden]) #story-show")
    page.click("#story-show")
    page.wait_for_selector("#story-list .story-entry.kind-showdown")
    mine = page.locator("#story-list .story-entry.mine")
    assert mine.count() >= 6
    texts = mine.all_inner_texts()
    assert any("in the hole, owes 1 card" in text for text in texts)
    assert any("Guessed the ball comes back on the left" in text for text in texts)
    # docs/images/story-390.png is this (docs/phone.md; copied by hand when the page changes)
    page.evaluate("window.scrollTo(0, document.querySelector('#story-list .story-entry.mine')"
                  ".getBoundingClientRect().top + window.scrollY - 110)")
    page.screenshot(path=shots / "story-phone-390.png")
    page.check("#story-mine")
    page.wait_for_function("[...document.querySelectorAll('#story-list .story-entry')]"
                           ".every(e => e.classList.contains('mine'))")
    assert no_clipping(page, 390) == []
    assert serious_violations(page) == []
    assert errors == []
    context.close()


def test_the_night_sheet_prints_the_stories_when_asked(app, service):
    from tests.web.test_league_pages import play_a_night

    match_id = play_a_night(app, service)
    client, _ = signed_in_client(app)
    plain = client.get("/commissioner/leagues/tue/nights/2026-11-24").get_data(as_text=True)
    assert 'href="?stories=1"' in plain and "story-entry" not in plain
    assert f'href="/commissioner/matches/{match_id}/story"' in plain
    sheet = client.get("/commissioner/leagues/tue/nights/2026-11-24?stories=1")
    html = sheet.get_data(as_text=True)
    assert "The story of the match on lanes 3-4" in html
    story = client.get(f"/api/v1/matches/{match_id}/story").get_json()
    assert html.count('class="story-entry') == len(story["entries"]) > 5
    from markupsafe import escape
    for entry in story["entries"]:
        assert str(escape(entry["text"])) in html


@pytest.mark.slow
def test_the_night_sheet_with_stories_fits_the_paper(browser, live_server, app, service,
                                                     tmp_path):
    """Printed (the print stylesheet, an A4 page's width): every story whole, no navigation."""
    from tests.web.test_league_pages import play_a_night

    match_id = play_a_night(app, service)
    page = signed_in_desk(browser, live_server.url, timeout_ms=10_000, ready=".tablet-header")
    page.goto(f"{live_server.url}/commissioner/leagues/tue/nights/2026-11-24")
    page.click("#with-stories")
    page.wait_for_selector(f".sheet-match[data-match='{match_id}'] ol.story .kind-showdown")
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 794, "height": 1123})
    page.wait_for_function("document.documentElement.clientWidth === 794")
    assert page.locator(".tablet-header").is_hidden()
    assert page.locator("#with-stories").is_hidden()
    assert page.locator(".sheet-story-link").is_hidden()
    assert no_clipping(page, 794) == []
    page.pdf(path=tmp_path / "night-sheet-with-stories.pdf")
    page.screenshot(path=tmp_path / "night-sheet-with-stories.png", full_page=True)
