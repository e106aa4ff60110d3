"""Live win odds on the screens: computed apart from the balls, pushed after every change,
carried by the API, shown beside each hand on the kiosk; off unless the centre asks."""

from __future__ import annotations

import pytest

from alley_poker.config import OddsConfig
from alley_poker.ledger import commands as c
from alley_poker.web.centre_access import centre_of
from alley_poker.web.match_view_schema import MatchView
from tests.conftest import centre_app
from tests.service.league_night_runner import wait_until
from tests.web.conftest import PIN, open_kiosk, serve


def _app(service, processes: int):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret",
                      odds={"enabled": True, "iterations": 120, "processes": processes})


@pytest.fixture
def odds_server(service):
    running = serve(_app(service, processes=1))
    yield running
    running.stop()
    centre_of(running.app).odds.stop()


def _shown_odds(page) -> dict[str, tuple[str, str]]:
    return page.eval_on_selector_all(
        "section.bowler .odds",
        "boxes => Object.fromEntries(boxes.map(b => [b.closest('section').dataset.bowler,"
        " [b.dataset.seq, b.querySelector('.odds-text').textContent]]))")


def test_the_kiosk_shows_each_bowlers_odds_and_they_change_after_a_ball(
        browser, odds_server, service, tmp_path):
    page = open_kiosk(browser, odds_server.url)
    assert page.locator(".odds").count() == 0  # none computed yet
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    after_strike = service.state("m1").seq
    page.wait_for_function(
        "seq => document.querySelectorAll(`section.bowler .odds[data-seq='${seq}']`)"
        ".length === 2", arg=str(after_strike), timeout=15_000)
    first = _shown_odds(page)
    assert first["Ann"][1].endswith("to win") and first["Bob"][1].endswith("to win")
    wins = page.eval_on_selector_all("section.bowler .odds", "bs => bs.map(b => +b.dataset.win)")
    assert sum(wins) == pytest.approx(1.0, abs=0.001)
    # Settled odds, not the first estimate: the comparison below is between two states, and a
    # first estimate's noise (about 1.3 points) is as large as the change it looks for.
    assert centre_of(odds_server.app).odds.wait_idle(60)
    odds = centre_of(odds_server.app).odds.latest("m1")
    assert odds["settled"] and odds["seq"] == after_strike
    assert odds["bowlers"]["Ann"]["win"] > odds["bowlers"]["Bob"]["win"]  # Ann holds 3 cards

    service.execute("m1", c.RecordBall("Bob", 1, 0, gutter=True, actor="feed:test"))
    service.execute("m1", c.RecordBall("Bob", 1, 0, gutter=True, actor="feed:test"))
    later = service.state("m1").seq
    page.wait_for_function(
        "seq => document.querySelectorAll(`section.bowler .odds[data-seq='${seq}']`)"
        ".length === 2", arg=str(later), timeout=15_000)
    second = _shown_odds(page)
    assert second["Ann"] != first["Ann"]
    assert centre_of(odds_server.app).odds.wait_idle(60)
    settled = centre_of(odds_server.app).odds.latest("m1")
    assert settled["settled"] and settled["seq"] == later
    print(f"Ann's chance {odds['bowlers']['Ann']['win']} -> {settled['bowlers']['Ann']['win']}")
    assert settled["bowlers"]["Ann"]["win"] > odds["bowlers"]["Ann"]["win"]
    page.screenshot(path=tmp_path / "kiosk-odds.png")


def test_the_api_carries_the_odds_and_a_ball_never_waits_for_them(service):
    app = _app(service, processes=0)
    try:
        client = app.test_client()
        assert "odds" not in client.get("/api/v1/matches/m1").get_json()
        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        # The ball is done (and its state readable) whether or not the odds are yet.
        assert service.state("m1").balls_recorded == 1
        assert centre_of(app).odds.wait_idle(20)
        view = client.get("/api/v1/matches/m1").get_json()
        assert view["odds"]["seq"] == view["seq"]
        assert set(view["odds"]["bowlers"]) == {"Ann", "Bob"}
        # In the shape the OpenAPI document (made from this model) promises.
        assert MatchView.model_validate(view).odds.bowlers["Ann"].win == \
            view["odds"]["bowlers"]["Ann"]["win"]
        screen = client.get("/api/v1/lanes/1-2/screen").get_json()
        assert screen["matches"][0]["state"]["odds"] == view["odds"]
    finally:
        centre_of(app).odds.stop()


def test_only_the_latest_request_of_a_match_is_computed(service):
    app = _app(service, processes=0)
    odds = centre_of(app).odds
    try:
        state = service.state("m1")
        with odds._cond:  # hold the workers so three requests queue up
            for _ in range(3):
                odds.request("m1", state)
        assert odds.wait_idle(20)
        assert odds.dropped == 2 and odds.computed == 1
    finally:
        odds.stop()


def test_a_centre_that_settles_its_odds_sooner_gets_them_in_fewer_runs(service):
    """``[odds] settled_points`` reaches the odds: ±2 points settles a close match in some
    hundreds of runs, where the default's ±0.40 takes thousands."""
    service.execute("m1", c.RecordBall("Ann", 1, 7, actor="feed:test"))
    runs = {}
    for points in (2.0, OddsConfig().settled_points):
        app = centre_app(service, testing=True, pin=PIN, secret_key="s",
                         odds=OddsConfig(iterations=20_000, first_iterations=20, processes=0,
                                         settled_points=points).model_dump())
        live_odds = centre_of(app).odds
        try:
            live_odds.request("m1", service.state("m1"))
            assert live_odds.wait_idle(60)
            odds = app.test_client().get("/api/v1/matches/m1").get_json()["odds"]
            assert odds["settled"], odds
            runs[points] = odds["iterations"]
        finally:
            live_odds.stop()
    assert runs[2.0] < 1_500 < 4_000 < runs[OddsConfig().settled_points], runs


def test_odds_are_off_unless_the_centre_turns_them_on(app, service):
    assert centre_of(app).odds is None
    service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
    assert not wait_until(lambda: "odds" in app.test_client().get(
        "/api/v1/matches/m1").get_json(), 0.3, poll=0.05)
