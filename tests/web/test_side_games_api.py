"""The side-game routes of /api/v1: the desk's (settings, entries, draw, payments, changes,
money, export, CSVs), a bowler's phone's brackets, a kiosk's still-alive list; bad input is
refused naming the field and changes nothing (real service and store, tmp SQLite)."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from alley_poker.cli.root import main
from alley_poker.ledger import commands as c
from alley_poker.side_games import RecordScore
from alley_poker.verifier.side_night import verify_side_export
from alley_poker.web.centre_access import centre_of
from tests.web.test_league_api import Desk, refused
from tests.web.test_phone import path_of

NAMES = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal"]
LEAGUE = {"league_id": "tue", "name": "Tuesday Night Poker", "ante_cents": 200,
          "weekday": 1, "start_time": "19:00", "time_zone": "America/Chicago",
          "lane_pairs": [[3, 4], [5, 6]], "games": 3}
BRACKETS = {"kind": "bracket", "games": [1, 2, 3], "scoring": "handicap", "entry_cents": 500,
            "payouts_cents": [3000, 1000]}
HIGH_GAME = {"kind": "high_game", "scoring": "scratch", "games": [1, 2, 3],
             "entry_cents": 200, "places_percent": [100]}


class Night:
    """A league with eight bowlers and tonight's side games open at the desk."""

    def __init__(self, app):
        self.app = app
        self.desk = Desk(app)
        assert self.desk.send("POST", "/leagues", LEAGUE).status_code == 201
        roster = "name,scorer_name,average,handicap_basis,team\n" + "".join(
            f"{n},{n.upper()},{150 + 5 * i},book,\n" for i, n in enumerate(NAMES))
        made = self.desk.send("POST", "/leagues/tue/roster", {"csv": roster})
        assert made.status_code == 201
        self.ids = {b["name"]: b["bowler_id"] for b in made.get_json()["bowlers"]}
        self.date = self.desk.get("/leagues/tue").get_json()["tonight"]
        self.url = f"/leagues/tue/nights/{self.date}/side-games"
        self.night_id = f"tue-{self.date}"

    def send(self, tail, body=None, method="POST"):
        return self.desk.send(method, self.url + tail, body)

    def read(self):
        answer = self.desk.get(self.url)
        assert answer.status_code == 200, answer.get_json()
        return answer.get_json()

    def open_with_entries(self):
        assert self.send("", {}).status_code == 201
        assert self.send("/games/hdcp", BRACKETS, "PUT").status_code == 200
        assert self.send("/games/high-game", HIGH_GAME, "PUT").status_code == 200
        for name in NAMES:
            assert self.send("/entries", {"game": "hdcp", "bowler": self.ids[name],
                                          "paid_cents": 500}).status_code == 200
            assert self.send("/entries", {"game": "high-game", "bowler": self.ids[name],
                                          "paid_cents": 200}).status_code == 200

    def start(self):
        started = self.desk.send("POST", "/leagues/tue/nights",
                                 {"checked_in": list(self.ids.values())})
        assert started.status_code == 201, started.get_json()
        return started.get_json()

    @property
    def side(self):
        return centre_of(self.app).league_desk.side_games

    def bowled_and_paid(self):
        """The draw made, every game in (a higher name in NAMES bowls better), the bracket
        paid."""
        assert self.send("/draw", {}).status_code == 200
        rank = {name: i for i, name in enumerate(NAMES)}
        for game in (1, 2, 3):
            self.score_game(game, lambda name: 100 + 10 * rank[name])
        assert self.send("/payments", {"game": "hdcp", "bracket": 1}).status_code == 200

    def score_game(self, game, scratch_of):
        for name, bowler in self.ids.items():
            self.side.run(self.night_id, RecordScore(bowler, game, scratch_of(name)),
                          actor="scorer:test")


@pytest.fixture
def night(app):
    return Night(app)


def test_the_desk_opens_enters_previews_and_draws(night):
    night.open_with_entries()
    before = night.read()
    hdcp = before["games"][0]
    assert hdcp["preview"] == {"brackets": 1, "sevens": 0, "left_over": 0, "to_fill_next": 6}
    assert before["money"]["entries_cents"] == 8 * 700 and before["money"]["balanced"]
    assert not before["draw"]["sealed"] and hdcp["brackets"] == []

    drawn = night.send("/draw", {})
    assert drawn.status_code == 200, drawn.get_json()
    after = drawn.get_json()
    assert after["draw"]["sealed"] and after["draw"]["seed"] is None
    assert len(after["draw"]["commitment"]) == 64
    [bracket] = after["games"][0]["brackets"]
    assert sorted(bracket["alive"]) == sorted(night.ids.values())
    assert [m["names"] for m in bracket["matches"][:4]] and all(
        m["status"] == "scores" for m in bracket["matches"][:4])

    # After the draw: no more bracket entries, no second draw; the night is as it was.
    seq = after["seq"]
    error = refused(night.send("/entries", {"game": "hdcp", "bowler": night.ids["Ann"],
                                            "paid_cents": 500}), 400, "game")
    assert "entries are closed" in error["message"]
    refused(night.send("/draw", {}), 400, "draw")
    assert night.read()["seq"] == seq


