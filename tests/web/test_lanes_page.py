"""The Lanes page at the scale of a league season: tonight's live matches first, settled ones
folded away ("Settled tonight", "Settled earlier") with their Confirm, Undo and Void buttons
gone; a settled match is taken back only through its own deliberate step.

Before, after four league weeks, tonight's live matches sat below eight settled ones on a
6,000 px page, each still showing Confirm, Undo and Void.
"""

from __future__ import annotations

import pytest

from alley_poker.ledger import commands as c
from tests.web import test_tablet_browser
from tests.web.conftest import DESK, signed_in_client, start_match
from tests.web.test_accessibility import serious_violations
from tests.web.test_tablet_browser import match_card

tablet = test_tablet_browser.tablet  # the signed-in tablet that says yes to every confirm

WEEKS = ("2026-11-03", "2026-11-10", "2026-11-17", "2026-11-24")


def settle(service, match_id: str) -> None:
    service.execute(match_id, c.CommissionerSettleAsHandsStand(reason="end of night",
                                                               actor=DESK))
    assert service.state(match_id).status == "settled"


@pytest.fixture
def season(service):
    """Four earlier league nights of two settled matches each (lanes 11-12 and 13-14 of
    each night's own pair), one match settled tonight (lanes 3-4) and tonight's live one
    (m1, lanes 1-2, the fixture's), made last but shown first."""
    for week, night in enumerate(WEEKS):
        for pair in range(2):
            lane = 11 + 4 * week + 2 * pair
            match_id = f"tue-{night}-{lane}-{lane + 1}"
            service.create_match(match_id, {(lane, 1): "Cal", (lane + 1, 1): "Dee"}, games=1,
                                 actor=DESK, league={"league_id": "tue", "night_id": f"tue-{night}",
                                                     "night_date": night, "people": {}})
            for bowler in ("Cal", "Dee"):
                service.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
            service.execute(match_id, c.StartMatch(actor=DESK))
            settle(service, match_id)
    start_match(service, "early", {(3, 1): "Eve", (4, 1): "Fay"})
    settle(service, "early")
    return service


def test_the_page_as_served_lists_tonights_live_match_before_the_folded_settled_ones(
        app, season):
    client, _ = signed_in_client(app)
    html = client.get("/commissioner").get_data(as_text=True)
    live = html.index('id="matches"')
    tonight = html.index('id="settled-tonight"')
    earlier = html.index('id="settled-earlier"')
    assert live < html.index('data-match="m1"') < tonight, "the live match comes first"
    assert tonight < html.index('data-match="early"') < earlier
    assert all(earlier < html.index(f'data-match="tue-{night}-') for night in WEEKS)
    # The newest earlier night first.
    assert [html.index(f'data-match="tue-{night}-') for night in reversed(WEEKS)] == sorted(
        html.index(f'data-match="tue-{night}-') for night in WEEKS)
    assert "<details" in html[tonight - 60:tonight] and " open" not in html[tonight - 60:tonight]


def test_settled_matches_are_folded_away_without_their_buttons(tablet, season):
    live = match_card(tablet, "m1")
    live.locator("button[data-power=confirm-result]").wait_for()
    assert live.locator("button[data-power=void]").is_visible()
    tablet.locator("#settled-earlier .settled-count", has_text="8").wait_for()
    assert tablet.locator("#settled-tonight > summary").inner_text() == "Settled tonight (1)"
    assert tablet.locator("#settled-earlier > summary").inner_text() == "Settled earlier (8)"

    # Only the live match is in view: the settled ones sit closed below it.
    assert not match_card(tablet, "early").is_visible()
    assert tablet.locator("#matches > article.match-card").count() == 1
    box = live.bounding_box()
    assert box is not None and box["y"] < 2_000, "tonight's match is near the top"
    height = tablet.evaluate("document.documentElement.scrollHeight")
    assert height < 4_000, f"the page is {height} px with nine settled matches folded"

    tablet.locator("#settled-tonight > summary").click()
    early = match_card(tablet, "early")
    early.locator("table.bowlers").wait_for()
    for power in ("confirm-result", "undo-last", "void", "holland-daze", "remove-bowler"):
        assert early.locator(f"button[data-power={power}]").count() == 0, power
    assert not early.locator("button[data-power=undo-result]").is_visible(), \
        "taking back a settled match is behind its own step"
    assert serious_violations(tablet) == []


def test_a_settled_match_is_taken_back_only_through_its_own_step(tablet, season):
    tablet.locator("#settled-tonight > summary").click()
    early = match_card(tablet, "early")
    early.get_by_text("Take back this settled match…").click()
    undo = early.locator("button[data-power=undo-result]")
    undo.click()
    tablet.wait_for_function(
        "document.getElementById('notice').textContent.includes('Give a reason')")
    assert season.state("early").status == "settled", "nothing without a reason"

    questions: list[str] = []
    tablet.on("dialog", lambda dialog: questions.append(dialog.message))  # the fixture says yes
    early.locator("input[name=reason]").fill("settled the wrong pair")
    undo.click()
    # Back among the live matches, at its end, with its buttons; the fold is empty.
    tablet.locator("#matches > article.match-card[data-match=early] "
                   "button[data-power=confirm-result]").wait_for()
    assert season.state("early").status == "ending"
    (question,) = questions
    assert "Undo the result of match early" in question
    tablet.locator("#settled-tonight").wait_for(state="hidden")
    assert tablet.locator("#matches > article.match-card").evaluate_all(
        "cards => cards.map(c => c.dataset.match)") == ["m1", "early"], "by lanes"
