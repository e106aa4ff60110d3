"""Per-source sequence numbers: recognise re-sent lines, report the ones that never came.

A scorer numbers its lines 1, 2, 3, ... within a *session* (one power-on of the scorer, named
by a session id it announces).  After a reconnect it may re-send its last few lines: those
are recognised and ignored.  A jump forward means lines were lost: the jump is reported and
the lines are accepted.  A number lower than the last accepted one that was never seen is
refused as out of order (accepting it would deal a ball after later balls); the scorer's next
scoresheet snapshot recovers it.

>>> tracker = SequenceTracker()
>>> tracker.check(1), tracker.check(2), tracker.check(5)
(None, None, (3, 4))
>>> tracker.check(5)
Traceback (most recent call last):
...
drivers.base.DuplicateLine: sequence 5 already seen (a re-send): b''
>>> tracker.check(4)
Traceback (most recent call last):
...
drivers.base.FeedLineRejected: out of order: sequence 4 after 5: b''
>>> tracker.new_session("boot-2"), tracker.check(1)
(True, None)
"""

from __future__ import annotations

from collections import deque

from drivers.base import DuplicateLine, FeedLineRejected


class SequenceTracker:
    """Tracks one source's sequence numbers within its current session."""

    #: How many recent numbers are remembered to tell a re-send from an out-of-order line.
    WINDOW = 4096

    def __init__(self) -> None:
        self.session: str | None = None
        self.last: int | None = None
        self._recent: deque[int] = deque(maxlen=self.WINDOW)
        self._recent_set: set[int] = set()

    def new_session(self, session: str) -> bool:
        """The scorer announced ``session``; returns True if it differs from the current one.

        A new session restarts numbering; the same session again (a reconnect) changes nothing.
        """
        if session == self.session:
            return False
        self.session = session
        self.last = None
        self._recent.clear()
        self._recent_set.clear()
        return True

    def check(self, seq: int, raw: bytes = b"") -> tuple[int, int] | None:
        """Accept ``seq``: returns the (first, last) missing numbers if it skipped some.

        Raises :class:`DuplicateLine` for a number already seen and
        :class:`FeedLineRejected` for an out-of-order one; state is unchanged then.
        """
        gap = self.peek(seq, raw)
        self.accept(seq)
        return gap

    def peek(self, seq: int, raw: bytes = b"") -> tuple[int, int] | None:
        """What :meth:`check` would say about ``seq``, without accepting it."""
        if self.last is not None and seq <= self.last:
            if seq in self._recent_set:
                raise DuplicateLine(f"sequence {seq} already seen (a re-send)", raw)
            raise FeedLineRejected(f"out of order: sequence {seq} after {self.last}", raw)
        if self.last is not None and seq > self.last + 1:
            return (self.last + 1, seq - 1)
        return None

    def accept(self, seq: int) -> None:
        """Record ``seq`` as received (after :meth:`peek` allowed it)."""
        self.last = seq
        if len(self._recent) == self._recent.maxlen:
            self._recent_set.discard(self._recent[0])
        self._recent.append(seq)
        self._recent_set.add(seq)
