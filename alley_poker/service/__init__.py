"""The alley service: lane events in, ledger commands through, state changes out on the bus."""

from alley_poker.service.alley import AlleyService, open_service
from alley_poker.service.bus import EventBus, InProcessBus
from alley_poker.service.lanes import LaneAssignmentError, LaneMap

__all__ = [
    "AlleyService",
    "EventBus",
    "InProcessBus",
    "LaneAssignmentError",
    "LaneMap",
    "open_service",
]
