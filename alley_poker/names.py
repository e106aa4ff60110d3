"""Names typed by people (bowlers, API tokens): normalised, and refused when they carry
characters that hide or disguise what a screen shows.

A name is shown on the kiosk, the tablet, the audit page and in CSV downloads.  Control
characters (NUL, ESC, ...) corrupt terminals and logs; a right-to-left override or an
isolate reverses the text after it; zero-width characters make two names that look the same
differ; ``<`` and ``>`` are markup.  The pages render names as text, but refusing them at the
door keeps every later reader (CSV, log, another client) safe too.  Characters Unicode calls
*default-ignorable* (a Hangul filler, a combining grapheme joiner, variation selectors) show
as nothing at all, so a name holding one looks like another name: refused too.  NFKC makes
``é`` typed as ``e`` + accent the same name as ``é``, and a full-width ``Ａｎｎ`` the same
name as ``Ann``.  This module is the one place for the rule: the web's forms, the league's
roster and the API tokens all call :func:`clean_name`.

>>> clean_name("  Ann  ")
'Ann'
>>> clean_name("Rene\\u0301") == "Ren\\u00e9"
True
>>> def why(name):
...     try:
...         clean_name(name)
...     except ValueError as refused:
...         return str(refused)
>>> why("Ann\\u202eeoJ").split(" characters ")[1]
'(U+202E RIGHT-TO-LEFT OVERRIDE at position 4)'
>>> why("Ann\\x1b[2J").split(" characters ")[1]
'(U+001B a control character at position 4)'
>>> clean_name("\\uff21\\uff4e\\uff4e")
'Ann'
>>> why("A\\u3164B").split(" characters ")[1]
'(U+3164 HANGUL FILLER at position 2)'
>>> clean_name("<b>Ann</b>")
Traceback (most recent call last):
...
ValueError: a name may not contain < or > (markup)
"""

from __future__ import annotations

import unicodedata

#: Unicode categories refused in a name: controls (Cc), formatting characters (Cf: the
#: bidi overrides and isolates, zero-width spaces and joiners, the BOM), line and paragraph
#: separators (Zl, Zp), unassigned and private-use code points, surrogates.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"})

#: Unicode's Default_Ignorable_Code_Point property (DerivedCoreProperties.txt, Unicode 15.1):
#: characters a screen shows as nothing.  Most are Cf or Cn above; these ranges add the
#: letters and marks among them (U+034F, the Hangul fillers, variation selectors, ...).
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def is_default_ignorable(char: str) -> bool:
    """True for a character Unicode says a screen may show as nothing.

    >>> is_default_ignorable("\\u3164"), is_default_ignorable("\\u034f"), is_default_ignorable("A")
    (True, True, False)
    """
    code = ord(char)
    return any(first <= code <= last for first, last in DEFAULT_IGNORABLE)


def clean_name(value: str) -> str:
    """``value`` NFKC-normalised and trimmed; ValueError naming the first refused character.

    The characters are checked as typed (so the position is the one the desk sees), then
    again once normalised.  The caller's schema limits the length (pydantic's
    ``max_length``, before this runs).
    """
    typed = value.strip()
    if not typed:
        raise ValueError("a name may not be blank")
    _refuse_hidden(typed)
    name = unicodedata.normalize("NFKC", typed).strip()
    _refuse_hidden(name)
    if "<" in name or ">" in name:
        raise ValueError("a name may not contain < or > (markup)")
    return name


def _refuse_hidden(name: str) -> None:
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in REFUSED_CATEGORIES or is_default_ignorable(char):
            label = unicodedata.name(char, "a control character")
            raise ValueError(
                "a name may not contain control, direction-changing or invisible characters "
                f"(U+{ord(char):04X} {label} at position {position})")