@pytest.mark.parametrize("tail, body, method, status, field", [
    ("/games/hdcp", {**BRACKETS, "payouts_cents": [2500, 1000]}, "PUT", 400, "payouts_cents"),
    ("/games/hdcp", {**BRACKETS, "games": [1, 2, 4]}, "PUT", 400, "games"),
    ("/games/hdcp", {**BRACKETS, "entry_cents": "5"}, "PUT", 422, "bracket.entry_cents"),
    ("/games/hdcp", {**BRACKETS, "tie_rule": "coin"}, "PUT", 422, "bracket.tie_rule"),
    ("/games/Bad Id", BRACKETS, "PUT", 400, "game"),
    ("/entries", {"game": "hdcp", "bowler": 1, "paid_cents": 400}, "POST", 400, "paid_cents"),
    ("/entries", {"game": "nope", "bowler": 1, "paid_cents": 500}, "POST", 400, "game"),
    ("/entries", {"game": "hdcp", "bowler": 999, "paid_cents": 500}, "POST", 404,
     "bowler_id"),
    ("/entries", {"game": "hdcp", "bowler": 1, "paid_cents": 500, "x": 1}, "POST", 422, "x"),
    ("/payments", {"game": "hdcp", "bracket": 1}, "POST", 400, "game"),
    ("/changes", {"game": "hdcp", "accept": True, "reason": ""}, "POST", 422, "reason"),
])
def test_bad_commands_are_refused_naming_the_field_and_change_nothing(
        night, tail, body, method, status, field):
    assert night.send("", {}).status_code == 201
    assert night.send("/games/hdcp", BRACKETS, "PUT").status_code == 200
    if "bowler" in body and body["bowler"] == 1:
        body = {**body, "bowler": night.ids["Ann"]}
    seq = night.read()["seq"]
    refused(night.send(tail, body, method), status, field)
    assert night.read()["seq"] == seq


def test_a_night_without_side_games_and_the_callers_who_may_not(app, night):
    refused(night.desk.get(night.url), 404, "night_date")
    refused(night.send("/entries", {"game": "hdcp", "bowler": 1, "paid_cents": 5}), 404,
            "night_date")
    assert night.send("", {}).status_code == 201
    refused(night.send("", {}), 409, "night_date")
    stranger = app.test_client()
    assert stranger.get(f"/api/v1{night.url}").status_code == 401
    # The tablet's session without its CSRF token: refused, nothing written.
    answer = night.desk.client.put(f"/api/v1{night.url}/games/hdcp", json=BRACKETS)
    assert answer.status_code == 403
    assert night.read()["games"] == []


def test_the_nights_first_ball_seals_the_draw_and_closes_brackets(app, service, night):
    night.open_with_entries()
    started = night.start()
    match_id = started["matches"][0]["match_id"]
    seat = started["matches"][0]["bowlers"][0]
    assert not night.read()["draw"]["sealed"]
    service.execute(match_id, c.RecordBall(seat, None, 7, actor="feed:test"))
    sealed = night.read()
    assert sealed["draw"]["sealed"] and len(sealed["games"][0]["brackets"]) == 1


def test_brackets_are_closed_once_the_night_has_bowled(app, service, night):
    assert night.send("", {}).status_code == 201
    started = night.start()
    match_id = started["matches"][0]["match_id"]
    service.execute(match_id, c.RecordBall(started["matches"][0]["bowlers"][0], None, 7,
                                           actor="feed:test"))
    assert night.send("/games/hdcp", BRACKETS, "PUT").status_code == 200
    error = refused(night.send("/entries", {"game": "hdcp", "bowler": night.ids["Ann"],
                                            "paid_cents": 500}), 409, "draw")
    assert "first ball" in error["message"]
    # A pot still takes entries until a game is in.
    assert night.send("/games/high-game", HIGH_GAME, "PUT").status_code == 200
    assert night.send("/entries", {"game": "high-game", "bowler": night.ids["Ann"],
                                   "paid_cents": 200}).status_code == 200


def test_the_phone_shows_its_bowlers_brackets_and_who_they_face(app, night):
    night.open_with_entries()
    started = night.start()
    assert night.send("/draw", {}).status_code == 200
    match = started["matches"][0]
    seat = match["bowlers"][0]
    tablet = night.desk
    code = tablet.send("POST", f"/matches/{match['match_id']}/phone-links",
                       {"bowler": seat}).get_json()
    phone = app.test_client()
    assert phone.get(path_of(code["url"])).status_code == 303
    mine = phone.get("/api/v1/phone/side-games").get_json()
    assert mine["bowler"] == seat
    [bracket] = mine["side_games"]["brackets"]
    assert bracket["alive"] and bracket["next_game"] == 1 and bracket["opponent"] in NAMES
    assert bracket["opponent"] != seat

    # Game 1 in: the better of each pair goes on to game 2 against a new opponent.
    rank = {name: i for i, name in enumerate(NAMES)}
    night.score_game(1, lambda name: 100 + rank[name])
    after = phone.get("/api/v1/phone/side-games").get_json()["side_games"]["brackets"][0]
    if after["alive"]:
        assert after["next_game"] == 2 and after["opponent"] != bracket["opponent"]
    else:
        assert after["next_game"] is None and rank[bracket["opponent"]] > rank[seat]
    assert app.test_client().get("/api/v1/phone/side-games").status_code == 401


