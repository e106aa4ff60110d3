"""The league routes of /api/v1: leagues, rosters (with CSV import), nights, standings, sheets
and exports, over a real service and league store (tmp SQLite); bad input is refused naming
the field and changes nothing."""

from __future__ import annotations

import csv
import io

import pytest

from tests.web.conftest import signed_in_client

TUESDAY = {"league_id": "tue", "name": "Tuesday Night Poker", "ante_cents": 200,
           "weekday": 1, "start_time": "19:00", "time_zone": "America/Chicago",
           "lane_pairs": [[3, 4]], "games": 1}
ROSTER = """name,scorer_name,average,handicap_basis,team
Ann Smith,ANN,150,book,Pin Pals
Bob Jones,BOB,180,,
Cy Young,CY,,league,Pin Pals
"""


class Desk:
    """The signed-in tablet's calls, with the CSRF header on every state-changing one."""

    def __init__(self, app):
        self.client, self.csrf = signed_in_client(app)

    def get(self, url):
        return self.client.get(f"/api/v1{url}")

    def send(self, method, url, body):
        return self.client.open(f"/api/v1{url}", method=method, json=body,
                                headers={"X-CSRFToken": self.csrf})


def refused(answer, status, field):
    assert answer.status_code == status, answer.get_json()
    error = answer.get_json()["error"]
    assert error["field"] == field, error
    return error


@pytest.fixture
def desk(app):
    desk = Desk(app)
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    return desk


def roster_of(desk, league="tue", retired=False):
    answer = desk.get(f"/leagues/{league}/bowlers?include_retired={str(retired).lower()}")
    assert answer.status_code == 200
    return {b["name"]: b for b in answer.get_json()["bowlers"]}


def test_a_league_is_made_listed_read_and_changed(desk):
    listed = desk.get("/leagues").get_json()["leagues"]
    assert [(lg["league_id"], lg["weekday_name"], lg["lane_pairs"]) for lg in listed] == [
        ("tue", "Tuesday", [[3, 4]])]
    changed = desk.send("PUT", "/leagues/tue", {"ante_cents": 300, "handicap_percent": 80})
    assert changed.status_code == 200
    league = desk.get("/leagues/tue").get_json()
    assert (league["ante_cents"], league["handicap_percent"], league["name"]) == (
        300, 80, "Tuesday Night Poker")
    assert league["handicap"].startswith("80%")


@pytest.mark.parametrize("change, status, field", [
    ({"time_zone": "America/Chikago"}, 400, "time_zone"),
    ({"lane_pairs": [[2, 3]]}, 400, "lane_pairs"),
    ({"weekday": 7}, 422, "weekday"),
    ({"start_time": "7pm"}, 422, "start_time"),
    ({"league_id": "Tue Night"}, 422, "league_id"),
    ({"name": "Ann\u202e"}, 422, "name"),
])
def test_a_bad_league_is_refused_naming_the_field(app, change, status, field):
    desk = Desk(app)
    refused(desk.send("POST", "/leagues", {**TUESDAY, **change}), status, field)
    assert desk.get("/leagues").get_json()["leagues"] == []


def test_a_second_league_with_the_same_id_is_a_conflict_and_an_unknown_one_not_found(desk):
    refused(desk.send("POST", "/leagues", {**TUESDAY, "name": "Other"}), 409, "league_id")
    assert desk.get("/leagues/tue").get_json()["name"] == "Tuesday Night Poker"
    refused(desk.get("/leagues/wed"), 404, "league_id")
    refused(desk.send("PUT", "/leagues/wed", {"ante_cents": 300}), 404, "league_id")
    refused(desk.send("PUT", "/leagues/tue", {}), 422, None)


def test_bowlers_are_added_edited_retired_and_reactivated(desk):
    made = desk.send("POST", "/leagues/tue/bowlers",
                     {"name": "Ann Smith", "scorer_name": "ANN", "average": 150})
    assert made.status_code == 201
    ann = made.get_json()
    assert ann["handicap"] == 63  # 90% of (220 - 150)
    edited = desk.send("PATCH", f"/leagues/tue/bowlers/{ann['bowler_id']}",
                       {"average": 200, "team": "Pin Pals"}).get_json()
    assert (edited["average"], edited["team"], edited["handicap"]) == (200, "Pin Pals", 18)
    retired = desk.send("PATCH", f"/leagues/tue/bowlers/{ann['bowler_id']}", {"active": False})
    assert retired.get_json()["active"] is False
    assert roster_of(desk) == {}
    assert roster_of(desk, retired=True)["Ann Smith"]["active"] is False
    back = desk.send("PATCH", f"/leagues/tue/bowlers/{ann['bowler_id']}", {"active": True})
    assert back.get_json()["active"] is True and "Ann Smith" in roster_of(desk)


