"""Cutting a feed's byte stream into lines: what the serial reader takes off the port."""

from __future__ import annotations

from collections.abc import Iterator

#: Longest line the framer keeps; anything longer is garbage (no dialect line comes close).
MAX_LINE_BYTES = 1024


class LineFramer:
    """Cuts a byte stream into lines at LF (a CR before it is dropped); refuses runaway lines.

    >>> framer = LineFramer(max_line=8)
    >>> list(framer.feed(b"ab\\r\\ncd")), list(framer.feed(b"e\\n"))
    ([b'ab'], [b'cde'])
    >>> list(framer.feed(b"0123456789\\nok\\n"))  # the long one comes back as an overflow
    [LineOverflow(b'01234567'), b'ok']
    """

    def __init__(self, max_line: int = MAX_LINE_BYTES):
        self.max_line = max_line
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> Iterator[bytes | LineOverflow]:
        """Lines completed by ``data``, in order; an over-long line as one :class:`LineOverflow`."""
        chunks = data.split(b"\n")
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            if not self._discarding:
                self._buffer += chunk
                if len(self._buffer) > self.max_line:
                    yield LineOverflow(bytes(self._buffer[: self.max_line]))
                    self._buffer.clear()
                    self._discarding = True
            if last:
                break
            if self._discarding:
                self._discarding = False
                continue
            line = bytes(self._buffer).removesuffix(b"\r")
            self._buffer.clear()
            if line:
                yield line

    def take_partial(self) -> bytes:
        """Whatever unfinished line is buffered (emptying the buffer): cut off by a disconnect."""
        partial = bytes(self._buffer)
        self._buffer.clear()
        self._discarding = False
        return partial


class LineOverflow(bytes):
    """The start of a line that ran past the framer's limit (it is rejected, not parsed)."""

    def __repr__(self) -> str:
        return f"LineOverflow({bytes(self)!r})"


class CutOff(bytes):
    """The start of a line the connection dropped in the middle of (it is rejected)."""

    def __repr__(self) -> str:
        return f"CutOff({bytes(self)!r})"
