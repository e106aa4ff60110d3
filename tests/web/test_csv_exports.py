"""The treasurer's CSV files are safe in a spreadsheet and the roster file round-trips: every
text cell a spreadsheet would run as a formula is neutralised (money stays a number), each
download carries a UTF-8 byte-order mark, and the exported roster imports to the same roster."""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

from alley_poker.csv_cells import FORMULA_STARTS, restore
from alley_poker.league.exports import roster_csv
from tests.web.test_league_api import TUESDAY, Desk

#: Leading characters a spreadsheet may take for a formula, and names that start with them.
INJECTIONS = ['=HYPERLINK("http://x","y")', "@SUM(1+1)", "+Plus One", "-Minus Two"]
ROSTER = """name,scorer_name,average,handicap_basis,team
"=HYPERLINK(""http://x"",""y"")",+CMD,150,book,=Team
@SUM(1+1),@AT,180,league,-Team
+Plus One,-DASH,,book,
-Minus Two,PLUS,120,book,+Team
Pätel-Ñúñez,PAT,140,league,Pin Pals
Mae West,MAE,130,book,
"""
BOM = b"\xef\xbb\xbf"


def download(desk, url):
    answer = desk.get(url)
    assert answer.status_code == 200 and answer.mimetype == "text/csv", url
    data = answer.get_data()
    assert data.startswith(BOM), f"{url} has no byte-order mark"
    return data.decode("utf-8-sig")


def rows_of(text):
    return list(csv.reader(io.StringIO(text)))


def assert_neutralised(rows, url):
    """No cell starts a formula, unless it is a plain number (money, a count)."""
    for row in rows:
        for cell in row:
            if cell and cell[0] in FORMULA_STARTS:
                float(cell)  # "-2.00" is money; anything else is a formula left live
                assert cell.lstrip("+-").replace(".", "").isdigit(), (url, cell)


def test_every_export_neutralises_formulas_carries_a_bom_and_the_roster_round_trips(app):
    desk = Desk(app)
    assert desk.send("POST", "/leagues", {**TUESDAY, "name": "=Evil League"}).status_code \
        == 201
    assert desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER}).status_code == 201
    roster = {b["name"]: b for b in desk.get("/leagues/tue/bowlers").get_json()["bowlers"]}
    assert desk.send("PATCH", f"/leagues/tue/bowlers/{roster['Mae West']['bowler_id']}",
                     {"active": False}).status_code == 200
    checked_in = [b["bowler_id"] for name, b in roster.items() if name != "Mae West"]
    assert desk.send("POST", "/leagues/tue/nights", {
        "night_date": "2026-11-24", "checked_in": checked_in}).status_code == 201

    files = {url: download(desk, url) for url in (
        "/leagues/tue/roster.csv", "/leagues/tue/standings.csv",
        "/leagues/tue/nights/2026-11-24.csv")}
    for url, text in files.items():
        assert_neutralised(rows_of(text), url)
        assert "Pätel-Ñúñez" in text, url
        for name in INJECTIONS:
            assert "'" + name in text.replace('""', '"'), (url, name)
    standings = {row[2]: row for row in rows_of(files["/leagues/tue/standings.csv"])}
    assert standings["'-Minus Two"][10] == "-2.00"  # net: the ante, still a number
    roster_rows = rows_of(files["/leagues/tue/roster.csv"])
    assert {row[1] for row in roster_rows} >= {"'+CMD", "'@AT", "'-DASH"}

    # The exported file (as downloaded: byte-order mark and all) is a roster file.
    exported = desk.get("/leagues/tue/roster.csv").get_data().decode("utf-8")
    assert desk.send("POST", "/leagues", {**TUESDAY, "league_id": "wed",
                                          "name": "Wednesday"}).status_code == 201
    imported = desk.send("POST", "/leagues/wed/roster", {"csv": exported})
    assert imported.status_code == 201, imported.get_json()
    assert download(desk, "/leagues/wed/roster.csv") == files["/leagues/tue/roster.csv"]

    def fields(league):
        bowlers = desk.get(f"/leagues/{league}/bowlers?include_retired=true").get_json()
        return sorted((b["name"], b["scorer_name"], b["average"], b["handicap_basis"],
                       b["team"], b["active"]) for b in bowlers["bowlers"])

    assert fields("wed") == fields("tue")
    assert ('=HYPERLINK("http://x","y")', "+CMD", 150, "book", "=Team", True) in fields("wed")
    assert ("Mae West", "MAE", 130, "book", None, False) in fields("wed")


def test_tab_and_carriage_return_lead_ins_are_neutralised_and_undone():
    # Names are trimmed at the door, so only a file made elsewhere carries these.
    bowlers = [SimpleNamespace(name=lead + "x", scorer_name=lead + "S", average=None,
                               handicap_basis="book", team=lead + "t", active=True)
               for lead in FORMULA_STARTS]
    rows = rows_of(roster_csv(bowlers))[1:]
    assert [row[0] for row in rows] == ["'" + lead + "x" for lead in FORMULA_STARTS]
    assert [restore(row[4]) for row in rows] == [lead + "t" for lead in FORMULA_STARTS]
