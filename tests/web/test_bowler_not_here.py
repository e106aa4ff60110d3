"""A bowler who is not there, over the JSON API and on the tablet: a no-show marked not here
after the others bowled is refunded and the night balances; a bowler who left bowls no more
and is never "up"; the desk settles a match as the hands stand at any time with its own
reason; and every such match verifies by re-execution (and in the browser's verifier)."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.service import open_service
from alley_poker.service.fair_export import match_export
from alley_poker.verifier.verify import verify_export
from tests.fair_verify_page import browser_verdicts, verify_page  # noqa: F401
from tests.league.play import decline_the_end
from tests.web.conftest import signed_in_tablet, start_match
from tests.web.test_night_close import mid_match
from tests.web.test_tablet_browser import match_card, tablet  # noqa: F401

FEED = "feed:test"
THREE = {(3, 1): "Ann", (3, 2): "Bob", (4, 1): "Cy"}


def frames(service, match_id: str, bowlers, count: int) -> None:
    for _ in range(count):
        for bowler in bowlers:
            for pins in (9, 0):
                if service.state(match_id).status == "playing":
                    service.execute(match_id, c.RecordBall(bowler, None, pins, actor=FEED))


def finish(service, match_id: str, bowlers) -> None:
    """The rest of the game in 9-0 frames, every end choice declined, the result confirmed."""
    while service.state(match_id).status == "playing":
        frames(service, match_id, bowlers, 1)
    decline_the_end(service.execute, service.state, match_id)
    service.execute(match_id, c.CommissionerConfirmResult(reason="end", actor="commissioner:t"))


def test_a_no_show_is_refunded_over_the_api_and_the_night_balances(app, service):
    _, send = signed_in_tablet(app)
    start_match(service, "m2", THREE)
    frames(service, "m2", ("Ann", "Bob"), 4)            # Cy never came
    before = service.state("m2").seq

    status, body = send("POST", "/api/v1/matches/m2/commands/bowler-gone",
                        {"bowler": "Cy", "reason": "  "})
    assert status == 422 and body["error"]["field"] == "reason"
    assert service.state("m2").seq == before, "a refused command changes nothing"

    status, body = send("POST", "/api/v1/matches/m2/commands/bowler-gone",
                        {"bowler": "Cy", "reason": "never came"})
    assert status == 200, body
    assert [e["type"] for e in body["events"]] == ["bowler_gone", "bowler_removed"]
    assert body["events"][1]["data"]["refund_cents"] == 100
    state = service.state("m2")
    assert state.bowlers == ["Ann", "Bob"] and state.pot_cents == 200
    assert service.lanes.bowler_at(4, 1) is None, "his slot deals to nobody now"

    finish(service, "m2", ("Ann", "Bob"))
    status, report = send("GET", "/api/v1/settlement")
    m2 = next(m for m in report["matches"] if m["match_id"] == "m2")
    assert (m2["status"], m2["pot_cents"], m2["paid_cents"], m2["won_cents"]) == (
        "settled", 0, 200, 200)
    assert "Cy" not in {b["bowler"] for b in report["bowlers"] if "m2" in b["matches"]}


def test_a_bowler_who_leaves_bowls_no_more_and_is_never_up(app, service):
    _, send = signed_in_tablet(app)
    start_match(service, "m2", THREE)
    frames(service, "m2", ("Ann", "Bob", "Cy"), 2)
    status, body = send("POST", "/api/v1/matches/m2/commands/bowler-gone",
                        {"bowler": "Ann", "reason": "went home sick"})
    assert status == 200, body
    assert body["events"][0]["data"] == {**body["events"][0]["data"], "bowler": "Ann",
                                         "outcome": "keeps_hand", "reason": "went home sick"}
    view = send("GET", "/api/v1/matches/m2")[1]
    assert view["bowlers"]["Ann"]["gone"] == "keeps_hand"
    assert "gone" not in view["bowlers"]["Bob"]
    status, body = send("POST", "/api/v1/matches/m2/commands/record-ball",
                        {"bowler": "Ann", "pins": 7})
    assert status == 409 and "Ann has left the match" in body["error"]["message"]
    board = send("GET", "/commissioner/board.json")[1]
    m2 = next(m for m in board["matches"] if m["match_id"] == "m2")
    assert m2["up"]["3"] == "Bob" and m2["bowlers"]["Ann"]["up"] is False
    # The match finishes without her.
    finish(service, "m2", ("Bob", "Cy"))
    assert service.state("m2").status == "settled"


def test_settle_as_the_hands_stand_any_time_closes_the_open_decision_with_the_reason(
        app, service):
    _, send = signed_in_tablet(app)
    mid_match(service)                     # Ann's card to lose is pending, frame 2
    status, body = send("POST", "/api/v1/matches/m1/commands/settle-as-hands-stand",
                        {"reason": "lane 1's pinsetter broke"})
    assert status == 200, body
    closed = [e["data"] for e in body["events"] if e["type"] == "decision_closed"]
    assert [(d["outcome"], d["reason"]) for d in closed] == [
        ("closed_by_desk", "lane 1's pinsetter broke")]
    assert service.state("m1").status == "settled"
    status, audit = send("GET", "/api/v1/audit?match_id=m1&type=decision_closed")
    assert status == 200 and len(audit["entries"]) == 1
    words = str(audit["entries"][0])
    assert "lane 1's pinsetter broke" in words and "night closed" not in words


def test_the_tablet_marks_a_bowler_not_here_and_settles_now(tablet, service):  # noqa: F811
    asked: list[str] = []
    tablet.on("dialog", lambda dialog: asked.append(dialog.message))
    start_match(service, "m2", THREE)
    frames(service, "m2", ("Ann", "Bob"), 2)
    card = match_card(tablet, "m2")
    card.locator("tr.bowler-row[data-bowler=Cy]").wait_for()
    card.locator("select[name=bowler]").select_option("Cy")
    card.locator("input[name=reason]").fill("never came")
    card.locator("button[data-power=bowler-gone]").click()
    card.locator("tr.bowler-row[data-bowler=Cy]").wait_for(state="detached")
    assert service.state("m2").bowlers == ["Ann", "Bob"]
    assert service.state("m2").paid == {"Ann": 100, "Bob": 100}
    assert "Mark as not here: Cy?" in asked[-1] and "ante is refunded" in asked[-1]
    assert "never came" in asked[-1]

    card.locator("select[name=bowler]").select_option("Ann")
    card.locator("input[name=reason]").fill("went home")
    card.locator("button[data-power=bowler-gone]").click()
    card.locator("tr.bowler-row.is-gone[data-bowler=Ann]", has_text="keeps the hand").wait_for()

    card.locator("input[name=reason]").fill("the lane went down")
    card.locator("button[data-power=settle-as-hands-stand]").click()
    # Settled, the match is folded away under "Settled tonight" (the Lanes page's order).
    card.locator("h3", has_text="settled").wait_for(state="attached")
    tablet.locator("#settled-tonight article.match-card[data-match=m2]").wait_for(
        state="attached")
    assert "Settle now, as the hands stand: match m2?" in asked[-1]
    records = service.repository.store.load("m2")
    assert records[-1]["type"] == "match_settled"
    assert records[-1]["data"]["reason"] == "the lane went down"


def test_matches_with_bowlers_not_here_verify_by_re_execution_and_in_the_browser(
        verify_page, tmp_path):  # noqa: F811
    """Fairly dealt (a committed seed): a no-show refunded, a bowler who left keeping the
    hand, one who folded, and a match settled mid-game with a decision open."""
    fair = open_service(f"sqlite:///{tmp_path / 'fair.sqlite3'}")
    desk_actor = "commissioner:t"
    start_match(fair, "m2", THREE)
    frames(fair, "m2", ("Ann", "Bob"), 3)
    fair.execute("m2", c.CommissionerBowlerGone("Cy", "never came", actor=desk_actor))
    frames(fair, "m2", ("Ann", "Bob"), 2)
    fair.execute("m2", c.CommissionerBowlerGone("Ann", "went home", actor=desk_actor))
    finish(fair, "m2", ("Bob",))
    fair.create_match("m3", {(5, 1): "Di", (5, 2): "Ed", (6, 1): "Flo"}, games=1,
                      rules={"leaving_bowler": "folds"}, actor=desk_actor)
    for bowler in ("Di", "Ed", "Flo"):
        fair.execute("m3", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    fair.execute("m3", c.StartMatch(actor=desk_actor))
    for _ in range(3):
        for bowler in ("Di", "Ed", "Flo"):
            fair.execute("m3", c.RecordBall(bowler, None, 10, actor=FEED))
    fair.execute("m3", c.CommissionerBowlerGone("Di", "went home", actor=desk_actor))
    assert fair.state("m3").hands["Di"] == [] and fair.state("m3").gone == {"Di": "folds"}
    finish(fair, "m3", ("Ed", "Flo"))
    start_match(fair, "m1")
    mid_match(fair)
    fair.execute("m1", c.CommissionerSettleAsHandsStand("closing", actor=desk_actor))
    exports = [match_export(fair, match_id) for match_id in ("m1", "m2", "m3")]
    verdicts = [verify_export(export) for export in exports]
    assert all(v.ok for v in verdicts), [str(v) for v in verdicts]
    browser = browser_verdicts(verify_page, exports)
    assert all(v["ok"] for v in browser), browser
