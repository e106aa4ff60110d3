"""The end of a match from the tablet, in real headless Chromium: after the last ball the
desk declines the end draw, then the buys, for everyone who has not answered — one tap and
one confirm each, one audited command each — instead of one bowler at a time."""

from __future__ import annotations

import pytest

from alley_poker.ledger import commands as c
from tests.web.conftest import signed_in_client, start_match
from tests.web.test_tablet_browser import match_card, tablet  # noqa: F401  (the page fixture)

FIVE = {(3, 1): "Cy", (4, 1): "Di", (3, 2): "Ed", (4, 2): "Flo", (3, 3): "Gus"}
PINS = {"Cy": 5, "Di": 6, "Ed": 3, "Flo": 3, "Gus": 7}  # Ed and Flo tie for the lowest


@pytest.fixture
def five_at_the_end(service):
    """Five bowlers on lanes 3-4 have bowled their last ball; nobody has answered yet."""
    start_match(service, "five", FIVE)
    for _frame in range(10):
        for bowler, pins in PINS.items():
            for count in (pins, 0):
                service.execute("five", c.RecordBall(bowler, 1, count, actor="feed:test"))
    state = service.state("five")
    assert state.status == "ending"
    assert sorted(d["bowler"] for d in state.decisions.values()) == ["Ed", "Flo"]
    return service


def test_the_desk_declines_the_end_draw_then_the_buys_for_everyone(five_at_the_end,
                                                                   tablet):  # noqa: F811
    service = five_at_the_end
    card = match_card(tablet, "five")
    draws = card.locator("button.decline-for-everyone[data-kind=end_draw]")
    draws.wait_for(timeout=15_000)  # the dashboard finds the new match on its next poll
    assert draws.inner_text() == ("Decline the end-of-match draw for everyone who has not "
                                  "answered (Ed, Flo)")
    draws.click()

    buys = card.locator("button.decline-for-everyone[data-kind=buy]")
    buys.wait_for()
    assert draws.count() == 0
    assert buys.inner_text() == ("Decline the buys for everyone who has not answered "
                                 "(Cy, Ed, Gus, Di, Flo)")  # in seat order
    # One bowler answers for himself first: the desk's step leaves his answer alone.
    service.execute("five", c.DecideBuy("Gus", False, actor="bowler:Gus"))
    card.locator("button.decline-for-everyone[data-kind=buy]",
                 has_text="(Cy, Ed, Di, Flo)").click()

    card.get_by_text("Showdown — waiting for your confirmation").wait_for()
    assert card.locator(".decision-row").count() == 0
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes("
        "'Buys declined for Cy, Ed, Di, Flo')")

    state = service.state("five")
    assert not state.decisions and state.result is not None
    records = service.repository.store.load("five")
    desk_steps = [r for r in records if r["data"]["command"] == "CommissionerDeclineForEveryone"]
    assert len({r["data"]["action"] for r in desk_steps}) == 2, "one command per tap"
    assert all(r["data"]["actor"].startswith("commissioner:") for r in desk_steps)
    declined = [r["data"]["bowler"] for r in desk_steps if r["type"] == "decision_closed"]
    assert declined == ["Ed", "Flo", "Cy", "Ed", "Di", "Flo"]
    by_gus = [r for r in records if r["type"] == "decision_closed"
              and r["data"]["bowler"] == "Gus"]
    assert [r["data"]["actor"] for r in by_gus] == ["bowler:Gus"]


def test_the_api_refuses_what_cannot_be_declined_for_everyone_and_changes_nothing(
        five_at_the_end, app):
    service = five_at_the_end
    client, csrf = signed_in_client(app)
    seq = service.state("five").seq

    def decline(body):
        answer = client.post("/api/v1/matches/five/commands/decline-for-everyone", json=body,
                             headers={"X-CSRFToken": csrf})
        return answer.status_code, answer.get_json()

    status, body = decline({"kind": "lose_card"})
    assert status == 422 and body["error"]["field"] == "kind", body
    status, body = decline({"kind": "buy"})  # the buys are not offered yet
    assert status == 409, body
    assert body["error"] == {"code": "command_refused", "field": "kind", "message": (
        "nobody has an offer to buy a card waiting: there is nothing to decline")}
    assert service.state("five").seq == seq

    status, body = decline({"kind": "end_draw"})
    assert status == 200, body
    assert [e["data"]["bowler"] for e in body["events"] if e["type"] == "decision_closed"] \
        == ["Ed", "Flo"]
