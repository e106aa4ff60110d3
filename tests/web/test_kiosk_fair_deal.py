"""The kiosk says the deal is sealed before the first ball (in words, not the commitment's
hex) and shows the seed and its commitment after the match ends (real headless Chromium)."""

from __future__ import annotations

from alley_poker.ledger import commands as c
from alley_poker.service import open_service
from tests.conftest import centre_app
from tests.web.conftest import DESK, PIN, open_kiosk, serve, start_match


def test_the_kiosk_says_the_deal_is_sealed_in_play_and_shows_seed_and_commitment_after(
        browser, tmp_path):
    service = open_service(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")  # fair dealing
    start_match(service)
    app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret")
    server = serve(app)
    try:
        fairness = service.state("m1").fairness
        assert service.state("m1").balls_recorded == 0
        page = open_kiosk(browser, server.url)
        shown = page.locator("#fair-deal")
        shown.wait_for(state="visible")
        # During play the TV says the cards are sealed, in words: no 64 hex digits.
        assert "the cards were sealed before the first ball" in shown.inner_text()
        assert fairness["commitment"] not in shown.inner_text()
        assert "seed revealed" not in shown.inner_text()

        service.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:test"))
        service.execute("m1", c.CommissionerSettleAsHandsStand(reason="closing",
                                                                actor=DESK))
        seed = service.state("m1").fairness["seed"]
        assert service.state("m1").status == "settled" and len(seed) == 64
        page.wait_for_function(
            "text => document.getElementById('fair-deal').textContent.includes(text)",
            arg=seed, timeout=5000)
        assert fairness["commitment"] in shown.inner_text()
    finally:
        server.stop()
        service.repository.store.close()
