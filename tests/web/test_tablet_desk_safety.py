"""The desk's safety nets on the tablet, in real headless Chromium against the real API.

- "Undo last action" names what it would undo in its confirm (the Holland-daze on Ann, not
  the scorer's ball that came after it), undoes only that, and keeps the scorer's ball.
- A feed ball the router cannot place shows as held on the feed board and in the tablet's
  "Held balls" list, and the desk can apply it once the reason is fixed.
"""

from __future__ import annotations

from alley_poker.ledger import commands as c
from drivers.base import BallRecorded
from tests.web import test_tablet_browser
from tests.web.conftest import DESK
from tests.web.test_tablet_browser import feed_health, match_card

tablet = test_tablet_browser.tablet  # the signed-in tablet that says yes to every confirm


def test_undo_names_the_ruling_and_keeps_the_scorers_ball_bowled_after_it(
        tablet, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:scorer:lane-1"))
    strike_cards = list(service.state("m1").hands["Ann"])
    service.execute("m1", c.HollandDaze("Ann", reason="bowled on lane 2", actor=DESK))
    service.execute("m1", c.RecordBall("Bob", 1, 7, actor="feed:scorer:lane-2"))
    assert service.state("m1").hands["Ann"] != strike_cards

    questions: list[str] = []
    tablet.on("dialog", lambda dialog: questions.append(dialog.message))  # the fixture says yes
    card = match_card(tablet, "m1")
    card.locator("input[name=reason]").fill("wrong bowler")
    card.locator("button[data-power=undo-last]").click()
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes('Undone')")

    (question,) = questions
    assert "Holland-daze" in question and "Ann" in question, question
    assert "later action" in question, "the confirm says the scorer's ball is kept"
    state = service.state("m1")
    assert state.hands["Ann"] == strike_cards, "her strike's cards are back"
    assert [b["pins"] for b in state.balls["Bob"][0]] == [7], "the scorer's ball stayed"
    assert [b["pins"] for b in state.balls["Ann"][0]] == [10]


def test_a_ball_that_cannot_be_placed_is_held_on_the_feed_board_and_applied_by_the_desk(
        tablet, service):
    service.bus.publish("alley", {"kind": "feed_health",
                                  "feeds": [feed_health("scorer", "ok")]})
    # Frame 2 of Ann's game arrives before frame 1: the ledger cannot place it yet.
    service.router.handle(BallRecorded(lane=1, bowler=1, game=1, frame=2, ball=1, pins=9,
                                       source="scorer", raw="$APF1,12,BALL,1,1,1,2,1,9"))
    held = tablet.locator("#held-list li.held-item")
    held.wait_for()
    assert "frame 2" in held.inner_text() and "waiting for Ann's frame 1" in held.inner_text()
    assert "$APF1" not in held.inner_text(), "the raw feed line is not for people"
    assert "Ann: game 1, frame 2, ball 1, 9 pins" in held.inner_text()
    tablet.locator("tr.feed[data-source=scorer] .held-cell", has_text="held 1").wait_for()
    assert tablet.locator("tr.feed[data-source=scorer]").get_attribute("data-state") == \
        "amber"

    # Applying it before the gap is filled changes nothing and says why.
    held.locator("button.held-apply").click()
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes('Not done')")
    assert service.state("m1").balls["Ann"][0] == []

    # The desk enters the missing frame 1 (a strike), then the held ball goes in.
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor=DESK))
    held.locator("button.held-apply").click()
    tablet.locator("#held-list li.empty").wait_for()
    assert [b["pins"] for b in service.state("m1").balls["Ann"][0]] == [10, 9]
    assert tablet.locator("#held-count").inner_text() == "0"
