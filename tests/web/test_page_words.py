"""What a person reads on every screen of a busy night, in real headless Chromium: no event
key (``ball_recorded``), no money as "cents", no actor id (``commissioner:token-1``), no raw
feed line (``$APF1,…``), no match id, no count that disagrees with its noun ("1 matches") and
no name's period doubled by a sentence's ("Ray, Jr..").  The desk's audit page and the
exports may show ids; every other page is read here (the kiosks, the tablet's pages, the
phone, the league's night sheet) as Chromium lays it out (``innerText``: what is on screen).

The night: Ann and "Ray, Jr." at their end on lanes 1-2 (a buy to answer), the team of six on
lanes 5-6 (a decision open, a moment's banner up), a match on lanes 7-8 settled as the hands
stood (its story told), and the Tuesday league's night on lanes 3-4, started with an API
token, with a ball held for the desk under its raw line.
The patterns are the refusal check's (tests/web/test_refusal_words.py): one list of what a
person must not read.
"""

from __future__ import annotations

import re

import pytest

from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from drivers.base import BallRecorded
from tests.conftest import centre_app
from tests.web.conftest import (
    OPEN_NIGHT,
    PIN,
    drawn,
    open_service,
    serve,
    signed_in_client,
    signed_in_desk,
    start_match,
)
from tests.web.test_league_pages import league_with_roster
from tests.web.test_night_screens import bowl, bowl_the_team
from tests.web.test_refusal_words import page_leaks
from tests.web.test_tokens import bearer, make_token

pytestmark = pytest.mark.slow

EARLY, TEAM, DONE = "early-1-2", "six-on-5-6", "done-7-8"
RAY = "Ray, Jr."


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    service = open_service(tmp_path_factory.mktemp("words") / "ledger.sqlite3")
    start_match(service, EARLY, {(1, 1): "Ann", (2, 1): RAY})
    bowl(service, EARLY, RAY, 10)                      # a strike: three cards
    bowl(service, EARLY, RAY, *([9, 0] * 9))
    bowl(service, EARLY, "Ann", *([9, 0] * 10))
    for bowler in ("Ann", RAY):
        if any(d["kind"] == "end_draw" for d in service.state(EARLY).pending_for(bowler)):
            service.execute(EARLY, c.DecideEndDraw(bowler, False, actor=f"bowler:{bowler}"))
    assert [d["kind"] for d in service.state(EARLY).pending_for("Ann")] == ["buy"]
    bowl_the_team(service, TEAM)
    # A match settled early (the desk settled it as the hands stood): its story is told.
    start_match(service, DONE, {(7, 1): "Cy", (8, 1): "Dee"})
    bowl(service, DONE, "Cy", 10)
    bowl(service, DONE, "Dee", 0, gutter=True)
    service.execute(DONE, c.CommissionerSettleAsHandsStand(reason="lanes closing",
                                                           actor="commissioner:test-desk"))
    app = centre_app(service, testing=True, pin=PIN, secret_key="words", **OPEN_NIGHT)
    league_with_roster(app)
    _client, _csrf, token = make_token(app)
    tonight = app.test_client().get("/api/v1/leagues/tue",
                                    headers=bearer(token["token"])).get_json()["tonight"]
    ids = [b.bowler_id for b in centre_of(app).league_desk.store.bowlers("tue")]
    started = app.test_client().post("/api/v1/leagues/tue/nights",
                                     headers=bearer(token["token"]),
                                     json={"night_date": tonight, "checked_in": ids})
    assert started.status_code == 201, started.get_json()
    (league_match,) = started.get_json()["matches"]
    bowl(service, league_match["match_id"], "Ann Smith", 10)
    # A ball the router cannot place (frame 2 before frame 1 on lane 3): held for the desk.
    service.router.handle(BallRecorded(lane=3, bowler=2, game=1, frame=2, ball=1, pins=9,
                                       source="scorer", raw="$APF1,12,BALL,3,2,1,2,1,9"))
    assert service.held.open_items(None), "the ball is held"
    server = serve(app)
    yield {"service": service, "app": app, "url": server.url, "tonight": tonight,
           "match_ids": [EARLY, TEAM, DONE, league_match["match_id"]]}
    server.stop()


