"""The night's close over the API and on the tablet: settle a match as the hands stand, the
settlement's list of unsettled matches, the feed board's alarm and the tablet's banner."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.service.night_close import NightClose
from tests.web.conftest import signed_in_tablet
from tests.web.test_tablet_browser import tablet  # noqa: F401  (the signed-in page fixture)

FEED = "feed:test"


def mid_match(service) -> None:
    """m1 (Ann, Bob, $1 antes) in its first frames: Ann strikes then throws a gutter ball, so
    her card to lose is pending when the night closes."""
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=FEED))
    service.execute("m1", c.RecordBall("Bob", 1, 9, actor=FEED))
    service.execute("m1", c.RecordBall("Bob", 1, 1, actor=FEED))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor=FEED))


def test_settle_as_the_hands_stand_pays_the_best_hand_and_the_money_balances(app, service):
    _, send = signed_in_tablet(app)
    mid_match(service)
    hands = {b: list(service.state("m1").hands[b]) for b in ("Ann", "Bob")}
    status, report = send("GET", "/api/v1/settlement")
    assert report["unsettled"] == [{"match_id": "m1", "status": "playing", "pot_cents": 200}]

    status, body = send("POST", "/api/v1/matches/m1/commands/settle-as-hands-stand",
                        {"reason": "the night closed at 23:30"})
    assert status == 200, body
    state = service.state("m1")
    assert state.status == "settled" and state.decisions == {}
    assert {b: list(state.hands[b]) for b in ("Ann", "Bob")} == hands, "hands as they stood"
    antes = 200
    buys = sum(e["data"]["cents"] for e in body["events"] if e["type"] == "buy_paid")
    payouts = sum(state.won.values())
    refunds = antes + buys - sum(state.paid.values())
    assert (buys, refunds, state.pot_cents) == (0, 0, 0)
    assert antes + buys == state.pot_cents + payouts + refunds
    assert payouts == 200 and set(state.result["winners"]) <= {"Ann", "Bob"}

    status, report = send("GET", "/api/v1/settlement")
    assert report["unsettled"] == [] and report["totals"]["complete"] is True
    # Settled once: a second close is refused, naming why, and changes nothing.
    status, body = send("POST", "/api/v1/matches/m1/commands/settle-as-hands-stand", {})
    assert status == 409 and "settled" in body["error"]["message"]
    assert sum(service.state("m1").won.values()) == 200


def test_the_feed_board_carries_the_alarm_until_the_match_is_voided(app, service):
    _, send = signed_in_tablet(app)
    mid_match(service)
    assert send("GET", "/api/v1/feeds")[1]["night_close"] is None
    NightClose(service, close="23:30").check()
    alarm = send("GET", "/api/v1/feeds")[1]["night_close"]
    assert alarm["close"] == "23:30" and alarm["all_settled"] is False
    assert alarm["matches"] == [{"match_id": "m1", "status": "playing", "pot_cents": 200}]
    status, body = send("POST", "/api/v1/matches/m1/commands/void", {"reason": "closed"})
    assert status == 200, body
    alarm = send("GET", "/api/v1/feeds")[1]["night_close"]
    assert (alarm["matches"], alarm["all_settled"]) == ([], True)
    assert service.state("m1").paid == {"Ann": 0, "Bob": 0}, "every ante refunded"


def test_the_tablet_shows_the_close_banner_and_settles_from_it(tablet, service):  # noqa: F811
    mid_match(service)
    banner = tablet.locator("#night-close")
    assert banner.is_hidden()
    NightClose(service, close="23:30").check()
    banner.wait_for(state="visible")
    assert "closed at 23:30" in banner.inner_text()
    row = banner.locator("li.night-close-match[data-match=m1]")
    assert "still playing" in row.inner_text() and "$2.00" in row.inner_text()
    assert row.inner_text().startswith("Lanes 1-2 is still playing"), row.inner_text()
    row.locator("button.settle-as-hands-stand").click()
    banner.wait_for(state="hidden")
    assert service.state("m1").status == "settled"
    assert sum(service.state("m1").won.values()) == 200
    records = service.repository.store.load("m1")
    assert records[-1]["type"] == "match_settled"
    assert "night closed at 23:30" in records[-1]["data"]["reason"]


def test_the_settlement_page_names_the_matches_not_settled(tablet, live_server, service):  # noqa: F811
    mid_match(service)
    tablet.goto(f"{live_server.url}/commissioner/settlement")
    unsettled = tablet.locator("#unsettled")
    unsettled.wait_for(state="visible")
    assert unsettled.inner_text() == "⚠ Not settled: Lanes 1-2 (playing, pot $2.00)"
    service.execute("m1", c.CommissionerSettleAsHandsStand(reason="closed",
                                                           actor="commissioner:test"))
    tablet.reload()
    tablet.wait_for_selector("#settlement tr.totals")
    assert unsettled.is_hidden()
    assert "all settled" in tablet.inner_text("#settlement tr.totals")
