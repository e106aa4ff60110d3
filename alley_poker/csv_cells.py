"""The one CSV writer of every export (the treasurer's night, standings and roster files, the
settlement and the audit), safe to open in a spreadsheet.

*Formula injection.*  A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@``
(and some read a leading tab or carriage return the same way) as a formula: a bowler named
``=HYPERLINK("http://x","y")`` would be a live link in the treasurer's sheet.  Such a text cell
is written with a leading apostrophe, ``'=HYPERLINK(...)``, which spreadsheets show as text.
Numbers stay numbers: a cell that is a plain number (``-6.00``, ``-1``, ``+3``) is left as it
is, so money sums in the sheet; only text is neutralised.  A text that already starts with
apostrophes before such a character gets one more, so reading a file back
(:func:`restore`: one leading apostrophe off where one was added) gives every cell exactly as
it was: the roster export re-imports to the same roster.

*Encoding.*  A download is UTF-8 with a byte-order mark (:data:`BOM`), so a spreadsheet reads
"Pätel-Ñúñez" as written rather than guessing a legacy code page.

>>> neutralise('=HYPERLINK("http://x","y")'), neutralise("@SUM(1+1)"), neutralise("+CMD")
('\\'=HYPERLINK("http://x","y")', "'@SUM(1+1)", "'+CMD")
>>> neutralise("-6.00"), neutralise(-600), neutralise("Ann"), neutralise("\\tx")
('-6.00', -600, 'Ann', "'\\tx")
>>> [restore(neutralise(text)) for text in ("=1+1", "'=1+1", "'Bama", "-6.00", "-")]
['=1+1', "'=1+1", "'Bama", '-6.00', '-']
>>> csv_text(["name", "net"], [["=1+1", "-6.00"], ["Ann, Jr.", 2]])
'name,net\\r\\n\\'=1+1,-6.00\\r\\n"Ann, Jr.",2\\r\\n'
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

#: The UTF-8 byte-order mark a download starts with.
BOM = "\ufeff"
#: What a spreadsheet may take for the start of a formula.
FORMULA_STARTS = "=+-@\t\r"
#: The neutraliser: a leading apostrophe marks a cell as text.
TEXT_MARK = "'"
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def _risky(text: str) -> bool:
    """True when ``text`` after any apostrophes starts a formula (plain numbers do not)."""
    bare = text.lstrip(TEXT_MARK)
    return bool(bare) and bare[0] in FORMULA_STARTS and not _NUMBER.fullmatch(text)


def neutralise(value: Any) -> Any:
    """``value`` for a CSV cell: a text a spreadsheet would run as a formula, marked as text."""
    if isinstance(value, str) and _risky(value):
        return TEXT_MARK + value
    return value


def restore(text: str) -> str:
    """A cell as it was before :func:`neutralise` (for files read back, like a roster)."""
    if text.startswith(TEXT_MARK) and _risky(text[1:]):
        return text[1:]
    return text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV file (RFC 4180: CRLF line ends, so a CR or LF inside a cell is quoted; no BOM:
    :func:`for_download` adds it), every cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([neutralise(cell) for cell in header])
    writer.writerows([neutralise(cell) for cell in row] for row in rows)
    return out.getvalue()


def for_download(text: str) -> bytes:
    """The bytes of a CSV download: UTF-8 with a byte-order mark."""
    return (BOM + text.removeprefix(BOM)).encode("utf-8")