def signed_in(module_browser, url: str, width: int = 1280, height: int = 800):
    return signed_in_desk(module_browser, url, width=width, height=height, timeout_ms=15_000)


def read(page) -> str:
    """The page's text as laid out on screen (hidden elements are not read)."""
    page.wait_for_load_state("networkidle")
    return page.inner_text("body")


#: The roster file's header, which the league page shows for the desk to type (its column
#: names are the file's words).
ROSTER_HEADER = ("name,scorer_name,average,handicap_basis,team",
                 "average, handicap_basis and team")


def problems(text: str, match_ids: list[str]) -> list[tuple[str, str]]:
    for header in ROSTER_HEADER:
        text = text.replace(header, "")
    found = page_leaks(text)
    found += [("a match id", match_id) for match_id in match_ids
              if re.search(rf"(?<![\w-]){re.escape(match_id)}(?![\w-])", text)]
    return found


def test_no_screen_of_the_night_shows_ids_keys_cents_or_raw_lines(module_browser, night):
    url, ids = night["url"], night["match_ids"]
    seen: dict[str, list] = {}

    # Each lane pair's kiosk read at a tablet's width and at a phone's (one page resized:
    # the kiosk re-fits on resize, and each page opened costs Chromium a second or two).
    kiosks = {}
    for lanes in ("1-2", "3-4", "5-6"):
        kiosk = kiosks[lanes] = module_browser.new_page(viewport={"width": 1280, "height": 800})
        kiosk.goto(f"{url}/kiosk/{lanes}")
        kiosk.wait_for_selector("#connection[data-state=live]")
        kiosk.wait_for_selector("section.bowler")
        for width, height in ((1280, 800), (390, 844)):
            kiosk.set_viewport_size({"width": width, "height": height})
            drawn(kiosk)
            seen[f"kiosk {lanes} at {width}"] = problems(read(kiosk), ids)
    for lanes in ("3-4", "5-6"):
        kiosks[lanes].close()
    # A moment's banner up on the team's kiosk, in the words the bowlers read.
    kiosk = kiosks["1-2"]
    kiosk.set_viewport_size({"width": 1280, "height": 800})
    night["service"].execute(EARLY, c.DecideBuy(RAY, False, actor=f"bowler:{RAY}"))
    kiosk.wait_for_function("!document.querySelector(`section.bowler[data-bowler='Ray, Jr.'] "
                            ".decision`)")
    seen["kiosk 1-2 after a buy declined"] = problems(read(kiosk), ids)
    kiosk.close()

    desk = signed_in(module_browser, url)
    desk.locator("#held-list li.held-item").first.wait_for()
    seen["the dashboard"] = problems(read(desk), ids)
    pages = ["/commissioner/settlement", "/commissioner/first-night", "/commissioner/leagues",
             "/commissioner/leagues/tue", "/commissioner/leagues/tue/night",
             "/commissioner/leagues/tue/standings", "/commissioner/manual-entry",
             "/commissioner/new-match", "/commissioner/tokens",
             f"/commissioner/leagues/tue/nights/{night['tonight']}",
             f"/commissioner/leagues/tue/nights/{night['tonight']}?stories=1",
             f"/commissioner/matches/{TEAM}/story", f"/commissioner/matches/{DONE}/story"]
    for path in pages:
        desk.goto(url + path)
        if path == "/commissioner/settlement":
            # The fair deals' table is the paper record for `alley-poker audit verify --head
            # MATCH=HASH`: its match ids are the command's, as in the exports.
            desk.locator("#fair-deals tbody tr td").first.wait_for()
            desk.evaluate("document.getElementById('fair-deals').hidden = true")
        seen[path] = problems(read(desk), ids)
    desk.goto(f"{url}/commissioner/phones")
    desk.locator("section.phone-match tr[data-bowler] button", has_text="Show code").first.click()
    desk.locator("figure.phone-code figcaption").wait_for()
    seen["/commissioner/phones"] = problems(read(desk), ids)
    desk.close()

    tablet, csrf = signed_in_client(night["app"])
    made = tablet.post(f"/api/v1/matches/{EARLY}/phone-links", json={"bowler": RAY},
                       headers={"X-CSRFToken": csrf}).get_json()
    phone = module_browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.goto(made["url"].replace("http://localhost", url))
    phone.wait_for_selector("#connection[data-state=live]")
    seen["the phone"] = problems(read(phone), ids)
    phone.close()

    shown = {where: found for where, found in seen.items() if found}
    assert shown == {}, "\n".join(f"{where}: {found}" for where, found in shown.items())