def test_bad_bowlers_are_refused_naming_the_field(desk):
    desk.send("POST", "/leagues/tue/bowlers", {"name": "Ann Smith", "scorer_name": "ANN"})
    refused(desk.send("POST", "/leagues/tue/bowlers",
                      {"name": "ann smith", "scorer_name": "AS"}), 400, "name")
    refused(desk.send("POST", "/leagues/tue/bowlers",
                      {"name": "Bob", "scorer_name": "BOB", "average": 301}), 422, "average")
    refused(desk.send("POST", "/leagues/wed/bowlers",
                      {"name": "Bob", "scorer_name": "BOB"}), 404, "league_id")
    refused(desk.send("PATCH", "/leagues/tue/bowlers/999", {"average": 100}), 404, "bowler_id")
    refused(desk.send("PATCH", "/leagues/tue/bowlers/1", {"colour": "red"}), 422, "colour")
    assert list(roster_of(desk)) == ["Ann Smith"]


def test_a_good_roster_file_imports_every_row(desk):
    answer = desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER})
    assert answer.status_code == 201 and answer.get_json()["imported"] == 3
    roster = roster_of(desk)
    assert (roster["Bob Jones"]["average"], roster["Cy Young"]["handicap_basis"],
            roster["Ann Smith"]["team"]) == (180, "league", "Pin Pals")


def test_a_bad_roster_file_lists_every_bad_row_and_imports_nothing(desk):
    bad = ROSTER + "Dee Dee,DEE,301,,\nann smith,AN2,140,,\nEve,,120,,\n"
    answer = desk.send("POST", "/leagues/tue/roster", {"csv": bad})
    error = refused(answer, 400, "csv")
    assert [row["line"] for row in error["rows"]] == [5, 6, 7]
    assert "301" in error["rows"][0]["reason"] and "line 2" in error["rows"][1]["reason"]
    assert roster_of(desk) == {}


def start_night(desk, names, night_date="2026-11-24"):
    roster = roster_of(desk)
    return desk.send("POST", "/leagues/tue/nights", {
        "night_date": night_date, "checked_in": [roster[n]["bowler_id"] for n in names]})


def test_a_night_starts_every_match_once(desk, service):
    desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER})
    answer = start_night(desk, ["Ann Smith", "Bob Jones", "Cy Young"])
    assert answer.status_code == 201, answer.get_json()
    started = answer.get_json()
    assert started["night_id"] == "tue-2026-11-24"
    (match,) = started["matches"]
    assert match["lanes"] == [3, 4] and match["kiosk"] == "/kiosk/3-4"
    state = service.state(match["match_id"])
    assert state.status == "playing" and sorted(state.bowlers) == [
        "Ann Smith", "Bob Jones", "Cy Young"]
    nights = desk.get("/leagues/tue/nights").get_json()
    assert [n["night_date"] for n in nights["nights"]] == ["2026-11-24"]
    assert nights["nights"][0]["started_at"].endswith("-06:00")  # Chicago, in November
    again = start_night(desk, ["Ann Smith", "Bob Jones"])
    refused(again, 409, "night_date")


def test_a_night_with_bad_check_in_is_refused_and_makes_nothing(desk, service):
    desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER})
    before = len(service.repository.store.match_ids())
    refused(desk.send("POST", "/leagues/tue/nights", {"checked_in": [999]}), 400,
            "checked_in")
    refused(desk.send("POST", "/leagues/tue/nights", {"checked_in": []}), 422, "checked_in")
    refused(desk.send("POST", "/leagues/tue/nights",
                      {"checked_in": [1], "night_date": "2026-02-30"}), 422, "night_date")
    assert len(service.repository.store.match_ids()) == before
    assert desk.get("/leagues/tue/nights").get_json()["nights"] == []


