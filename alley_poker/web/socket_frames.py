"""Socket.IO frames a client cannot break the server with: read, or answered with an error.

python-socketio reads each frame's JSON with the json module, which parses nesting by
recursion: a frame 50,000 ``[`` deep raised RecursionError inside the server's message
handler, which logged a traceback and answered nothing.  A frame that is not JSON, or an
event that is not a list starting with its name, did the same.  :class:`GuardedPacket`
reads frames instead; a frame it cannot read becomes the event :data:`REFUSED_FRAME` with
the problem in words, which :func:`register_refused_frames` answers (to the frame's
acknowledgement id, when it has one) with the usual error body.

>>> deep = GuardedPacket(encoded_packet='21["join",' + "[" * 5000 + "]" * 5000 + "]")
>>> deep.id, deep.data
(1, ['refused_frame', 'the message is nested too deeply to read'])
>>> GuardedPacket(encoded_packet='2{"lanes":"1-2"}').data[0]
'refused_frame'
>>> GuardedPacket(encoded_packet='2["join",{"lanes":"1-2"}]').data
['join', {'lanes': '1-2'}]
"""

from __future__ import annotations

from typing import Any

from socketio import packet

from alley_poker.web.errors import error_body

#: The event a frame that cannot be read turns into.
REFUSED_FRAME = "refused_frame"
_EVENTS = (packet.EVENT, packet.BINARY_EVENT)


class GuardedPacket(packet.Packet):
    """python-socketio's packet, whose decoding never raises on a client's frame."""

    def decode(self, encoded_packet: Any) -> int:
        try:
            attachments = super().decode(encoded_packet)
        except RecursionError:
            return self._refused("the message is nested too deeply to read")
        except (ValueError, TypeError, IndexError):
            return self._refused("the message is not a Socket.IO message (not JSON, or cut "
                                 "off)")
        if self.packet_type in _EVENTS and not (
                isinstance(self.data, list) and self.data and isinstance(self.data[0], str)):
            return self._refused("a Socket.IO event is a list starting with its name")
        return attachments

    def _refused(self, problem: str) -> int:
        if getattr(self, "packet_type", None) not in _EVENTS:
            self.packet_type = packet.EVENT
        self.namespace = getattr(self, "namespace", None)
        self.id = getattr(self, "id", None)
        self.data = [REFUSED_FRAME, problem]
        return 0


def register_refused_frames(socketio: Any) -> None:
    """Answer a refused frame with ``{"ok": false, "error": ...}`` (no traceback logged)."""

    @socketio.on(REFUSED_FRAME)
    def _refused(problem: Any = None, *_rest: Any) -> dict[str, Any]:
        said = problem if isinstance(problem, str) and len(problem) < 200 else \
            "the message could not be read"
        return error_body("bad_request", said, 400)[0]