def test_the_scan_finds_what_it_looks_for():
    """The patterns catch each thing they are for (so a clean walk above means something)."""
    for text, what in [("the ball_recorded event", "an event type"),
                       ("pay 200 cents to draw one card", "money in cents"),
                       ("started by commissioner:token-1", "an actor id"),
                       ("$APF1,12,BALL,3,2,1,2,1,9", "a raw feed line"),
                       ("1 matches", "a count that disagrees with its noun"),
                       ("Ray, Jr..", "a period doubled"),
                       ("📱 Phone code", "an emoji (a box on a screen without their font)")]:
        assert what in [kind for kind, _ in page_leaks(text)], (text, page_leaks(text))
    for fine in ["Pot $2.00 split: Ann $1.00 · Ray, Jr. $1.00 (odd cents to the house)",
                 "1 match, 2 matches, 1 bowler", "Ray, Jr. wins.", "Wait…"]:
        assert page_leaks(fine) == [], (fine, page_leaks(fine))


#: Per panel: where its frame and total start (from its score line's left), and whether each
#: of the frame, total and handicap is laid out whole on one line.
SCORE_LINES = """() => [...document.querySelectorAll("section.bowler")].map(panel => {
  const box = panel.querySelector(".score").getBoundingClientRect();  // inside the border
  const part = name => panel.querySelector(".score ." + name);
  const lines = el => {
    if (!el || !el.textContent) return 1;
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  };
  const left = el => el ? Math.round(el.getBoundingClientRect().left - box.left) : null;
  return {bowler: panel.dataset.bowler, frame: left(part("frame")), total: left(part("total")),
          whole: ["frame", "total", "handicap"].every(name => lines(part(name)) === 1)};
})"""


def test_the_kiosk_score_line_lines_up_and_a_tall_banner_keeps_to_its_share(
        module_browser, night):
    from tests.web.test_night_screens import card_widths_once_drawn

    page = module_browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(f"{night['url']}/kiosk/5-6")
    page.wait_for_selector("section.bowler[data-bowler=Carmen] .decision")
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("w => innerWidth === w", arg=width)
        panels = page.evaluate(SCORE_LINES)
        assert all(p["whole"] for p in panels), (width, panels)
        totals = [p["total"] for p in panels]  # one column (a border's width apart at most)
        assert max(totals) - min(totals) <= 3, (width, panels)
    # A moment as long as a banner gets: it keeps to its share of the screen (the panels
    # below keep theirs, the cards stay cards and the decision whole).
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function("innerWidth === 1280")
    before = page.evaluate("document.getElementById('panels').clientHeight")
    page.evaluate("""() => { const banner = document.getElementById('banner');
        banner.hidden = false;
        banner.textContent = 'PILE EMPTY — Francesca draws from Hiroko: '.repeat(8); }""")
    after = page.evaluate("document.getElementById('panels').clientHeight")
    assert after >= before - (0.22 * 800 + 16), (before, after)  # its share, and a margin
    carmen = "section.bowler[data-bowler=Carmen]"
    widths = card_widths_once_drawn(page, carmen, least=30)
    assert min(widths) >= 30, widths
    # ... and the decision under them is still whole inside its panel (nothing cut off).
    cut = page.evaluate("""sel => { const panel = document.querySelector(sel);
        const p = panel.getBoundingClientRect();
        const d = panel.querySelector('.decision').getBoundingClientRect();
        return d.bottom > p.bottom + 0.5 ? [d.bottom, p.bottom] : null; }""", carmen)
    assert cut is None, cut
    page.close()
