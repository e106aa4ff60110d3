"""A league's bowlers, and the roster file a commissioner imports.

A roster file is CSV with a header row naming its columns, ``name`` and ``scorer_name``
required, ``average``, ``handicap_basis``, ``team`` and ``active`` (``yes``/``no``: a ``no``
bowler is added retired) optional, in any order.  The roster export is such a file, so it
re-imports to the same roster: its byte-order mark is skipped and the apostrophe it puts
before a formula-looking name (:mod:`alley_poker.csv_cells`) is taken off.  Every row is
checked before anything is kept: a file with any bad row imports nothing, and the error names
every bad row by its line number (the header is line 1) and says what is wrong.

>>> drafts = parse_roster_csv('''name,scorer_name,average,team
... Ann Smith,ANN,152,Pin Pals
... Bob Jones,BOB,,
... ''')
>>> [(d.name, d.scorer_name, d.average, d.handicap_basis, d.team) for d in drafts]
[('Ann Smith', 'ANN', 152, 'book', 'Pin Pals'), ('Bob Jones', 'BOB', None, 'book', None)]
>>> existing = [Bowler(7, "tue", "Cal Ray", "CAL", 170, "book", None, active=False)]
>>> parse_roster_csv('''name,scorer_name,average
... Ann Smith,ANN,301
... ann smith,AN2,150
... Cal Ray,CR,160
... ''', existing=existing)
Traceback (most recent call last):
...
alley_poker.league.league_errors.RosterImportError: the roster has 3 bad rows; nothing was imported:
  line 2: average: an average is a whole number of pins from 0 to 300, not '301'
  line 3: name: 'ann smith' is on line 2 too (names must differ by more than capitals)
  line 4: name: 'Cal Ray' is already on the roster, retired: reactivate them instead
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError

from alley_poker.csv_cells import restore
from alley_poker.league.handicap import PERFECT_GAME, HandicapRule
from alley_poker.league.league_errors import LeagueError, RosterImportError
from alley_poker.ledger.play import MAX_NAME
from alley_poker.names import clean_name

#: The roster file's columns: the first two are required.
COLUMNS = ("name", "scorer_name", "average", "handicap_basis", "team", "active")
REQUIRED_COLUMNS = ("name", "scorer_name")
#: The longest name a scorer's OPEN line carries (docs/feed-protocol.md).
MAX_SCORER_NAME = 24
#: Characters the feed protocol cannot carry in a name (they delimit its fields).
FEED_DELIMITERS = frozenset("$*,;=")
MAX_TEAM_NAME = 40
HANDICAP_BASES = ("book", "league")
#: How a roster file may say a bowler is active or retired (case ignored; blank is active).
ACTIVE_WORDS = {"yes": True, "y": True, "true": True, "1": True, "active": True,
                "no": False, "n": False, "false": False, "0": False, "retired": False}
# Where DictReader puts the fields of a row longer than the header (no column is called this).
_EXTRA = "\0extra"
#: Games a bowler must have bowled in the league before their league average sets their
#: handicap (with handicap basis "league"); before that their book average does.
MIN_LEAGUE_GAMES = 9


class RosterPerson(Protocol):
    """What the roster's uniqueness check needs of a bowler already on the roster."""

    @property
    def name(self) -> str: ...

    @property
    def scorer_name(self) -> str: ...

    @property
    def active(self) -> bool: ...


def _name(value: str) -> str:
    cleaned = clean_name(value)
    if len(cleaned) > MAX_NAME:
        raise ValueError(f"a name is at most {MAX_NAME} characters, not {len(cleaned)}")
    return cleaned


def _scorer_name(value: str) -> str:
    cleaned = value.strip()
    if not cleaned:
        raise ValueError("the scorer's name may not be blank")
    if len(cleaned) > MAX_SCORER_NAME:
        raise ValueError(f"the scorer shows at most {MAX_SCORER_NAME} characters, "
                         f"not {len(cleaned)}")
    for char in cleaned:
        if not " " <= char <= "~" or char in FEED_DELIMITERS or char in "<>":
            raise ValueError(f"the scorer's name is plain letters, digits and punctuation "
                             f"without $ * , ; = < >; {char!r} cannot be in it")
    return cleaned


