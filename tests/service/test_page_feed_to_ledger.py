"""End to end without a cable: the simulator's live page over real loopback HTTP → the poll
feed from ``alley.toml`` → the service's router → the ledger in SQLite."""

from __future__ import annotations

import random

import pytest

from alley_poker.bowling import Game
from alley_poker.config import ConfigError, load_config_text
from alley_poker.ledger.commands import ConsentToAnte, StartMatch
from alley_poker.service import open_service
from alley_poker.service.feeds import FeedSupervisor
from drivers.board_server import BoardState, LiveBoardServer, serve_board
from drivers.http_feed import HttpPollFeed
from drivers.simulator import Simulator


def _config(url: str, extra: str = "") -> str:
    return f"""
[centre]
name = "Page Lanes"
lanes = 4
[[feeds]]
name = "hall-page"
url = "{url}"
lanes = [1, 2]
poll_s = 0.2
{extra}
"""


def test_a_page_feed_is_configured_like_a_serial_feed_and_bad_ones_are_refused():
    config = load_config_text(_config("http://127.0.0.1:9/live"))
    feed = config.feeds[0]
    assert (feed.dialect, feed.poll_s, feed.timeout_s, feed.polls_a_page) == \
        ("live-board", 0.2, 5.0, True)
    supervisor = FeedSupervisor(config.feeds, lambda event: None)
    assert isinstance(supervisor.feeds["hall-page"], HttpPollFeed)
    with pytest.raises(ConfigError, match=r"feeds\[0\]\.dialect: 'apf1' is not a page dialect"):
        FeedSupervisor(load_config_text(_config("http://x/live", 'dialect = "apf1"')).feeds,
                       lambda event: None)
    with pytest.raises(ConfigError, match="reads a web page; give the feed the page's"):
        FeedSupervisor(load_config_text(_config("socket://127.0.0.1:9",
                                                'dialect = "live-board"')).feeds,
                       lambda event: None)
    with pytest.raises(ConfigError, match=r"feeds\[0\]\.poll_s"):
        load_config_text(_config("http://x/live").replace("poll_s = 0.2", "poll_s = 0"))


def _start_match(tmp_path, slots):
    seeds = random.Random(7)
    service = open_service(f"sqlite:///{tmp_path / 'page.sqlite3'}",
                           rng_factory=lambda: random.Random(seeds.random()))
    service.create_match("m", slots, games=1, actor="commissioner:test")
    for name in slots.values():
        service.execute("m", ConsentToAnte(name, actor=f"bowler:{name}"))
    service.execute("m", StartMatch(actor="commissioner:test"))
    return service


def test_a_simulated_night_on_the_page_is_dealt_ball_for_ball(tmp_path):
    simulator = Simulator([1, 2], seed=3, games=1, bowlers_per_lane=2)
    slots = {(setup.lane, slot): profile.name for setup in simulator.lanes
             for slot, profile in enumerate(setup.bowlers, 1)}
    service = _start_match(tmp_path, slots)
    state = BoardState()
    server = LiveBoardServer(state).start()
    config = load_config_text(_config(server.url).replace("poll_s = 0.2", "poll_s = 0.05"))
    feeds = FeedSupervisor(config.feeds, service.handle_lane_event)
    feeds.start()
    try:
        serve_board(simulator, state, speed=1000, heartbeat_s=5)
        feed = feeds.feeds["hall-page"]
        assert feed.wait_for(lambda health: health.balls == len(simulator.balls), 20), \
            feed.health()
        ledger = service.state("m")
        for played in simulator.games_bowled:
            name = slots[(played.lane, played.bowler)]
            dealt = [(b["pins"], b["foul"], bool(b["split"])) for b in ledger.balls[name][0]]
            assert dealt == [(b.pins, b.foul, b.split) for b in played.game.balls]
        assert ledger.reviews == {} and service.router.stats.refused == 0
        # Re-polls of the page once the night is over: 304s, and nothing dealt twice.
        assert feed.wait_for(lambda health: health.not_modified >= 3, 5)
        assert server.not_modified >= 3 and feed.health().balls == len(simulator.balls)
        health = feeds.health()[0]
        assert health["state"] == "ok" and health["lanes"] == [1, 2]
    finally:
        feeds.stop()
        server.stop()
        service.repository.store.close()


def test_a_dealt_ball_the_page_changes_later_goes_to_correction_review(tmp_path):
    service = _start_match(tmp_path, {(1, 1): "ANN", (2, 1): "BO"})
    state = BoardState()
    server = LiveBoardServer(state).start()
    config = load_config_text(_config(server.url).replace("poll_s = 0.2", "poll_s = 0.05"))
    feeds = FeedSupervisor(config.feeds, service.handle_lane_event)
    feeds.start()
    feed = feeds.feeds["hall-page"]
    try:
        state.set_game(1, 1, 1, Game.from_rolls([0, 5]))  # a gutter ball: it costs a card
        state.set_game(2, 1, 1, Game.from_rolls([4]))
        assert feed.wait_for(lambda health: health.balls == 3, 10)
        dealt = service.state("m")
        assert [b["pins"] for b in dealt.balls["ANN"][0]] == [0, 5]
        state.set_game(1, 1, 1, Game.from_rolls([3, 5]))  # the desk: it was a 3, not a gutter
        assert feed.wait_for(lambda health: health.corrections == 1, 10)
        after = service.state("m")
        reviews = list(after.reviews.values())
        assert [review["bowler"] for review in reviews] == ["ANN"], reviews
        assert feed.health().balls == 3  # nothing dealt twice
    finally:
        feeds.stop()
        server.stop()
        service.repository.store.close()
