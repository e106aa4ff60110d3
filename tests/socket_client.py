"""A python-socketio client that hands the server's messages to its handlers in order.

python-engineio's client starts a thread for every message it receives and runs the message's
handler there, so two pushes sent one after the other can reach a test's queue in the other
order whenever the machine is busy (the parallel suite saw a kiosk's patches swapped: "a
patch of seq 62, but seq 60 is held").  A kiosk or phone in a browser never sees that: the
browser's client handles one message at a time.  Tests that check what a screen would show,
push by push, use :class:`InOrderClient`, which does the same: each message's handler runs
in the client's read loop, before the next message is read.

Its handlers must therefore not wait on the server (a ``call`` from inside a handler would
wait for an answer the read loop cannot read); the tests' handlers only keep what came.
"""

from __future__ import annotations

import engineio
import socketio


class _InOrderEngineIO(engineio.Client):
    def _trigger_event(self, event, *args, **kwargs):
        if event == "message":
            kwargs["run_async"] = False  # in the read loop, so in the socket's order
        return super()._trigger_event(event, *args, **kwargs)


class InOrderClient(socketio.Client):
    """``socketio.Client`` whose message handlers run one at a time, in arrival order."""

    def _engineio_client_class(self):
        return _InOrderEngineIO
