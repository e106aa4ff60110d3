"""A scorer's live page served stale (an older ``updated`` clock, e.g. a cache's copy after a
back-fill) is ignored, and a held ball closes once the scorer and the ledger agree again:
the simulator's page over real loopback HTTP → the poll feed → the router → SQLite."""

from __future__ import annotations

import pytest

from alley_poker.bowling import Game
from alley_poker.config import load_config_text
from alley_poker.service.feeds import FeedSupervisor
from alley_poker.service.health import FeedHealthCheck
from drivers.board_server import BoardState, LiveBoardServer
from tests.service.test_page_feed_to_ledger import _config, _start_match

FRESH = [7, 3, 10]
STALE = [7, 2]  # what the page said before the back-fill corrected ANN's second ball


@pytest.fixture
def page(tmp_path):
    service = _start_match(tmp_path, {(1, 1): "ANN", (2, 1): "BO"})
    clock = [1_000.0]
    state = BoardState(clock=lambda: clock[0])
    server = LiveBoardServer(state).start()
    config = load_config_text(_config(server.url).replace("poll_s = 0.2", "poll_s = 0.05"))
    feeds = FeedSupervisor(config.feeds, service.handle_lane_event)
    feeds.start()
    yield service, state, clock, feeds
    feeds.stop()
    server.stop()
    service.repository.store.close()


def show(state, feeds, clock, at: float, rolls: list[int]) -> None:
    """The page shows ANN's ``rolls`` with ``updated`` = ``at``; wait until it was polled."""
    feed = feeds.feeds["hall-page"]
    clock[0] = at
    polled = feed.health().polls
    state.set_game(1, 1, 1, Game.from_rolls(rolls))
    assert feed.wait_for(lambda health: health.polls >= polled + 3, 10), feed.health()


def open_held(service) -> list[dict]:
    return service.held.open_items("m")


def test_a_stale_copy_of_the_page_is_ignored(page):
    service, state, clock, feeds = page
    feed = feeds.feeds["hall-page"]
    show(state, feeds, clock, 1_000.0, FRESH)
    assert feed.wait_for(lambda health: health.balls == 3, 10)
    show(state, feeds, clock, 990.0, STALE)  # older clock: a stale copy
    assert open_held(service) == []
    (report,) = FeedHealthCheck(feeds, service.announce).report()["feeds"]
    assert report["stale_pages"] >= 1 and report["state"] == "green", report
    show(state, feeds, clock, 1_001.0, [*FRESH, 4])
    assert [b["pins"] for b in service.state("m").balls["ANN"][0]] == [*FRESH, 4]
    assert open_held(service) == [] and feed.health().corrections == 0


def test_a_held_ball_closes_when_the_scorer_and_the_ledger_agree_again(page):
    service, state, clock, feeds = page
    show(state, feeds, clock, 1_000.0, FRESH)
    assert feeds.feeds["hall-page"].wait_for(lambda health: health.balls == 3, 10)
    show(state, feeds, clock, 1_001.0, STALE)  # a re-bowl that disagrees: held
    held = open_held(service)
    assert [item["reason"] for item in held] == [
        "the ledger has 3 pin(s) for ANN at game 1 frame 1 ball 2; the scorer says 2"], held
    show(state, feeds, clock, 1_002.0, FRESH)  # the scorer agrees with the ledger again
    assert open_held(service) == []
    resolved = service.held.get(held[0]["id"])
    assert resolved["outcome"] == "placed"