def _average(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    text = value.strip() if isinstance(value, str) else value
    if isinstance(text, str) and text.isdecimal() and len(text) <= 3:
        text = int(text)
    if not isinstance(text, int) or isinstance(text, bool) or not 0 <= text <= PERFECT_GAME:
        raise ValueError(f"an average is a whole number of pins from 0 to {PERFECT_GAME}, "
                         f"not {value!r}")
    return text


def _team(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    cleaned = clean_name(value)
    if len(cleaned) > MAX_TEAM_NAME:
        raise ValueError(f"a team name is at most {MAX_TEAM_NAME} characters")
    return cleaned


def _active(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return True
    if isinstance(value, str):
        if value.strip().lower() not in ACTIVE_WORDS:
            raise ValueError(f"active is 'yes' or 'no', not {value!r}")
        return ACTIVE_WORDS[value.strip().lower()]
    return value


def _basis(value: Any) -> Any:
    if value is None or (isinstance(value, str) and not value.strip()):
        return "book"
    return value.strip().lower() if isinstance(value, str) else value


class BowlerFields(BaseModel):
    """The schema of a bowler's own fields (a form's or a roster row's)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, AfterValidator(_name)]
    scorer_name: Annotated[str, AfterValidator(_scorer_name)]
    average: Annotated[int | None, BeforeValidator(_average)] = None
    handicap_basis: Annotated[Literal["book", "league"], BeforeValidator(_basis)] = "book"
    team: Annotated[str | None, AfterValidator(_team)] = None


class RosterRow(BowlerFields):
    """A roster file's row: a bowler's fields, and whether they are active."""

    active: Annotated[bool, BeforeValidator(_active)] = True


def describe(error: ValidationError) -> list[tuple[str, str]]:
    """``(field, reason)`` for each problem pydantic found, in plain words."""
    found = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "row"
        reason = problem["msg"].removeprefix("Value error, ")
        if problem["type"] == "literal_error" and field == "handicap_basis":
            reason = f"the handicap basis is 'book' or 'league', not {problem['input']!r}"
        elif problem["type"] == "missing":
            reason = "is required"
        found.append((field, reason))
    return found


@dataclass(frozen=True)
class BowlerDraft:
    """A bowler about to be added: checked (and cleaned) when made.

    >>> BowlerDraft(" Ann Smith ", "ANN", 150).name
    'Ann Smith'
    >>> BowlerDraft("Ann", "A;N")
    Traceback (most recent call last):
    ...
    alley_poker.league.league_errors.LeagueError: scorer_name: the scorer's name is plain letters, \
digits and punctuation without $ * , ; = < >; ';' cannot be in it
    """

    name: str
    scorer_name: str
    average: int | None = None
    handicap_basis: str = "book"
    team: str | None = None
    #: False: added retired (a roster file's ``active`` column says ``no``).
    active: bool = True

    def __post_init__(self) -> None:
        checked = check_fields({key: value for key, value in vars(self).items()
                                if key != "active"})
        for key, value in checked.items():
            object.__setattr__(self, key, value)


def check_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` of a bowler checked and cleaned; LeagueError naming the first bad field."""
    try:
        return BowlerFields.model_validate(dict(fields)).model_dump()
    except ValidationError as error:
        field, reason = describe(error)[0]
        raise LeagueError(f"{field}: {reason}", field=field) from None


@dataclass(frozen=True)
class Bowler:
    """A person on a league's roster.  ``name`` is the name seated in matches; ``active`` is
    False for a retired bowler (history kept, cannot be checked in)."""

    bowler_id: int
    league_id: str
    name: str
    scorer_name: str
    average: int | None
    handicap_basis: str
    team: str | None
    active: bool = True

    def handicap(self, rule: HandicapRule, *, league_average: int | None = None,
                 league_games: int = 0) -> int:
        """Pins per game under ``rule``: from the league average once this bowler has bowled
        ``MIN_LEAGUE_GAMES`` league games and their basis is "league", else the book average.

        >>> ann = Bowler(1, "tue", "Ann", "ANN", 150, "league", None)
        >>> ann.handicap(HandicapRule()), ann.handicap(HandicapRule(), league_average=170,
        ...                                           league_games=9)
        (63, 45)
        """
        use_league = (self.handicap_basis == "league" and league_average is not None
                      and league_games >= MIN_LEAGUE_GAMES)
        return rule.for_average(league_average if use_league else self.average)


def identity_keys(person: RosterPerson) -> frozenset[str]:
    """The names by which a bowler is recognised (own name, scorer's name), case-folded."""
    return frozenset({person.name.casefold(), person.scorer_name.casefold()})


def clash(draft: RosterPerson, others: Iterable[RosterPerson]) -> str | None:
    """Why ``draft`` cannot join a roster of ``others`` (its name or scorer's name is someone
    else's name or scorer's name, ignoring capitals), or None."""
    keys = identity_keys(draft)
    for other in others:
        if keys & identity_keys(other):
            which = ("name" if draft.name.casefold() in identity_keys(other)
                     else "scorer_name")
            shown = draft.name if which == "name" else draft.scorer_name
            retired = "" if other.active else ", retired: reactivate them instead"
            return f"{which}: {shown!r} is already on the roster{retired}"
    return None


def parse_roster_csv(text: str, *, existing: Iterable[RosterPerson] = ()) -> list[BowlerDraft]:
    """The bowlers of roster file ``text``; RosterImportError naming every bad row.

    ``existing`` is the league's roster (retired bowlers too): a row naming one of them is bad.
    """
    existing = list(existing)
    lines = _Lines(text.removeprefix("\ufeff"))
    reader = csv.DictReader(lines, restkey=_EXTRA)
    problems: list[tuple[int, str]] = []
    try:
        header = reader.fieldnames
    except csv.Error as error:
        raise RosterImportError([(1, f"the header cannot be read as CSV: {error}")]) from None
    header_problem = _check_header(header)
    if header_problem:
        raise RosterImportError([(1, header_problem)])
    drafts: list[BowlerDraft] = []
    first_line: dict[str, int] = {}   # case-folded name -> line it was first seen on
    line = 1
    while True:
        lines.record_start = None
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            problems.append((lines.record_start or lines.count,
                             f"cannot be read as CSV: {error}"))
            break
        line = lines.record_start or lines.count
        if _EXTRA in row:
            problems.append((line, f"has {len(header) + len(row[_EXTRA])} fields, the "
                                   f"header has {len(header)}"))
            continue
        fields = {key: restore(value) for key, value in row.items() if value is not None}
        try:
            draft = RosterRow.model_validate(fields)
        except ValidationError as error:
            problems.append((line, "; ".join(f"{field}: {reason}"
                                             for field, reason in describe(error))))
            # A later row with the same name is a duplicate even though this one is bad.
            for column in REQUIRED_COLUMNS:
                if (fields.get(column) or "").strip():
                    first_line.setdefault(fields[column].strip().casefold(), line)
            continue
        reason = clash(_Person(draft.name, draft.scorer_name), existing)
        if reason is None:
            for which, value in (("name", draft.name), ("scorer_name", draft.scorer_name)):
                if value.casefold() in first_line:
                    reason = (f"{which}: {value!r} is on line {first_line[value.casefold()]} "
                              "too (names must differ by more than capitals)")
                    break
        for key in identity_keys(_Person(draft.name, draft.scorer_name)):
            first_line.setdefault(key, line)
        if reason:
            problems.append((line, reason))
            continue
        drafts.append(BowlerDraft(**draft.model_dump()))
    if problems:
        raise RosterImportError(problems)
    if not drafts:
        raise RosterImportError([(1, "the file has a header but no bowlers")])
    return drafts


class _Lines:
    """The file's lines for the csv reader, noting where each record starts: a quoted field
    may span lines, and a bad row is named by the line it starts on."""

    def __init__(self, text: str) -> None:
        self._lines = iter(io.StringIO(text, newline=""))
        self.count = 0
        self.record_start: int | None = None

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.count += 1
        if self.record_start is None and line.strip("\r\n"):
            self.record_start = self.count
        return line


@dataclass(frozen=True)
class _Person:
    name: str
    scorer_name: str
    active: bool = True


def _check_header(header: list[str] | None) -> str | None:
    if not header:
        return ("the file is empty: its first line must be the header "
                f"{','.join(COLUMNS)} (average, handicap_basis and team may be left out)")
    names = [column.strip().lower() for column in header]
    unknown = [column for column in header if column.strip().lower() not in COLUMNS]
    if unknown:
        return (f"unknown column(s) {', '.join(repr(c) for c in unknown)}; the columns are "
                f"{', '.join(COLUMNS)}")
    repeated = sorted({column for column in names if names.count(column) > 1})
    if repeated:
        return f"column(s) {', '.join(repeated)} appear twice in the header"
    missing = [column for column in REQUIRED_COLUMNS if column not in names]
    if missing:
        return f"the header lacks the required column(s) {', '.join(missing)}"
    header[:] = names   # DictReader keys rows by these: " Name " is the column name
    return None
