"""The side games' screens in real headless Chromium: the desk (tablet) opens the night's
side games, sets a bracket game (a refused payout shown beside its field) and a pot, enters
each bowler's entries in the grid, sees the preview, seals the draw (its commitment shown),
watches the tree fill as the scorer's games finish on the lanes, pays the bracket, and
confirms the change a corrected ball makes to it, with a reason; the money balances.  A
bowler's phone shows "you face …" and follows the games; the kiosk of a lane pair shows who
there is still alive between games and hides it during a game.  Each at 1280 and 390 px
(screenshots in /tmp); accessible (axe-core) and in plain words."""

from __future__ import annotations

import random
import re
from datetime import date

from alley_poker.side_games import RecordScore
from alley_poker.web.centre_access import centre_of
from drivers.base import BallCorrected, BallRecorded, Flags
from tests.league.play import decide_all
from tests.web.conftest import PIN
from tests.web.test_accessibility import serious_violations
from tests.web.test_refusal_words import page_leaks
from tests.web.test_side_games_api import BRACKETS, NAMES, Night

DESK = "commissioner:test-desk"
WIDE = {"width": 1280, "height": 900}
NARROW = {"width": 390, "height": 844}
SHOTS = "/tmp/side-games-{}-{}.png"


def frames_for(rank: int, game: int) -> list[list[int]]:
    """A planned game of open frames scoring 50 + 2 * rank (a higher rank wins every
    head-to-head; frame 1 is 9-0, so a correction of its first ball costs 9)."""
    rest = 41 + 2 * rank
    base, extra = divmod(rest, 9)
    return [[9, 0]] + [[base + (1 if i < extra else 0), 0] for i in range(9)]


class Lanes:
    """The night started on lanes 3-4 and 5-6; the scorer's balls go through the service's
    lane path (router, ledger, the side games' feed), every decision made as it opens."""

    def __init__(self, app, service, night: Night):
        desk = centre_of(app).league_desk
        started = desk.nights.start("tue", list(night.ids.values()), actor=DESK,
                                    night_date=date.fromisoformat(night.date))
        self.service = service
        self.seat_of = {name: (match_id, lane, slot)
                        for match_id, seats in started.seating.items()
                        for (lane, slot), name in seats.items()}
        self.rank = {name: i for i, name in enumerate(NAMES)}
        self.rng = random.Random(41)

    def bowl(self, name: str, game: int, frames: range = range(1, 11)) -> None:
        match_id, lane, slot = self.seat_of[name]
        plan = frames_for(self.rank[name], game)
        for frame in frames:
            for number, pins in enumerate(plan[frame - 1], start=1):
                self.service.handle_lane_event(BallRecorded(
                    lane=lane, bowler=slot, game=game, frame=frame, ball=number, pins=pins,
                    flags=Flags(), source="scorer"))
                decide_all(self.service.execute, self.service.state, match_id, self.rng)

    def correct_first_ball(self, name: str, game: int) -> None:
        _match_id, lane, slot = self.seat_of[name]
        self.service.handle_lane_event(BallCorrected(
            lane=lane, bowler=slot, game=game, frame=1, ball=1, pins=0, flags=Flags(),
            source="scorer"))


def new_page(browser, viewport, **options):
    context = browser.new_context(viewport=viewport, **options)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())
    return page, errors


