"""Bowlers answer every kind of decision from their kiosk: a real python-socketio client over
the network sends ``decide``; the ledger takes it only from the bowler whose decision is open."""

from __future__ import annotations

import pytest

from alley_poker.ledger import commands as c
from alley_poker.web.view_patch import take_update
from tests.web.conftest import pair_kiosk, signed_in_client
from tests.web.test_sockets import KioskClient


@pytest.fixture
def kiosk(live_server, app):
    client = KioskClient(live_server.url, device_token=pair_kiosk(app, "1-2"))
    client.held = client.next()[1]["state"]  # the full state on joining
    yield client
    client.close()


def state_at(kiosk: KioskClient, seq: int) -> dict:
    """The state the kiosk holds once the pushes have brought the match to ``seq``."""
    while kiosk.held["seq"] < seq:
        kind, message = kiosk.next()
        if kind in ("state", "match_update"):
            kiosk.held = take_update(kiosk.held, message)
    return kiosk.held


def decide(kiosk: KioskClient, **answer):
    return kiosk.client.call("decide", {"match_id": "m1", **answer}, timeout=5)


def bowl_open_games(service) -> None:
    """Both bowlers bowl a one-pin-a-ball game: the match ends level, both lowest."""
    for _frame in range(10):
        for bowler in ("Ann", "Bob"):
            for _ball in range(2):
                service.execute("m1", c.RecordBall(bowler, 1, 1, actor="feed:test"))


def test_a_guess_from_the_kiosk_is_taken_once_and_waits_for_the_ball(kiosk, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    assert decide(kiosk, kind="guess", bowler="Ann", side="up")["error"]["code"] == \
        "validation_failed"
    assert decide(kiosk, kind="guess", bowler="Ann", side="left") == {"ok": True}
    (decision,) = service.state("m1").pending_for("Ann")
    assert decision["guess"]["side"] == "left"
    again = decide(kiosk, kind="guess", bowler="Ann", side="right")
    assert again["error"]["code"] == "command_refused"
    assert "already" in again["error"]["message"]
    # The bowler cannot skip the ball return by tapping a card meanwhile.
    card = service.state("m1").display_card(service.state("m1").hands["Ann"][0])
    waiting = decide(kiosk, kind="lose-card", bowler="Ann", card=card)
    assert waiting["error"]["code"] == "command_refused"


def test_the_bowler_enters_the_ball_return_at_the_kiosk(kiosk, service):
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
    assert decide(kiosk, kind="guess-outcome", bowler="Ann", side="left")["error"][
        "message"] == "Ann has no guess waiting for its outcome"
    assert decide(kiosk, kind="guess", bowler="Ann", side="right") == {"ok": True}
    bob = decide(kiosk, kind="guess-outcome", bowler="Bob", side="right")
    assert bob["error"]["code"] == "command_refused"  # Bob has no guess of his own
    # It came back left: the guess was wrong, and Ann now chooses her card.
    assert decide(kiosk, kind="guess-outcome", bowler="Ann", side="left") == {"ok": True}
    (decision,) = service.state("m1").pending_for("Ann")
    assert decision["guess"]["outcome"] == "left" and decision["guess"]["correct"] is False
    card = service.state("m1").display_card(service.state("m1").hands["Ann"][0])
    assert decide(kiosk, kind="lose-card", bowler="Ann", card=card) == {"ok": True}
    assert service.state("m1").pending_for("Ann") == []


def test_a_steal_takes_the_tapped_card_from_the_chosen_bowler(kiosk, service):
    service.execute("m1", c.RecordBall("Bob", 1, 10, actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 8, standing=[7, 10], actor="feed:test"))
    service.execute("m1", c.RecordBall("Ann", 1, 2, standing=[], actor="feed:test"))
    state = service.state("m1")
    bobs = [state.display_card(card) for card in state.hands["Bob"]]
    assert decide(kiosk, kind="steal", bowler="Bob", from_bowler="Ann",
                  card=bobs[0])["error"]["code"] == "command_refused"  # not Bob's decision
    assert decide(kiosk, kind="steal", bowler="Ann", from_bowler="Bob",
                  card=bobs[1]) == {"ok": True}
    state = state_at(kiosk, service.state("m1").seq)
    ann, bob = state["bowlers"]["Ann"], state["bowlers"]["Bob"]
    assert bobs[1] in ann["hand"] and bobs[1] not in bob["hand"]
    assert len(bob["hand"]) == len(bobs) - 1
    assert ann["pending"] == []


def test_end_draw_and_buy_answers_from_the_kiosk(kiosk, app, service):
    bowl_open_games(service)
    pile_before = len(service.state("m1").pile)
    assert decide(kiosk, kind="end-draw", bowler="Ann", accept=True) == {"ok": True}
    assert decide(kiosk, kind="end-draw", bowler="Bob", accept=False) == {"ok": True}
    state = service.state("m1")
    assert len(state.hands["Ann"]) == 1 and state.hands["Bob"] == []
    assert len(state.pile) == pile_before - 1
    assert decide(kiosk, kind="buy", bowler="Ann", accept="maybe")["error"]["field"] == "accept"
    paid_before = service.state("m1").paid["Bob"]
    seq = service.state("m1").seq
    # A buy spends Bob's money: the kiosk only asks the desk; nothing is bought yet.
    asked = decide(kiosk, kind="buy", bowler="Bob", accept=True)
    assert asked["ok"] is True and asked["awaiting"] == "desk", asked
    assert "confirm it on the tablet" in asked["message"]
    assert service.state("m1").seq == seq and service.state("m1").hands["Bob"] == []
    # The tablet's confirmation is the second step.
    tablet, csrf = signed_in_client(app)
    confirmed = tablet.post("/api/v1/matches/m1/commands/buy",
                            json={"bowler": "Bob", "accept": True},
                            headers={"X-CSRFToken": csrf})
    assert confirmed.status_code == 200, confirmed.get_json()
    assert len(service.state("m1").hands["Bob"]) == 1
    assert service.state("m1").paid["Bob"] == paid_before + service.state("m1").ante_cents


def test_decide_refuses_an_unknown_kind_and_a_kiosk_on_other_lanes(kiosk, live_server, app,
                                                                   service):
    answer = decide(kiosk, kind="void", bowler="Ann", reason="no")
    assert answer["error"]["code"] == "bad_request" and answer["error"]["field"] == "kind"
    other = KioskClient(live_server.url, lanes="5-6", device_token=pair_kiosk(app, "5-6"))
    try:
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        service.execute("m1", c.RecordBall("Ann", 1, 0, gutter=True, actor="feed:test"))
        refused = other.client.call("decide", {"match_id": "m1", "kind": "guess",
                                               "bowler": "Ann", "side": "left"}, timeout=5)
        assert refused["error"]["code"] == "forbidden"
        assert service.state("m1").pending_for("Ann")[0]["guess"] is None
    finally:
        other.close()
