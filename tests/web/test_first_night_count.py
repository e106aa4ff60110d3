"""The "First night" checklist counts only what really waits for the desk: a league match
whose bowlers still have their end draw or buys to answer is not "waiting for your
confirmation" (Settlement has nothing to confirm then); it is once its showdown is there."""

from __future__ import annotations

import re

from alley_poker.ledger import commands as c
from tests.web.test_league_pages import league_with_roster, start_tonights_night


def results_step(client) -> str:
    """The results step as the desk reads it: "no: <what the step says>"."""
    page = client.get("/commissioner/first-night").get_data(as_text=True)
    found = re.search(r'<li data-step="results" data-done="(yes|no)">.*?<p>(.*?)</p>', page,
                      re.S)
    assert found, "the checklist has no results step"
    text = re.sub(r"<[^>]+>", " ", found.group(2))
    return found.group(1) + ": " + " ".join(text.split())


def test_first_night_counts_only_the_results_waiting_for_the_desk(app, service):
    client, csrf = league_with_roster(app)
    match_id = start_tonights_night(app, client, {"X-CSRFToken": csrf})
    assert "1 still being bowled." in results_step(client)

    bowlers = service.state(match_id).bowlers
    for _frame in range(10):
        for index, bowler in enumerate(bowlers):
            for pins in (3 + index, 0):
                service.execute(match_id, c.RecordBall(bowler, 1, pins, actor="feed:test"))
    assert service.state(match_id).status == "ending" and service.state(match_id).decisions
    step = results_step(client)
    assert step.startswith("no: 1 with end draws or buys still to be answered by its "
                           "bowlers."), step
    assert "waiting for your confirmation" not in step

    def desk(kind: str, body: dict) -> None:
        answer = client.post(f"/api/v1/matches/{match_id}/commands/{kind}", json=body,
                             headers={"X-CSRFToken": csrf})
        assert answer.status_code == 200, answer.get_json()

    desk("decline-for-everyone", {"kind": "end_draw"})
    assert "with end draws or buys" in results_step(client), "the buys are open now"
    desk("decline-for-everyone", {"kind": "buy"})
    assert results_step(client).startswith("no: 1 waiting for your confirmation. Settlement")

    desk("confirm-result", {"reason": "the night is over"})
    assert results_step(client).startswith("yes: Every match is settled.")
