"""Settlement and audit over the API: a night played through the API, as JSON and as CSV."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest

from alley_poker.ledger import commands as c
from tests.conftest import centre_app
from tests.web.conftest import PIN, signed_in_tablet


def play_out(send, service, match_id="m1"):
    """9-0 frames to the end, every end-of-match choice declined, the result confirmed."""
    url = f"/api/v1/matches/{match_id}/commands"
    while service.state(match_id).status == "playing":
        for bowler in service.state(match_id).bowlers:
            for pins in (9, 0):
                if service.state(match_id).status == "playing":
                    assert send("POST", f"{url}/record-ball",
                                {"bowler": bowler, "pins": pins})[0] == 200
    for decision in list(service.state(match_id).decisions.values()):
        kind = decision["kind"].replace("_", "-")
        assert send("POST", f"{url}/{kind}", {"bowler": decision["bowler"], "accept": False})[
            0] == 200
    while service.state(match_id).decisions:  # the buys open once the draws are answered
        decision = next(iter(service.state(match_id).decisions.values()))
        status, body = send("POST", f"{url}/{decision['kind'].replace('_', '-')}",
                            {"bowler": decision["bowler"], "accept": False})
        assert status == 200, body
    status, body = send("POST", f"{url}/confirm-result", {"reason": "end of the night"})
    assert status == 200, body


def test_the_night_settles_to_zero_and_downloads_as_csv(app, service):
    client, send = signed_in_tablet(app)
    assert send("POST", "/api/v1/matches", {
        "match_id": "m2", "games": 1, "ante_cents": 250,
        "slots": [{"lane": 3, "slot": 1, "bowler": "Ann"},
                  {"lane": 4, "slot": 1, "bowler": "Cy"}]})[0] == 201
    play_out(send, service, "m1")
    state = service.state("m1")
    assert state.status == "settled"
    shares = state.result["shares"]

    status, report = send("GET", "/api/v1/settlement")
    assert status == 200
    money = {row["bowler"]: row for row in report["bowlers"]}
    # m1: $1 antes, pot $2 shared by the winners; m2 not started: nobody has paid into it.
    assert money["Ann"]["paid_cents"] == 100 and money["Bob"]["paid_cents"] == 100
    assert money["Ann"]["won_cents"] == shares.get("Ann", 0)
    assert money["Bob"]["won_cents"] == shares.get("Bob", 0)
    assert sum(shares.values()) == 200
    assert sum(row["net_cents"] for row in report["bowlers"]) == 0
    assert money["Cy"] == {"bowler": "Cy", "paid_cents": 0, "won_cents": 0, "net_cents": 0,
                           "matches": ["m2"]}
    assert report["totals"] == {"paid_cents": 200, "won_cents": 200, "held_cents": 0,
                                "complete": False}  # m2 is still open
    assert report["unsettled"] == [{"match_id": "m2", "status": "open", "pot_cents": 0}]

    download = client.get("/api/v1/settlement.csv")
    assert download.mimetype == "text/csv"
    assert "attachment" in download.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(download.get_data().decode("utf-8-sig"))))
    assert rows[0] == ["bowler", "paid_cents", "won_cents", "net_cents", "matches"]
    assert [row[0] for row in rows[1:]] == ["Ann", "Bob", "Cy"]
    assert rows[1][4] == "m1 m2"


def test_settlement_for_a_day(app, service):
    _client, send = signed_in_tablet(app)
    today = service.repository.store.load("m1")[0]["at"][:10]
    assert [b["bowler"] for b in send("GET", f"/api/v1/settlement?date={today}")[1][
        "bowlers"]] == ["Ann", "Bob"]
    status, other_day = send("GET", "/api/v1/settlement?date=1999-12-31")
    assert status == 200 and other_day["bowlers"] == [] and other_day["date"] == "1999-12-31"
    for bad in ("yesterday", "2026-02-30", "2026-1-1", "1700000000"):
        for route in ("/api/v1/settlement", "/api/v1/settlement.csv"):
            status, body = send("GET", f"{route}?date={bad}")
            assert (status, body) == (422, {"error": {
                "code": "validation_failed", "field": "date",
                "message": "The date must be a day as YYYY-MM-DD."}}), (route, bad)
    assert send("GET", "/api/v1/settlement?date=")[1]["date"] is None  # empty: every day


def test_the_audit_shows_who_did_what_filtered_and_as_csv(app, service):
    client, send = signed_in_tablet(app)
    send("POST", "/api/v1/matches/m1/commands/holland-daze", {"bowler": "Bob", "reason": "lane 1"})
    status, page = send("GET", "/api/v1/audit")
    assert status == 200
    entries = page["entries"]
    assert [e["seq"] for e in entries] == list(range(1, service.state("m1").seq + 1))
    assert entries[0]["type"] == "match_created" and entries[0]["actor"] == "commissioner:test-desk"
    started = next(e for e in entries if e["type"] == "match_started")
    assert "pile" not in started["summary"]
    assert page["next_since"] == entries[-1]["id"]

    ruled = send("GET", "/api/v1/audit?actor=commissioner:tablet")[1]["entries"]
    assert ruled and {e["type"] for e in ruled} >= {"holland_daze"}
    assert all(e["actor"] == "commissioner:tablet" for e in ruled)
    assert "reason=lane 1" in next(e for e in ruled if e["type"] == "holland_daze")["summary"]
    consents = send("GET", "/api/v1/audit?type=consent_recorded&bowler=Ann")[1]["entries"]
    assert [(e["type"], e["actor"]) for e in consents] == [("consent_recorded", "bowler:Ann")]
    assert send("GET", "/api/v1/audit?match_id=other")[1]["entries"] == []
    second = send("GET", f"/api/v1/audit?since={entries[1]['id']}&limit=2")[1]["entries"]
    assert [e["seq"] for e in second] == [3, 4]
    assert send("GET", "/api/v1/audit?limit=0")[0] == 422

    rows = list(csv.reader(io.StringIO(
        client.get("/api/v1/audit.csv").get_data().decode("utf-8-sig"))))
    assert rows[0] == ["id", "time", "match_id", "seq", "type", "actor", "command", "summary",
                       "local_time", "description"]
    assert len(rows) == len(entries) + 1


@pytest.mark.slow
def test_the_audit_reads_newest_first_by_cursor_in_the_centres_zone_in_plain_words(service):
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                     time_zone="America/Chicago")
    client, send = signed_in_tablet(app)
    for ruling in range(200):  # a long night: more than the old 200 the CSV stopped at
        service.execute("m1", c.HollandDaze("Bob", reason=f"ruling {ruling}",
                                            actor="commissioner:tablet"))
    everything = send("GET", "/api/v1/audit?limit=5000")[1]["entries"]
    newest = everything[-1]["id"]
    first = send("GET", "/api/v1/audit?order=newest&limit=10")[1]
    assert [e["id"] for e in first["entries"]] == [e["id"] for e in everything[::-1][:10]]
    assert first["time_zone"] == "America/Chicago"
    assert first["entries"][0]["id"] == newest
    assert first["entries"][0]["description"] == "Holland-daze ruled for Bob (ruling 199)"
    # Chicago is 5 or 6 hours behind UTC: the same moment, on the centre's clock.
    utc, local = first["entries"][0]["time"], first["entries"][0]["local_time"]
    assert local[-6:] in ("-05:00", "-06:00") and utc[-6:] == "+00:00"
    assert datetime.fromisoformat(local) == datetime.fromisoformat(utc).replace(microsecond=0)
    # Paging back: every entry once, none skipped, down to the first.
    seen, before = [], None
    while True:
        page = send("GET", "/api/v1/audit?order=newest&limit=50"
                    + (f"&before={before}" if before else ""))[1]
        seen += [e["id"] for e in page["entries"]]
        before = page["next_before"]
        if before is None:
            break
    assert seen == [e["id"] for e in everything[::-1]]
    started = next(e for e in everything if e["type"] == "match_started")
    assert started["description"] == "Match started: ante $1.00 each, agreed by all 2"
    assert "=" not in started["description"]
    # The CSV is complete without asking: more than the JSON's default page of 200? Every row.
    rows = list(csv.DictReader(io.StringIO(client.get("/api/v1/audit.csv").get_data().decode(
        "utf-8-sig"))))
    assert len(everything) > 200, len(everything)
    assert [int(row["id"]) for row in rows] == [e["id"] for e in everything]


def test_csv_cells_that_look_like_formulas_stay_text(app, service):
    _client, send = signed_in_tablet(app)
    send("POST", "/api/v1/matches", {"match_id": "m3", "games": 1, "slots": [
        {"lane": 5, "slot": 1, "bowler": "=1+1"}, {"lane": 5, "slot": 2, "bowler": "Cy"}]})
    client, _ = signed_in_tablet(app)
    text = client.get("/api/v1/settlement.csv").get_data().decode("utf-8-sig")
    assert "'=1+1" in text and "\n=1+1" not in text


def test_bad_audit_cursors_are_422_naming_the_parameter_and_nothing_else(app, service):
    client, send = signed_in_tablet(app)
    for query, field in (("since=-1", "since"), ("since=x", "since"), ("limit=0", "limit"),
                         ("limit=5001", "limit"), ("limit=ten", "limit")):
        for route in ("/api/v1/audit", "/api/v1/audit.csv"):
            answer = client.get(f"{route}?actor=bowler:Ann&{query}")
            assert answer.status_code == 422, (route, query)
            error = answer.get_json()["error"]
            assert answer.get_json() == {"error": error}, (route, query)
            assert (error["code"], error["field"]) == ("validation_failed", field)
    entries = send("GET", "/api/v1/audit")[1]["entries"]
    assert send("GET", "/api/v1/audit?match_id=&actor=&type=&bowler=&since=&limit=")[1][
        "entries"] == entries  # empty filters are no filters
