"""A feed's ball beside the ledger's: its place in a game, whether the two read the same, and
the feed line it came from.

What the router (:mod:`alley_poker.service.router`) and the desk's actions on held balls
(:mod:`alley_poker.service.held_desk`) both reason with, kept apart from either.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from alley_poker.bowling import Game
from drivers.base import BallRecorded, LaneEvent

Position = tuple[int, int]  # (frame, ball)

#: What became of a ball offered to the ledger.
RECORDED, HELD, REFUSED = "recorded", "held", "refused"


#: How a feed line is named in the ledger (in a Holland-daze's reason): ``[line scorer#513]``.
LINE_TAG = re.compile(r"\[line [^\]#]+#\d+\]")


def line_tag(event: LaneEvent) -> str | None:
    """The tag naming the feed line ``event`` came from; None if the feed numbers no lines.

    >>> from drivers.base import WrongLane
    >>> line_tag(WrongLane(lane=7, bowler=3, source="scorer", seq=513))
    '[line scorer#513]'
    >>> line_tag(WrongLane(lane=7, bowler=3, source="manual")) is None
    True
    """
    if event.seq is None:
        return None
    return f"[line {event.source or 'feed'}#{event.seq}]"


def reads_as(recorded: dict[str, Any], ball: BallRecorded) -> bool:
    """True when the ledger's ball ``recorded`` reads as ``ball`` does: pins, foul, standing
    pins (if both know them) and every flag the line sets."""
    same_standing = ball.standing is None or recorded.get("standing") is None or \
        sorted(recorded["standing"]) == sorted(ball.standing)
    same_flags = (not ball.flags.gutter or bool(recorded.get("gutter"))) and \
        (not ball.flags.split or bool(recorded.get("split")))
    return (recorded["pins"], bool(recorded["foul"])) == (ball.pins, ball.flags.foul) \
        and same_standing and same_flags



@lru_cache(maxsize=2048)
def next_position(rolls: tuple[tuple[int, bool], ...]) -> Position | None:
    """The (frame, ball) that follows ``rolls`` (pins, foul) in a game; None once complete.

    Every ball asks this two or three times of games that grow by one roll at a time, and
    re-bowling a whole game each time was a tenth of the cost of routing a ball.

    >>> next_position(((10, False),)), next_position(((7, False),))
    ((2, 1), (1, 2))
    >>> next_position(((10, False),) * 12) is None
    True
    """
    replayed = Game.from_rolls({"pins": pins, "foul": foul} for pins, foul in rolls)
    if replayed.is_complete:
        return None
    return (replayed.current_frame, replayed.current_ball)
