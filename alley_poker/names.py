"""Names typed by people (bowlers, API tokens): normalised, and refused when they carry
characters that hide or disguise what a screen shows.

A name is shown on the kiosk, the tablet, the audit page and in CSV downloads.  Control
characters (NUL, ESC, ...) corrupt terminals and logs; a right-to-left override or an
isolate reverses the text after it; zero-width characters make two names that look the same
differ; ``<`` and ``>`` are markup.  The pages render names as text, but refusing them at the
door keeps every later reader (CSV, log, another client) safe too.  NFC makes ``é`` typed as
``e`` + accent the same name as ``é``.

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


def clean_name(value: str) -> str:
    """``value`` NFC-normalised and trimmed; ValueError naming the first refused character.

    The caller's schema limits the length (pydantic's ``max_length``, before this runs).
    """
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise ValueError("a name may not be blank")
    for position, char in enumerate(name, start=1):
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            label = unicodedata.name(char, "a control character")
            raise ValueError(
                "a name may not contain control, direction-changing or invisible characters "
                f"(U+{ord(char):04X} {label} at position {position})")
    if "<" in name or ">" in name:
        raise ValueError("a name may not contain < or > (markup)")
    return name
