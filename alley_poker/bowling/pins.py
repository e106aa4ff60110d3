"""The pin deck: pin numbers, leaves written ``7-10``, and the USBC split definition.

Pin positions as (row, column), head pin at the front::

    7   8   9   10        row 3
      4   5   6           row 2
        2   3             row 1
          1               row 0
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from alley_poker.bowling.bowling_errors import BowlingError

#: All ten pins, a full rack.
PINS: frozenset[int] = frozenset(range(1, 11))

_POSITION = {
    1: (0, 0), 2: (1, -1), 3: (1, 1), 4: (2, -2), 5: (2, 0), 6: (2, 2),
    7: (3, -3), 8: (3, -1), 9: (3, 1), 10: (3, 3),
}
_PIN_AT = {position: pin for pin, position in _POSITION.items()}


def parse_pins(pins: Iterable[int], *, what: str = "standing pins") -> frozenset[int]:
    """Validate pin numbers (1-10, each at most once) into a frozenset.

    >>> sorted(parse_pins([10, 7]))
    [7, 10]
    >>> parse_pins([7, 11])
    Traceback (most recent call last):
    ...
    alley_poker.bowling.BowlingError: standing pins: there is no pin 11; pins are numbered 1 to 10
    """
    if type(pins) is frozenset and pins <= PINS and all(type(pin) is int for pin in pins):
        return pins  # already a valid leave (the simulations' balls): nothing to check
    if isinstance(pins, (str, bytes)) or not isinstance(pins, Iterable):
        raise BowlingError(
            f"{what} must be a collection of pin numbers such as [7, 10], got {pins!r}"
            + (" (parse_leave reads text like '7-10')" if isinstance(pins, str) else "")
        )
    seen: set[int] = set()
    for pin in pins:
        if isinstance(pin, bool) or not isinstance(pin, int):
            raise BowlingError(f"{what}: {pin!r} is not a pin number (pins are 1 to 10)")
        if pin not in PINS:
            raise BowlingError(f"{what}: there is no pin {pin}; pins are numbered 1 to 10")
        if pin in seen:
            raise BowlingError(f"{what}: pin {pin} is listed twice")
        seen.add(pin)
    return frozenset(seen)


def parse_leave(text: str) -> frozenset[int]:
    """Pins written as bowlers write them (``7-10``, ``4 6 7 10``, ``2,8``); ``none``, ``-`` or
    an empty string for no pins.

    >>> sorted(parse_leave("7-10")), parse_leave("none")
    ([7, 10], frozenset())
    >>> parse_leave("7-x")
    Traceback (most recent call last):
    ...
    alley_poker.bowling.BowlingError: leave '7-x': 'x' is not a pin number (pins are 1 to 10)
    """
    if not isinstance(text, str):
        raise BowlingError(f"a leave is text such as '7-10', got {text!r}")
    cleaned = text.strip().lower()
    if cleaned in ("", "-", "none"):
        return frozenset()
    tokens = cleaned.replace(",", " ").replace("-", " ").split()
    numbers: list[int] = []
    for token in tokens:
        if not token.isdigit():
            raise BowlingError(f"leave {text!r}: {token!r} is not a pin number (pins are 1 to 10)")
        numbers.append(int(token))
    return parse_pins(numbers, what=f"leave {text!r}")


def format_leave(pins: Iterable[int]) -> str:
    """Pins written the way bowlers say them: ``7-10``; ``none`` for a clean deck.

    >>> format_leave({10, 7}), format_leave([])
    ('7-10', 'none')
    """
    ordered = sorted(pins)
    return "-".join(str(pin) for pin in ordered) if ordered else "none"


def _touching(a: int, b: int) -> bool:
    """Pins that touch diagonally, or a sleeper hidden directly behind another (2-8, 3-9):
    one ball can take both, with no pin down between them."""
    (row_a, col_a), (row_b, col_b) = _POSITION[a], _POSITION[b]
    rows, cols = abs(row_a - row_b), abs(col_a - col_b)
    return (rows == 1 and cols == 1) or (rows == 2 and cols == 0)


def _pin_ahead_between(a: int, b: int) -> int | None:
    """For side-by-side pins (4-5, 9-10, ...) the pin immediately ahead of and between them."""
    (row_a, col_a), (row_b, col_b) = _POSITION[a], _POSITION[b]
    if row_a != row_b or abs(col_a - col_b) != 2:
        return None
    return _PIN_AT[(row_a - 1, (col_a + col_b) // 2)]


def is_split(standing: Iterable[int]) -> bool:
    """Whether a leave is a split by the USBC definition.

    A split needs the head pin down, two or more pins standing, and at least one pin down
    *between* standing pins, or *immediately ahead of and between* two of them.  Read here as:

    - *between*: the standing pins do not form one group of pins touching diagonally (a
      sleeper directly behind another, 2-8 or 3-9, counts as touching: no pin lies between);
    - *immediately ahead of and between*: two side-by-side standing pins (2-3, 4-5, 5-6, 7-8,
      8-9, 9-10) with the pin in front of them down - so 4-5-8 is a split although 8 touches
      both, as USBC's 5-6 example reads.

    Whether the ball was thrown at a full rack is the caller's business (a second ball never
    leaves a split); :meth:`Game.roll <alley_poker.bowling.Game.roll>` takes care of it.

    >>> [is_split(leave) for leave in ([7, 10], [4, 6], [2, 7], [3, 10], [5, 7, 10], [7, 9])]
    [True, True, True, True, True, True]
    >>> [is_split(leave) for leave in ([2, 3], [4, 5], [5, 6], [7, 8], [9, 10])]
    [True, True, True, True, True]
    >>> [is_split(leave) for leave in ([1, 2, 10], [2, 4], [3, 6, 10], [2, 8], [10], [])]
    [False, False, False, False, False, False]
    """
    return _is_split_leave(parse_pins(standing))


@lru_cache(maxsize=1024)  # one entry per possible leave: a ten-pin deck has 1,024
def _is_split_leave(pins: frozenset[int]) -> bool:
    if 1 in pins or len(pins) < 2:
        return False
    start = min(pins)
    reached, frontier = {start}, [start]
    while frontier:
        pin = frontier.pop()
        for other in pins - reached:
            if _touching(pin, other):
                reached.add(other)
                frontier.append(other)
    if reached != pins:
        return True
    return any(
        (ahead := _pin_ahead_between(a, b)) is not None and ahead not in pins
        for a in pins
        for b in pins
    )