def test_standings_sheet_and_exports_follow_the_night(desk):
    desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER})
    assert start_night(desk, ["Ann Smith", "Bob Jones"]).status_code == 201
    report = desk.get("/leagues/tue/standings").get_json()
    rows = {row["name"]: row for row in report["standings"]}
    assert rows["Ann Smith"]["antes_cents"] == 200 and rows["Ann Smith"]["matches"] == 1
    # Nothing is settled yet: the antes are in play, and the money still adds up.
    assert report["in_play_cents"] == 400 and report["net_cents"] == -400
    assert report["reconciles"] is True
    ann = rows["Ann Smith"]["bowler_id"]
    history = desk.get(f"/leagues/tue/bowlers/{ann}/history").get_json()
    assert [m["night_date"] for m in history["matches"]] == ["2026-11-24"]
    sheet = desk.get("/leagues/tue/nights/2026-11-24/sheet")
    assert sheet.status_code == 200
    night_csv = desk.get("/leagues/tue/nights/2026-11-24.csv")
    assert night_csv.mimetype == "text/csv" and "Ann Smith" in night_csv.get_data(as_text=True)
    roster_csv = list(csv.reader(io.StringIO(
        desk.get("/leagues/tue/roster.csv").get_data(as_text=True))))
    assert len(roster_csv) == 4 and "Cy Young" in [row[0] for row in roster_csv]
    standings_csv = desk.get("/leagues/tue/standings.csv").get_data(as_text=True)
    assert "Bob Jones" in standings_csv
    refused(desk.get("/leagues/tue/nights/2026-12-01/sheet"), 404, "night_date")
    refused(desk.get("/leagues/tue/nights/soon/sheet"), 404, "night_date")
    refused(desk.get("/leagues/tue/bowlers/999/history"), 404, "bowler_id")


def test_league_reads_are_for_the_commissioner_only(desk, app):
    stranger = app.test_client()
    for url in ("/leagues", "/leagues/tue", "/leagues/tue/bowlers", "/leagues/tue/standings",
                "/leagues/tue/roster.csv", "/seat-requests"):
        assert stranger.get(f"/api/v1{url}").status_code == 401, url


def test_seat_requests_list_and_a_pick_of_an_unknown_request_is_not_found(desk):
    assert desk.get("/seat-requests").get_json() == {"seat_requests": []}
    refused(desk.send("POST", "/seat-requests/7/pick", {"bowler": "Ann Smith"}), 404,
            "request_id")


def test_a_scorer_name_nobody_matches_waits_for_the_desks_pick(desk, service):
    from drivers.base import BowlerSlot, LaneOpened

    desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER})
    assert start_night(desk, ["Ann Smith", "Bob Jones", "Cy Young"]).status_code == 201
    service.handle_lane_event(LaneOpened(
        lane=3, bowlers=(BowlerSlot(1, "ANN"), BowlerSlot(2, "SUB")), game=1))
    (waiting,) = desk.get("/seat-requests").get_json()["seat_requests"]
    assert (waiting["lane"], waiting["slot"], waiting["scorer_name"]) == (3, 2, "SUB")
    assert sorted(waiting["choices"]) == ["Ann Smith", "Bob Jones", "Cy Young"]
    url = f"/seat-requests/{waiting['id']}/pick"
    refused(desk.send("POST", url, {"bowler": "Nobody Here"}), 400, "bowler")
    # No default: a pick that names nobody seats nobody, and says so.
    for nobody in ({}, {"bowler": ""}, {"bowler": "  "}, {"bowler": None}):
        error = refused(desk.send("POST", url, nobody), 422, "bowler")
        assert error["message"] == ("choose who the scorer's name is: no bowler was picked, "
                                    "so nobody was seated")
    assert service.lanes.bowler_at(3, 2) is None
    assert len(desk.get("/seat-requests").get_json()["seat_requests"]) == 1
    picked = desk.send("POST", url, {"bowler": "Cy Young"})
    assert picked.status_code == 200 and "Cy Young bowls in lane 3 slot 2" in picked.get_json()[
        "message"]
    assert service.lanes.bowler_at(3, 2) == ("tue-2026-11-24-3-4", "Cy Young")
    assert desk.get("/seat-requests").get_json()["seat_requests"] == []
    refused(desk.send("POST", url, {"bowler": "Cy Young"}), 404, "request_id")
