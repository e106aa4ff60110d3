"""The side games' screens, server side: the desk's page (signed in only, the night's
bowlers in its grid, linked from the check-in), the ``side_changed`` push (the desk's room
by ``side_join``, the night's lanes and phones; never money), and what the views add for
the screens (each match's scores, where a bowler went out, whether a game is in).
In-process Socket.IO (Flask-SocketIO's test client on the app's real server and rooms)."""

from __future__ import annotations

import pytest

from alley_poker.side_games import RecordScore
from alley_poker.web.side_game_views import bowler_view
from tests.web.test_side_games_api import NAMES, Night


@pytest.fixture
def night(app):
    return Night(app)


def socket_of(app, client=None):
    return app.extensions["socketio"].test_client(app, flask_test_client=client)


def pushes(socket, kind="side_changed"):
    return [m["args"][0] for m in socket.get_received() if m["name"] == kind]


def test_the_desk_page_is_the_commissioners_with_the_nights_bowlers(app, night):
    page = f"/commissioner/leagues/tue/nights/{night.date}/side-games"
    stranger = app.test_client().get(page).get_data(as_text=True)
    assert 'id="pin"' in stranger and "side-page" not in stranger
    html = night.desk.client.get(page).get_data(as_text=True)
    assert f'data-night="{night.night_id}"' in html
    for name in NAMES:
        assert f'data-name="{name}"' in html
    assert night.desk.client.get(
        "/commissioner/leagues/tue/nights/2026-13-01/side-games").status_code == 404
    assert night.desk.client.get(
        f"/commissioner/leagues/nope/nights/{night.date}/side-games").status_code == 404
    check_in = night.desk.client.get("/commissioner/leagues/tue/night").get_data(as_text=True)
    assert page in check_in


def test_the_started_nights_grid_holds_who_checked_in(app, night):
    started = night.desk.send("POST", "/leagues/tue/nights",
                              {"checked_in": [night.ids["Ann"], night.ids["Bob"]]})
    assert started.status_code == 201, started.get_json()
    html = night.desk.client.get(
        f"/commissioner/leagues/tue/nights/{night.date}/side-games").get_data(as_text=True)
    assert 'data-name="Ann"' in html and 'data-name="Bob"' in html
    assert 'data-name="Cal"' not in html


def test_side_join_is_the_desks_and_names_a_night(app, night):
    stranger = socket_of(app)
    refused = stranger.emit("side_join", {"night_id": night.night_id}, callback=True)
    assert refused["error"]["code"] == "unauthorized"
    desk = socket_of(app, night.desk.client)
    for bad in ({}, {"night_id": "Tue 1"}, {"night_id": "x" * 100}, "tue"):
        answer = desk.emit("side_join", bad, callback=True)
        assert answer["error"]["field"] == "night_id", answer
    assert desk.emit("side_join", {"night_id": night.night_id}, callback=True) == {
        "ok": True, "night_id": night.night_id}


def test_a_change_is_pushed_to_the_desk_and_the_nights_lanes_without_money(app, night):
    night.open_with_entries()
    started = night.start()
    desk = socket_of(app, night.desk.client)
    desk.emit("side_join", {"night_id": night.night_id}, callback=True)
    night_lanes = "-".join(map(str, started["matches"][0]["lanes"]))
    kiosk, other_kiosk = socket_of(app), socket_of(app)
    kiosk.emit("join", {"lanes": night_lanes}, callback=True)
    other_kiosk.emit("join", {"lanes": "1-2"}, callback=True)    # m1: not the night's
    for socket in (desk, kiosk, other_kiosk):
        socket.get_received()

    assert night.send("/draw", {}).status_code == 200
    night.side.run(night.night_id, RecordScore(night.ids["Ann"], 1, 180), actor="scorer:test")
    heard = pushes(kiosk)
    assert heard == [{"night_id": night.night_id, "kind": "side_events"}] * 2
    assert pushes(desk) == heard
    assert pushes(other_kiosk) == []


def test_the_views_give_the_screens_scores_where_a_bowler_went_out_and_games_in(app, night):
    night.open_with_entries()
    night.start()
    assert night.read()["scores_in"] == 0
    assert night.send("/draw", {}).status_code == 200
    rank = {name: i for i, name in enumerate(NAMES)}
    night.score_game(1, lambda name: 100 + rank[name])
    view = night.read()
    assert view["scores_in"] == len(NAMES)
    [bracket] = view["games"][0]["brackets"]
    by_id = {b: n for n, b in night.ids.items()}
    for match in bracket["matches"]:
        if match["round"] == 1:
            # handicap scoring: pins and the league's handicap (averages 150 + 5 * rank)
            assert match["scores"] == [None if s is None else night.side.night(
                night.night_id).scores[s, 1].counted("handicap") for s in match["sides"]]
            assert None not in match["scores"] and match["status"] == "decided"
        else:                       # games 2 and 3 not in yet
            assert match["scores"] == [None, None]
    loser = next(m["sides"][0] if m["winner"] == m["sides"][1] else m["sides"][1]
                 for m in bracket["matches"] if m["round"] == 1)
    [out] = bowler_view(night.side.night(night.night_id), loser, by_id)["brackets"]
    assert (out["alive"], out["out_round"], out["finished"]) == (False, 1, False)
