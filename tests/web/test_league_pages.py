"""The tablet's league pages in real headless Chromium: make a league, keep its roster (add,
edit, retire, re-activate, import a good and a bad CSV file), check in a night and start it
(the matches reach the dashboard and the kiosk), the standings (equal to the projection
rebuilt from the event log) and the printable night sheet."""

from __future__ import annotations

import random

import pytest

from alley_poker.cards import card_text
from alley_poker.league.night_sheet import night_sheet
from alley_poker.store.chain import chain_head
from alley_poker.web.centre_access import centre_of
from tests.league.play import bowl_match
from tests.web.conftest import PIN, signed_in_client
from tests.web.test_league_api import ROSTER, TUESDAY

CSV_WITH_BAD_ROWS = """name,scorer_name,average
Ann Smith,ANN,150
Bob Jones,BOB,999
ann smith,AN2,140
Cy Young,,120
"""


def tablet(browser, url: str, width: int = 1280):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_default_timeout(10_000)
    page.on("dialog", lambda dialog: dialog.accept())  # the confirms of retire/re-activate
    page.goto(f"{url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("article.match-card[data-match=m1]", state="attached")
    return page


def league_with_roster(app, roster: str | None = ROSTER):
    client, csrf = signed_in_client(app)
    calls = [("/api/v1/leagues", TUESDAY)]
    if roster:
        calls.append(("/api/v1/leagues/tue/roster", {"csv": roster}))
    for url, body in calls:
        answer = client.post(url, json=body, headers={"X-CSRFToken": csrf})
        assert answer.status_code == 201, answer.get_json()
    return client, csrf


def start_tonights_night(app, client, headers: dict) -> str:
    """Tuesday's night started tonight with every bowler of the roster checked in, through
    the API as ``client`` with ``headers``: the id of its one match."""
    tonight = client.get("/api/v1/leagues/tue", headers=headers).get_json()["tonight"]
    ids = [b.bowler_id for b in centre_of(app).league_desk.store.bowlers("tue")]
    started = client.post("/api/v1/leagues/tue/nights", headers=headers,
                          json={"night_date": tonight, "checked_in": ids})
    assert started.status_code == 201, started.get_json()
    (match,) = started.get_json()["matches"]
    return match["match_id"]


def roster_names(app, retired=False) -> dict[str, bool]:
    store = centre_of(app).league_desk.store
    return {b.name: b.active for b in store.bowlers("tue", include_retired=retired)}


def test_a_league_is_made_on_the_leagues_page(browser, live_server, app):
    page = tablet(browser, live_server.url)
    page.click("nav >> text=League")
    page.wait_for_selector("#new-league")
    form = page.locator("#new-league")
    form.locator("[name=league_id]").fill("thu")
    form.locator("[name=name]").fill("Thursday Jokers")
    form.locator("[name=weekday]").select_option(label="Thursday")
    form.locator("[name=time_zone]").fill("Europe/Londn")
    form.locator("button[type=submit]").click()
    problem = page.locator("#new-league-problem")
    problem.wait_for()
    assert "Europe/Londn" in problem.inner_text() and "time zone" in problem.inner_text()
    form.locator("[name=time_zone]").fill("Europe/London")
    form.locator("[name=lane_pairs]").fill("3-4, 5-6")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/commissioner/leagues/thu")
    assert "Thursdays at 19:00 (Europe/London)" in page.inner_text("main")
    league = centre_of(app).league_desk.store.league("thu")
    assert (league.weekday, league.lane_pairs) == (3, ((3, 4), (5, 6)))


def test_the_roster_page_adds_edits_retires_and_reactivates(browser, live_server, app):
    league_with_roster(app, None)
    page = tablet(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/leagues/tue")
    page.wait_for_selector("#roster >> text=Nobody on the roster yet.")
    add = page.locator("#add-bowler")
    add.locator("[name=name]").fill("Dot Cotton")
    add.locator("[name=scorer_name]").fill("DOT")
    add.locator("[name=average]").fill("140")
    add.locator("button[type=submit]").click()
    row = page.locator("#roster tr.bowler-row[data-name='Dot Cotton']")
    row.wait_for()
    assert "72" in row.inner_text()  # handicap: 90% of (220 - 140)

    row.locator("button.edit").click()
    editor = page.locator("tr.edit-bowler form")
    editor.locator("[name=average]").fill("200")
    editor.locator("[name=team]").fill("Pin Pals")
    editor.locator("button[type=submit]").click()
    page.wait_for_selector("#roster tr.bowler-row[data-name='Dot Cotton'] >> text=Pin Pals")
    assert centre_of(app).league_desk.store.bowlers("tue")[0].average == 200

    retire = page.locator("#roster tr[data-name='Dot Cotton'] button.retire")
    assert "danger" in retire.get_attribute("class")
    retire.click()
    page.wait_for_selector("#roster >> text=Nobody on the roster yet.")
    assert roster_names(app, retired=True) == {"Dot Cotton": False}
    page.check("#show-retired")
    page.locator("#roster tr.retired[data-name='Dot Cotton'] button.reactivate").click()
    page.wait_for_selector("#roster tr.bowler-row:not(.retired)[data-name='Dot Cotton']")
    assert roster_names(app) == {"Dot Cotton": True}


def test_a_good_roster_file_imports_and_a_bad_one_lists_each_row(browser, live_server, app):
    league_with_roster(app, None)
    page = tablet(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/leagues/tue")
    page.fill("#import-roster textarea[name=csv]", CSV_WITH_BAD_ROWS)
    page.click("#import-roster button[type=submit]")
    page.wait_for_selector("#import-problems:not([hidden])")
    bad = page.locator("#import-problems li.bad-row")
    assert [bad.nth(i).get_attribute("data-line") for i in range(bad.count())] == [
        "3", "4", "5"]
    assert "Line 3: average" in bad.nth(0).inner_text() and "999" in bad.nth(0).inner_text()
    assert "Nothing was imported: 3 bad rows" in page.inner_text("#import-summary")
    assert roster_names(app, retired=True) == {}

    page.set_input_files("#import-roster input[type=file]", files=[{
        "name": "roster.csv", "mimeType": "text/csv", "buffer": ROSTER.encode()}])
    page.click("#import-roster button[type=submit]")
    page.wait_for_selector("#notice >> text=3 bowlers imported")
    page.locator("#import-problems").wait_for(state="hidden")
    # The roster is read again after the notice: wait for its rows (CI once counted 0).
    page.wait_for_function("document.querySelectorAll('#roster tr.bowler-row').length === 3")
    assert roster_names(app) == {"Ann Smith": True, "Bob Jones": True, "Cy Young": True}


def test_night_check_in_starts_the_matches_on_the_dashboard_and_kiosk(
        browser, live_server, app, service):
    league_with_roster(app)
    page = tablet(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/leagues/tue/night")
    assert "agreement to tonight's ante of $2.00" in page.inner_text("#consent")
    page.fill("[name=night_date]", "2026-11-24")
    page.check("label:has-text('Ann Smith') input")
    page.check("label:has-text('Bob Jones') input")
    assert page.inner_text("#checked-count") == "2"
    page.click("#start-night")
    started = page.locator("#night-matches li.night-match")
    started.first.wait_for()
    assert started.count() == 1
    assert started.first.get_attribute("data-match") == "tue-2026-11-24-3-4"
    assert service.state("tue-2026-11-24-3-4").status == "playing"
    kiosk = started.first.locator("a")
    assert kiosk.get_attribute("href") == "/kiosk/3-4"

    page.goto(f"{live_server.url}/commissioner")
    card = page.locator("article.match-card[data-match='tue-2026-11-24-3-4']")
    card.wait_for()
    assert "Ann Smith" in card.inner_text()
    kiosk.page.goto(f"{live_server.url}/kiosk/3-4")
    page.wait_for_selector("section.bowler[data-bowler='Bob Jones']")


def play_a_night(app, service) -> str:
    client, csrf = league_with_roster(app)
    ids = [b.bowler_id for b in centre_of(app).league_desk.store.bowlers("tue")]
    started = client.post("/api/v1/leagues/tue/nights", headers={"X-CSRFToken": csrf},
                          json={"night_date": "2026-11-24", "checked_in": ids})
    assert started.status_code == 201, started.get_json()
    (match,) = started.get_json()["matches"]
    bowl_match(service.execute, service.state, match["match_id"], random.Random(5))
    assert service.state(match["match_id"]).status == "settled"
    return match["match_id"]


def money(cents: int) -> str:
    return ("−" if cents < 0 else "") + f"${abs(cents) // 100}.{abs(cents) % 100:02d}"


def test_the_standings_page_shows_the_projections_figures(browser, live_server, app, service):
    play_a_night(app, service)
    rebuilt = centre_of(app).league_desk.standings.rebuilt()
    expected = rebuilt.standings("tue")
    assert sum(row.matches_won for row in expected) >= 1
    page = tablet(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/leagues/tue/standings")
    rows = page.locator("#standings tbody tr")
    rows.nth(len(expected) - 1).wait_for()  # drawn from the page's read, not at its load
    assert rows.count() == len(expected) == 3
    for place, row in enumerate(expected):
        shown = rows.nth(place)
        assert shown.get_attribute("data-bowler") == str(row.bowler_id)
        assert shown.locator("td.net").inner_text() == money(row.net_cents)
        assert shown.locator("td.won").inner_text() == str(row.matches_won)
    assert "✔ the money reconciles" in page.inner_text("#reconcile")
    page.click("#by-wins")
    page.wait_for_url("**?by=wins")
    wins = [int(page.locator("#standings tbody tr td.won").nth(i).inner_text())
            for i in range(3)]
    assert wins == sorted(wins, reverse=True)
    winner = max(expected, key=lambda row: (row.matches_won, row.net_cents))
    page.click(f"#standings tr[data-bowler='{winner.bowler_id}'] a")
    page.wait_for_selector("#history tbody tr[data-match='tue-2026-11-24-3-4']")
    assert money(winner.net_cents) in page.inner_text("#bowler-totals")


def test_the_night_sheet_shows_every_match_and_prints_without_the_nav(
        browser, live_server, app, service):
    match_id = play_a_night(app, service)
    season = centre_of(app).league_desk.standings.rebuilt()
    sheet = night_sheet(season, "tue", "tue-2026-11-24")
    (expected,) = sheet.matches
    page = tablet(browser, live_server.url)
    page.goto(f"{live_server.url}/commissioner/leagues/tue/nights/2026-11-24")
    section = page.locator(f".sheet-match[data-match='{match_id}']")
    assert section.locator("h3").inner_text() == "Lanes 3-4 · settled"  # never the match id
    assert section.locator(".pot").inner_text() == money(expected.pot_cents)
    assert section.locator(".winners").inner_text() == ", ".join(expected.winners)
    for line in expected.lines:
        row = section.locator(f"tr[data-seat='{line.seat}']")
        assert row.locator("td.payout").inner_text() == money(line.won_cents)
        if line.hand:
            assert line.hand in row.inner_text()
        for code in line.cards:  # written as people read them: 10♥, not TH
            assert card_text(code.partition("=")[0]) in row.inner_text()
            assert code not in row.inner_text().split()
    # The paper copy pins the log: the hash of the match's last event.
    assert section.locator(".chain-head").inner_text() == chain_head(
        service.repository.store, match_id)
    totals = page.locator("#night-totals")
    assert totals.locator("tr:has-text('Antes') td").inner_text() == "$6.00"  # 3 x $2.00
    assert totals.locator("tr:has-text('Paid out') td").inner_text() == money(
        sheet.paid_out_cents)
    assert page.locator(".signatures .signature-line").count() == 2
    assert page.locator("header.tablet-header").is_visible()
    page.emulate_media(media="print")
    assert page.locator("header.tablet-header").is_hidden()
    assert page.locator(".no-print").is_hidden()
    colours = page.evaluate("""() => { const s = getComputedStyle(document.body);
        return [s.color, s.backgroundColor]; }""")
    assert colours == ["rgb(0, 0, 0)", "rgb(255, 255, 255)"]


@pytest.fixture(autouse=True)
def _lanes_three_and_four_are_free(service):
    """The service's started match m1 holds lanes 1-2; the league bowls on 3-4."""
    assert service.lanes.matches_on(3) == []


def test_the_dashboard_asks_who_a_scorer_name_is_and_seats_the_pick(
        browser, live_server, app, service):
    from drivers.base import BowlerSlot, LaneOpened

    client, csrf = league_with_roster(app)
    ids = [b.bowler_id for b in centre_of(app).league_desk.store.bowlers("tue")]
    assert client.post("/api/v1/leagues/tue/nights", headers={"X-CSRFToken": csrf}, json={
        "night_date": "2026-11-24", "checked_in": ids}).status_code == 201
    service.handle_lane_event(LaneOpened(
        lane=4, bowlers=(BowlerSlot(1, "BOBBY"),), game=1))
    page = tablet(browser, live_server.url)
    request = page.locator("#seat-request-list li.seat-request")
    request.wait_for()
    assert "the scorer shows “BOBBY”" in request.inner_text()
    # No default bowler: one tap must not seat the first one on the list.
    seat = request.get_by_role("button", name="Seat them")
    assert request.locator("select").input_value() == ""
    assert request.locator("select option:checked").inner_text() == "— choose who it is —"
    assert seat.is_disabled()
    request.locator("select").select_option("Bob Jones")
    assert seat.is_enabled()
    seat.click()
    page.wait_for_selector("#notice >> text=Bob Jones bowls in lane 4 slot 1")
    page.wait_for_selector("#seat-requests", state="hidden")
    assert service.lanes.bowler_at(4, 1) == ("tue-2026-11-24-3-4", "Bob Jones")
