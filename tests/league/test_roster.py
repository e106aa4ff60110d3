"""Roster files: a good file gives every bowler; a bad file names every bad row and gives none."""

from __future__ import annotations

import pytest

from alley_poker.league import Bowler, BowlerDraft, LeagueError, RosterImportError
from alley_poker.league import parse_roster_csv as parse

GOOD = """name,scorer_name,average,handicap_basis,team
Ann Smith,ANN,152,book,Pin Pals
Bob Jones,BOB,,league,
"Ray, Jr.",RAY JR,201,,Gutter Kings
René Côté,RENE,0,BOOK,
"""


def test_a_good_file_gives_every_bowler_with_its_fields():
    drafts = parse(GOOD)
    assert [(d.name, d.scorer_name, d.average, d.handicap_basis, d.team) for d in drafts] == [
        ("Ann Smith", "ANN", 152, "book", "Pin Pals"),
        ("Bob Jones", "BOB", None, "league", None),
        ("Ray, Jr.", "RAY JR", 201, "book", "Gutter Kings"),
        ("René Côté", "RENE", 0, "book", None),
    ]


def test_columns_may_come_in_any_order_and_optional_ones_may_be_left_out():
    text = "\ufeffScorer_Name, Name\r\nANN,Ann\r\n\r\nBOB,Bob\r\n"   # Excel: BOM, CRLF, spaces
    drafts = parse(text)
    assert [(d.name, d.scorer_name, d.average, d.team) for d in drafts] == [
        ("Ann", "ANN", None, None), ("Bob", "BOB", None, None)]


def test_a_bad_file_names_every_bad_row_with_its_line_and_reason():
    text = "\n".join([
        "name,scorer_name,average,handicap_basis,team",   # line 1
        "Ann Smith,ANN,150,book,",                        # 2 good
        ",CAL,150,,",                                     # 3 blank name
        "Dot,DOT,3OO,,",                                  # 4 average not a number
        "Eve,E;VE,140,,",                                 # 5 scorer name the feed cannot carry
        "Fay,FAY,140,forever,",                           # 6 unknown handicap basis
        "Gus,GUS,140,,,extra",                            # 7 too many fields
        "ANN SMITH,AS2,120,,",                            # 8 same name as line 2
        "Hal,ann,120,,",                                  # 9 scorer's name is Ann's
        "Ivy\u202e,IVY,120,,",                            # 10 direction-changing character
        "Jo,JO,120,,",                                    # 11 good
    ]) + "\n"
    with pytest.raises(RosterImportError) as raised:
        parse(text)
    problems = dict(raised.value.problems)
    assert sorted(problems) == [3, 4, 5, 6, 7, 8, 9, 10]
    assert problems[3].startswith("name: a name may not be blank")
    assert problems[4] == "average: an average is a whole number of pins from 0 to 300, not '3OO'"
    assert "';' cannot be in it" in problems[5]
    assert problems[6] == "handicap_basis: the handicap basis is 'book' or 'league', not 'forever'"
    assert problems[7] == "has 6 fields, the header has 5"
    assert problems[8].startswith("name: 'ANN SMITH' is on line 2 too")
    assert problems[9].startswith("scorer_name: 'ann' is on line 2 too")
    assert "U+202E RIGHT-TO-LEFT OVERRIDE" in problems[10]
    message = str(raised.value)
    assert message.startswith("the roster has 8 bad rows; nothing was imported:")
    assert "line 10:" in message and "line 11:" not in message


def test_a_row_can_have_several_problems_and_all_are_named():
    with pytest.raises(RosterImportError) as raised:
        parse("name,scorer_name,average\n,,400\n")
    [(line, reason)] = raised.value.problems
    assert line == 2
    assert "name: a name may not be blank" in reason
    assert "scorer_name: the scorer's name may not be blank" in reason
    assert "average: an average is a whole number of pins from 0 to 300, not '400'" in reason


@pytest.mark.parametrize(("text", "reason"), [
    ("", "the file is empty"),
    ("name,average\nAnn,150\n", "the header lacks the required column(s) scorer_name"),
    ("name,scorer_name,nickname\nAnn,ANN,Annie\n", "unknown column(s) 'nickname'"),
    ("name,scorer_name,name\nAnn,ANN,Ann\n", "column(s) name appear twice"),
    ("name,scorer_name\n", "the file has a header but no bowlers"),
])
def test_a_bad_header_is_line_one(text, reason):
    with pytest.raises(RosterImportError) as raised:
        parse(text)
    [(line, said)] = raised.value.problems
    assert line == 1 and reason in said


def test_a_row_is_named_by_the_line_it_starts_on_when_a_quoted_field_spans_lines():
    text = 'name,scorer_name,team\n"Ann",ANN,"Pin\nPals"\n\nBob,BOB,x<y\n'
    with pytest.raises(RosterImportError) as raised:
        parse(text)
    assert [line for line, _ in raised.value.problems] == [2, 5]
    assert "U+000A" in raised.value.problems[0][1]      # a line break inside a team name
    assert "< or >" in raised.value.problems[1][1]


def test_names_already_on_the_roster_are_refused_retired_ones_too():
    existing = [Bowler(1, "tue", "Ann Smith", "ANN", 150, "book", None, active=True),
                Bowler(2, "tue", "Cal Ray", "CAL", 170, "book", None, active=False)]
    text = "name,scorer_name\nann smith,AS\nCal Ray,CR\nDot,cal\nEve,EVE\n"
    with pytest.raises(RosterImportError) as raised:
        parse(text, existing=existing)
    assert raised.value.problems == [
        (2, "name: 'ann smith' is already on the roster"),
        (3, "name: 'Cal Ray' is already on the roster, retired: reactivate them instead"),
        (4, "scorer_name: 'cal' is already on the roster, retired: reactivate them instead"),
    ]
    assert [d.name for d in parse("name,scorer_name\nEve,EVE\n", existing=existing)] == ["Eve"]


def test_a_draft_is_checked_like_a_row_and_names_its_field():
    assert BowlerDraft("  Ann ", " ANN ", 150, "league", " ").team is None
    with pytest.raises(LeagueError) as raised:
        BowlerDraft("A" * 41, "ANN")
    assert raised.value.field == "name" and "at most 40 characters" in str(raised.value)
    with pytest.raises(LeagueError) as raised:
        BowlerDraft("Ann", "ANN", average=True)
    assert raised.value.field == "average"
