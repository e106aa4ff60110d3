"""Per-source sequence numbers: recognise re-sent lines, report the ones that never came.

A scorer numbers its lines 1, 2, 3, ... within a *session* (one power-on of the scorer, named
by a session id it announces).  After a reconnect it may re-send its last few lines: those
are recognised and ignored.  A jump forward means lines were lost: the jump is reported and
the lines are accepted.  A number of such a gap stays fillable: the line refused for its
checksum (garbled on the wire), or lost, is taken when the scorer re-sends it, whatever came
since (the service places a ball by its place in the bowler's game, not by when it came).  A
number lower than the last accepted one that was never missing — before the first line this
reader saw, or long gone from its window — is refused as out of order.

>>> tracker = SequenceTracker()
>>> tracker.check(1), tracker.check(2), tracker.check(5)
(None, None, (3, 4))
>>> tracker.check(5)
Traceback (most recent call last):
...
drivers.base.DuplicateLine: sequence 5 already seen (a re-send): b''
>>> tracker.check(4), tracker.check(4)  # a missing number filled, then a re-send of it
Traceback (most recent call last):
...
drivers.base.DuplicateLine: sequence 4 already seen (a re-send): b''
>>> tracker.new_session("boot-2"), tracker.check(7)  # a reader joining a session midway
(True, None)
>>> tracker.check(6)
Traceback (most recent call last):
...
drivers.base.FeedLineRejected: out of order: sequence 6 after 7: b''
>>> tracker.new_session("boot-3"), tracker.check(1)
(True, None)

A number arriving again with *different* content is not a re-send: it is a conflict (refused,
and reported), never silently dropped.  A line the reader refused after accepting its number
(the service could not use its ball) gives its number back: it was not received.

>>> tracker.check(2, content="BALL,7")
>>> tracker.check(2, content="BALL,8")
Traceback (most recent call last):
...
drivers.sequence.SequenceConflict: sequence 2 was already used by another line (BALL,7): b''
>>> tracker.release(2)
>>> tracker.check(2, content="BALL,8")
"""

from __future__ import annotations

import contextlib
from collections import deque

from drivers.base import DuplicateLine, FeedLineRejected


class SequenceConflict(FeedLineRejected):
    """A number already accepted, on a line with other content: refused, counted as a
    conflict on the feed board (the scorer reuses numbers, or two sources share a port)."""


class SequenceTracker:
    """Tracks one source's sequence numbers within its current session."""

    #: How many recent numbers are remembered to tell a re-send from an out-of-order line.
    WINDOW = 4096

    def __init__(self) -> None:
        self.session: str | None = None
        self.last: int | None = None
        self._recent: deque[int] = deque(maxlen=self.WINDOW)
        self._recent_set: set[int] = set()
        # The content each remembered number came with (None: not given), to tell a re-send
        # from a conflict; and ``last`` before each number, to give a number back.
        self._content: dict[int, str | None] = {}
        self._last_before: dict[int, int | None] = {}
        # Numbers below ``last`` that never came (gaps, released lines): a late line or a
        # re-send may still fill them.
        self._missing: set[int] = set()

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
        self._content.clear()
        self._last_before.clear()
        self._missing.clear()
        return True

    def check(self, seq: int, raw: bytes = b"", *,
              content: str | None = None) -> tuple[int, int] | None:
        """Accept ``seq``: returns the (first, last) missing numbers if it skipped some.

        Raises :class:`DuplicateLine` for a number already seen with the same ``content``
        (or none given), :class:`SequenceConflict` for one seen with other content, and
        :class:`FeedLineRejected` for an out-of-order one; state is unchanged then.
        """
        gap = self.peek(seq, raw, content=content)
        self.accept(seq, content=content)
        return gap

    def peek(self, seq: int, raw: bytes = b"", *,
             content: str | None = None) -> tuple[int, int] | None:
        """What :meth:`check` would say about ``seq``, without accepting it."""
        if self.last is not None and seq <= self.last and seq not in self._missing:
            if seq in self._recent_set:
                before = self._content.get(seq)
                if content is not None and before is not None and before != content:
                    raise SequenceConflict(f"sequence {seq} was already used by another line "
                                           f"({before[:60]})", raw)
                raise DuplicateLine(f"sequence {seq} already seen (a re-send)", raw)
            raise FeedLineRejected(f"out of order: sequence {seq} after {self.last}", raw)
        if self.last is not None and seq > self.last + 1:
            return (self.last + 1, seq - 1)
        return None

    def accept(self, seq: int, *, content: str | None = None) -> None:
        """Record ``seq`` as received (after :meth:`peek` allowed it)."""
        if seq in self._recent_set:  # a re-send: already remembered
            return
        if self.last is not None and seq < self.last:
            self._missing.discard(seq)  # a hole filled: ``last`` stays where it is
        else:
            if self.last is not None:
                self._missing.update(range(max(self.last + 1, seq - self.WINDOW), seq))
            self._last_before[seq] = self.last
            self.last = seq
            if len(self._missing) > 2 * self.WINDOW:
                self._missing = {n for n in self._missing if n > seq - self.WINDOW}
        if len(self._recent) == self._recent.maxlen:
            oldest = self._recent.popleft()
            self._recent_set.discard(oldest)
            self._content.pop(oldest, None)
            self._last_before.pop(oldest, None)
        self._recent.append(seq)
        self._recent_set.add(seq)
        self._content[seq] = content

    def release(self, seq: int) -> None:
        """Give ``seq`` back: the line that carried it was refused for its content after
        its number was accepted, so it counts as never received (the next line with that
        number is taken as new, and a later number reports it as a gap)."""
        if seq not in self._recent_set:
            return
        self._recent_set.discard(seq)
        self._content.pop(seq, None)
        with contextlib.suppress(ValueError):
            self._recent.remove(seq)
        before = self._last_before.pop(seq, None)
        if self.last == seq:
            self.last = before
            # The numbers between are ahead again: the next line reports them as a gap.
            self._missing = {n for n in self._missing if before is None or n <= before}
        else:
            self._missing.add(seq)
