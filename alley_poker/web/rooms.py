"""Socket.IO room names: who receives which pushes.

Every room belongs to one centre (``north/lane:3``), so two centres sharing a message queue
never see each other's matches.  A match's changes go to its own room, to each of its lanes'
rooms (the kiosks) and to each of its bowlers' phone rooms.
"""

from __future__ import annotations

from flask_socketio import join_room


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


def enter(centre: str, name: str) -> bool:
    """Put the current Socket.IO client in ``centre``'s room ``name``; False when the client
    left before its join was handled (a page reloaded mid-join: nothing to send it)."""
    try:
        join_room(room(centre, name))
    except ValueError:  # python-socketio: "sid is not connected to requested namespace"
        return False
    return True
