"""Socket.IO room names: who receives which pushes.

Every room belongs to one centre (``north/lane:3``), so two centres sharing a message queue
never see each other's matches.  A match's changes go to its own room, to each of its lanes'
rooms (the kiosks) and to each of its bowlers' phone rooms.
"""

from __future__ import annotations


def room(centre: str, name: str) -> str:
    """A Socket.IO room of ``centre``.

    >>> room("north", "lane:3")
    'north/lane:3'
    """
    return f"{centre}/{name}"


def bowler_room(match_id: str, bowler: str) -> str:
    """The room of one bowler's phones (within the centre's rooms).

    >>> bowler_room("m1", "Ann")
    'phone:m1:Ann'
    """
    return f"phone:{match_id}:{bowler}"
