"""Fixtures for the driver tests (the socat pty pair is shared: ``tests/conftest.py``)."""

from __future__ import annotations

import dataclasses

from drivers.base import BallRecorded, GameEnded, Heartbeat, LaneEvent, SequenceGap


def comparable(events: list[LaneEvent]) -> list[LaneEvent]:
    """Events as the simulator recorded them: no heartbeats or gap reports (the feed's own),
    no feed-assigned source/seq."""
    return [dataclasses.replace(event, source="", seq=None) for event in events
            if not isinstance(event, Heartbeat | SequenceGap)]


def ball_projection(events: list[LaneEvent]) -> list[tuple]:
    """What a scoresheet carries of balls and game ends (no standing pins, no handicap)."""
    rows = []
    for event in events:
        if type(event) is BallRecorded:
            rows.append(("ball", *event.key, event.pins, event.flags))
        elif isinstance(event, GameEnded):
            rows.append(("end", event.lane, event.bowler, event.game, event.scratch))
    return rows