def test_the_kiosk_lists_who_on_its_lanes_is_still_alive_without_money(app, night):
    night.open_with_entries()
    started = night.start()
    assert night.send("/draw", {}).status_code == 200
    rank = {name: i for i, name in enumerate(NAMES)}
    night.score_game(1, lambda name: 100 + rank[name])
    lanes = "-".join(map(str, started["matches"][0]["lanes"]))
    answer = app.test_client().get(f"/api/v1/lanes/{lanes}/side-games")
    assert answer.status_code == 200
    board = answer.get_json()
    on_lanes = set(started["matches"][0]["bowlers"])
    alive = {row["name"] for row in board["alive"]}
    tree = night.read()["games"][0]["brackets"][0]
    winners = {m["winner_name"] for m in tree["matches"][:4]}
    assert alive == winners & on_lanes
    text = answer.get_data(as_text=True)
    assert "cents" not in text and "bowler_id" not in text
    refused(app.test_client().get("/api/v1/lanes/0-x/side-games"), 404, "lane_pair")


def test_a_paid_bracket_the_games_change_waits_for_the_desk(night):
    night.open_with_entries()
    night.bowled_and_paid()
    paid = night.read()["games"][0]["brackets"][0]
    winner = next(p["bowler"] for p in paid["payouts"] if p["cents"] == 3000)
    # A corrected game 3 takes the final from its winner: never re-paid silently.
    night.side.run(night.night_id, RecordScore(winner, 3, 0), actor="scorer:test")
    [change] = night.read()["pending_changes"]
    assert (change["game"], change["bracket"]) == ("hdcp", 1)
    answer = night.send("/changes", {"game": "hdcp", "bracket": 1, "accept": True,
                                     "reason": "scorer corrected game 3"})
    assert answer.status_code == 200 and answer.get_json()["pending_changes"] == []
    assert answer.get_json()["money"]["balanced"]


def test_money_sheet_exports_and_the_verified_draw(app, night, tmp_path):
    night.open_with_entries()
    night.start()
    night.bowled_and_paid()
    assert night.send("/payments", {"game": "high-game"}).status_code == 200
    money = night.desk.get(f"{night.url}/money").get_json()
    assert money["entries_cents"] == 8 * 700 == money["payouts_cents"]
    assert money["in_play_cents"] == 0 and money["balanced"]
    assert {row["name"]: row["won_cents"] for row in money["bowlers"]}["Hal"] == 3000 + 1600

    sheet = night.desk.get(f"/leagues/tue/nights/{night.date}/sheet").get_json()
    assert sheet["side_money"]["payouts_cents"] == 8 * 700 and sheet["side_balanced"]
    rows = night.desk.get(f"/leagues/tue/nights/{night.date}.csv").get_data(as_text=True)
    assert "SIDE TOTAL" in rows and "56.00" in rows
    season = night.desk.get("/leagues/tue/standings").get_json()["side_games"]
    assert season["payouts_cents"] == 8 * 700 and season["balanced"]
    brackets = night.desk.get(f"{night.url}/brackets.csv")
    assert brackets.mimetype == "text/csv" and "bowler_a" in brackets.get_data(as_text=True)
    assert "Hal" in night.desk.get(f"{night.url}/money.csv").get_data(as_text=True)

    export = night.desk.get(f"{night.url}/export").get_json()
    assert "NOT YET PROVABLE" in str(verify_side_export(export))
    assert night.send("/reveal", {}).status_code == 200
    export = night.desk.get(f"{night.url}/export").get_json()
    assert verify_side_export(export).ok
    good = tmp_path / "night.json"
    good.write_text(json.dumps(export))
    ran = CliRunner().invoke(main, ["verify", str(good)])
    assert ran.exit_code == 0 and ran.output.startswith("OK: side games"), ran.output

    forged = copy.deepcopy(export)
    made = next(r for r in forged["events"] if r["type"] == "draw_made")
    seats = made["data"]["brackets"][0]
    seats[0], seats[3] = seats[3], seats[0]
    bad = tmp_path / "forged.json"
    bad.write_text(json.dumps(forged))
    ran = CliRunner().invoke(main, ["verify", str(bad)])
    assert ran.exit_code == 1 and "bracket 1 is not what the seed draws" in ran.output


def test_the_openapi_document_lists_the_side_game_routes(app):
    paths = app.test_client().get("/api/v1/openapi.json").get_json()["paths"]
    night = "/api/v1/leagues/{league_id}/nights/{night_date}/side-games"
    assert {"get", "post"} <= set(paths[night])
    for tail in ("/entries", "/draw", "/payments", "/changes", "/roll-offs", "/absences"):
        assert "post" in paths[night + tail], tail
    assert "get" in paths["/api/v1/phone/side-games"]
    assert "get" in paths["/api/v1/lanes/{lane_pair}/side-games"]

