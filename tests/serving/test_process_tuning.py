"""The collector pacer that ``serve``, ``web`` and ``worker`` run (see docs/performance.md)."""

from __future__ import annotations

import gc

import pytest

from alley_poker.serving.process_tuning import CollectionPacer
from tests.service.league_night_runner import wait_until


def collections(generation: int) -> int:
    return gc.get_stats()[generation]["collections"]


@pytest.fixture
def only_explicit_collections():
    """The counts below move only by the pacer's own passes."""
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


def test_the_pacer_collects_each_generation_at_its_pace_and_stops_when_told(
        only_explicit_collections: None) -> None:
    young, middle, full = collections(0), collections(1), collections(2)
    clock = [0.0]
    pacer = CollectionPacer(young_every_s=0.01, middle_every=3, full_every_s=100.0,
                            clock=lambda: clock[0]).start()
    try:
        assert wait_until(lambda: collections(0) >= young + 4 and collections(1) >= middle + 2,
                          timeout=10)
        assert collections(2) == full  # not due yet on the pacer's clock
        clock[0] = 100.0
        assert wait_until(lambda: collections(2) > full, timeout=10)
    finally:
        pacer.stop()
    assert not pacer.running
    stopped_at = collections(0)
    assert not wait_until(lambda: collections(0) > stopped_at, timeout=0.2)


def test_a_pacer_with_a_pace_of_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="intervals must be positive"):
        CollectionPacer(young_every_s=0)
