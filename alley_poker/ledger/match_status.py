"""A match's status, the one place its values are named: how far a match has come.

``new`` (created, antes not all agreed), ``open`` (agreed, not dealt), ``playing``,
``ending`` (the end-of-match draws and the showdown), and the two ends a match cannot leave
by playing on: ``settled`` (paid out) and ``void`` (refunded).  Only undoing a result takes a
settled match back.

>>> [status for status in STATUSES if status not in FINISHED]
['new', 'open', 'playing', 'ending']
"""

from __future__ import annotations

SETTLED = "settled"
VOID = "void"

#: Every status a match can have, in the order a match goes through them.
STATUSES = ("new", "open", "playing", "ending", SETTLED, VOID)

#: The statuses of a finished match: nothing more is bowled, drawn or paid in it.
FINISHED = (SETTLED, VOID)