def sign_in(page, url: str) -> None:
    page.goto(f"{url}/commissioner")
    page.fill("#pin", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector(".tablet-header")


def wait_for(page, script: str) -> None:
    page.wait_for_function(script, timeout=30_000)


def shot(page, name: str, viewport: dict) -> None:
    page.set_viewport_size(viewport)
    page.screenshot(path=SHOTS.format(name, viewport["width"]), full_page=True)


def assert_plain_and_accessible(page) -> None:
    assert page_leaks(page.inner_text("body")) == []
    assert serious_violations(page) == []


def test_the_desk_enters_draws_follows_the_tree_and_confirms_a_change(
        browser, live_server, app, service):
    night = Night(app)
    desk, errors = new_page(browser, WIDE)
    sign_in(desk, live_server.url)
    desk.goto(f"{live_server.url}/commissioner/leagues/tue/night")
    desk.click("#side-games-link")
    desk.wait_for_selector("#side-live[data-state=live]")
    desk.click("#side-open")
    desk.wait_for_selector("#side-open-night:not([hidden])")

    # A bracket game whose payouts do not add up: the domain's words, beside the field.
    form = desk.locator("#side-settings")
    form.locator("[name=game]").fill("hdcp")
    form.locator("[name=scoring]").select_option("scratch")   # the games alone decide
    form.locator("[name=payouts]").fill("$25.00, $20.00")
    form.locator("button[type=submit]").click()
    problem = desk.locator("#problem-payouts_cents")
    problem.wait_for()
    assert "payouts" in problem.inner_text() and "$40" in problem.inner_text()
    assert form.locator("[name=payouts]").get_attribute("aria-invalid") == "true"
    form.locator("[name=payouts]").fill("$25.00, $10.00")
    form.locator("[name=organiser]").fill("$5.00")
    form.locator("button[type=submit]").click()
    desk.locator("#side-grid-head th", has_text="hdcp brackets").wait_for()
    assert problem.is_hidden()
    form.locator("[name=game]").fill("high-game")
    form.locator("[name=kind]").select_option("high_game")
    form.locator("[name=entry]").fill("$2")
    form.locator("button[type=submit]").click()
    desk.locator("#side-grid-head th", has_text="high game").wait_for()

    # The grid: each bowler buys one bracket and the pot, paid in full.
    for name in NAMES:
        row = desk.locator(f"#side-grid-body tr[data-name={name}]")
        row.locator("td[data-game=hdcp] .side-buy").fill("1")
        row.locator("td[data-game=high-game] .side-buy").fill("1")
        assert row.locator("td[data-game=hdcp] .side-paid").input_value() == "$5.00"
        row.locator(".side-record-button").click()
        row.locator("td[data-game=high-game] .side-have", has_text="$2.00 paid").wait_for()
        assert "$5.00 paid" in row.locator("td[data-game=hdcp] .side-have").inner_text()
    preview = desk.locator(".side-preview-line[data-game=hdcp]")
    assert "8 entries: 1 filled bracket, 0 of seven" in preview.inner_text()
    assert "Paid in $56.00" in desk.locator("#side-money").inner_text()
    shot(desk, "desk-entries", WIDE)

    desk.click("#side-draw")
    desk.locator("#side-commitment", has_text="commitment").wait_for()
    assert re.search(r"commitment [0-9a-f]{64}", desk.inner_text("#side-commitment"))
    assert desk.locator(".side-tree[data-bracket='1'] .side-match").count() == 7
    assert desk.locator("td[data-game=hdcp] .side-buy").count() == 0      # entries closed

    lanes = Lanes(app, service, night)
    # Game 1 on the lanes: round 1 is decided, live, and each winner goes on.
    for name in NAMES:
        lanes.bowl(name, 1)
    wait_for(desk, "document.querySelectorAll('.side-match[data-round=\"1\"] .winner')"
                   ".length === 4")
    round_one = desk.inner_text(".side-round >> nth=0")
    assert "by score" in round_one
    for name in NAMES:
        lanes.bowl(name, 2)
    # The winner's match partner (neither finalist) keeps game 3's last frame for later,
    # so the match is still in play when the scorer corrects a ball.
    winner, loser = "Hal", final_loser(desk)
    partner = next(n for n in NAMES if lanes.seat_of[n][0] == lanes.seat_of[winner][0]
                   and n not in (winner, loser))
    for name in NAMES:
        lanes.bowl(name, 3, range(1, 10) if name == partner else range(1, 11))
    pay = desk.locator(".side-tree[data-bracket='1'] button", has_text="Pay bracket 1")
    pay.click()
    desk.locator(".side-tree[data-bracket='1'] .side-payouts", has_text="Paid:").wait_for()
    assert f"{winner} $25.00" in desk.inner_text(".side-tree[data-bracket='1'] .side-payouts")
    shot(desk, "desk-tree", WIDE)

    # A corrected ball takes the final from its paid winner: the desk confirms, with a reason.
    lanes.correct_first_ball(winner, 3)
    change = desk.locator(".side-change[data-game=hdcp]")
    change.wait_for()
    assert f"hdcp bracket 1: paid {winner} $25.00, {loser} $10.00" in change.inner_text()
    assert f"now say {loser} $25.00, {winner} $10.00" in change.inner_text()
    change.locator("button", has_text="Pay the new result").click()
    assert "Give the reason first" in desk.inner_text("#notice")
    change.locator("input").fill("scorer corrected frame 1")
    change.locator("button", has_text="Pay the new result").click()
    desk.wait_for_selector("#side-pending-section", state="hidden")
    desk.locator(".side-tree[data-bracket='1'] .side-payouts",
                 has_text=f"Paid: {loser} $25.00, {winner} $10.00").wait_for()
    lanes.bowl(partner, 3, range(10, 11))
    desk.locator(".side-pot[data-game=high-game] button", has_text="Pay the pot").click()
    desk.locator(".side-pot[data-game=high-game] h4", has_text="paid").wait_for()
    money = desk.inner_text("#side-money")
    assert "in play $0.00" in money and "balanced to the cent" in money
    assert desk.locator("#csv-money").get_attribute("href").endswith("/money.csv")
    assert_plain_and_accessible(desk)
    shot(desk, "desk-paid", WIDE)
    shot(desk, "desk-paid", NARROW)
    assert desk.evaluate("document.documentElement.scrollWidth") <= NARROW["width"] + 1
    assert errors == []


def final_loser(desk) -> str:
    """The other finalist: the best of the half Hal is not in (ranks follow NAMES)."""
    matches = desk.eval_on_selector_all(
        ".side-tree[data-bracket='1'] .side-match[data-round='1']",
        "ms => ms.map(m => Array.from(m.querySelectorAll('.side-name'), n => n.textContent))")
    halves = [[n for match in matches[:2] for n in match],
              [n for match in matches[2:] for n in match]]
    other = next(half for half in halves if "Hal" not in half)
    return max((n for n in other if n in NAMES), key=NAMES.index)


def test_the_phone_shows_you_face_and_the_kiosk_who_is_still_alive_between_games(
        browser, live_server, app, service):
    night = Night(app)
    night.open_with_entries()                  # one handicap bracket of eight, a high game
    lanes = Lanes(app, service, night)
    assert night.send("/draw", {}).status_code == 200
    match_id = lanes.seat_of["Ann"][0]
    pair = service.lanes.assignment(match_id).lanes
    on_lanes = sorted(n for n in NAMES if lanes.seat_of[n][0] == match_id)

    code = night.desk.send("POST", f"/matches/{match_id}/phone-links", {"bowler": "Ann"})
    assert code.status_code == 201, code.get_json()
    phone, phone_errors = new_page(browser, NARROW, is_mobile=True, has_touch=True)
    phone.goto(code.get_json()["url"].replace("http://localhost", live_server.url))
    phone.wait_for_selector("#connection[data-state=live]")
    mine = phone.locator("#side-brackets li[data-game=hdcp]")
    mine.wait_for()
    tree = night.read()["games"][0]["brackets"][0]
    first = next(m for m in tree["matches"] if m["round"] == 1 and "Ann" in m["names"])
    facing = next(n for n in first["names"] if n != "Ann")
    assert f"you face {facing} in game 1 (round 1)" in mine.inner_text()
    assert "Alive in 1 of your 1 bracket" in phone.inner_text("#side-summary")
    assert "high game" in phone.inner_text("#side-pots")

    kiosk, kiosk_errors = new_page(browser, WIDE)
    kiosk.goto(f"{live_server.url}/kiosk/{pair[0]}-{pair[1]}")
    kiosk.wait_for_selector("#connection[data-state=live]")
    alive = kiosk.locator("#still-alive")
    alive.wait_for()                                     # before the first ball: everyone
    assert sorted(kiosk.eval_on_selector_all(
        "#still-alive li", "items => items.map(i => i.dataset.name)")) == on_lanes
    assert "hdcp bracket 1" in alive.inner_text() and "$" not in alive.inner_text()
    shot(kiosk, "kiosk-before", WIDE)

    # During a game the list is out of the way of the hands; between games it is back.
    lanes.bowl("Ann", 1, range(1, 2))
    alive.wait_for(state="hidden")
    for name in NAMES:
        lanes.bowl(name, 1, range(2, 11) if name == "Ann" else range(1, 11))
    alive.wait_for()
    decided = night.read()["games"][0]["brackets"][0]
    survivors = {m["winner_name"] for m in decided["matches"] if m["round"] == 1}
    wait_for(kiosk, "document.querySelectorAll('#still-alive li').length === "
                    f"{len(survivors & set(on_lanes))}")
    assert {*kiosk.eval_on_selector_all("#still-alive li", "items => items.map(i => "
                                        "i.dataset.name)")} == survivors & set(on_lanes)
    assert_plain_and_accessible(kiosk)
    shot(kiosk, "kiosk-between", WIDE)
    shot(kiosk, "kiosk-between", NARROW)
    assert kiosk.evaluate("document.documentElement.scrollWidth") <= NARROW["width"] + 1

    # The phone followed game 1 by itself: Ann's next opponent, or where she went out.
    if "Ann" in survivors:
        second = next(m for m in decided["matches"] if m["round"] == 2 and
                      "Ann" in m["names"])
        expected = f"you face {next(n for n in second['names'] if n != 'Ann')} in game 2"
    else:
        expected = "out in round 1"
    mine.filter(has_text=expected).wait_for()
    assert_plain_and_accessible(phone)
    shot(phone, "phone", NARROW)
    shot(phone, "phone", WIDE)
    assert phone_errors == [] and kiosk_errors == []


def test_the_desk_takes_an_entry_back_and_records_a_roll_off(browser, live_server, app):
    night = Night(app)
    assert night.send("", {}).status_code == 201
    assert night.send("/games/hdcp", {**BRACKETS, "tie_rule": "roll_off"}, "PUT").status_code == 200
    for name in NAMES:
        bought = 2 if name == "Ann" else 1
        assert night.send("/entries", {"game": "hdcp", "bowler": night.ids[name],
                                       "entries": bought, "paid_cents": 500 * bought}
                          ).status_code == 200
    desk, errors = new_page(browser, WIDE)
    sign_in(desk, live_server.url)
    desk.goto(f"{live_server.url}/commissioner/leagues/tue/nights/{night.date}/side-games")
    ann = desk.locator("#side-grid-body tr[data-name=Ann] td[data-game=hdcp]")
    ann.locator(".side-have", has_text="2 × $5.00 = $10.00 paid").wait_for()
    assert "1 left over" in desk.inner_text(".side-preview-line[data-game=hdcp]")
    ann.locator("button", has_text="Take one back").click()
    ann.locator(".side-have", has_text="1 × $5.00 = $5.00 paid").wait_for()
    assert "0 left over" in desk.inner_text(".side-preview-line[data-game=hdcp]")
    assert "refunded $5.00" in desk.inner_text("#side-money")

    assert night.send("/draw", {}).status_code == 200
    first = desk.locator(".side-match[data-round='1'][data-match='1']")
    first.wait_for()                                # the desk's draw, pushed to this page
    pair = first.get_attribute("data-sides").split(",")
    for bowler in pair:                             # the same game (no handicap): a tie
        night.side.run(night.night_id, RecordScore(int(bowler), 1, 180), actor="scorer:test")
    first.locator(".side-how", has_text="tied: roll-off to record").wait_for()
    first.locator("select").select_option(pair[1])
    first.locator("button", has_text="Record the roll-off").click()
    first.locator(".side-how", has_text="by roll-off").wait_for()
    assert first.locator(f".winner[data-bowler='{pair[1]}']").count() == 1
    assert errors == []
