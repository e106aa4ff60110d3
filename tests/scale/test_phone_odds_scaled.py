"""The live odds reach a bowler's phone in the scaled-out centre: the ``worker`` runs the
scorer's balls and computes their odds; a phone connected to web process #2, which ran none
of it, receives them in its bowler's room (two ``web`` processes and a ``worker`` over
PostgreSQL and Redis, the feed through a real socat pty pair)."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest

from alley_poker.service import AlleyService
from alley_poker.store.phone_links import PhoneLinkStore
from drivers.feed_writer import FeedWriter, serve
from tests.scale.conftest import write_config
from tests.scale.test_multi_process import (
    desk_process,
    start_match,
    two_lane_game,
    wait_every_ball,
)
from tests.web.test_phone_socket import PhoneClient

# A worker and two web processes per test: the slow tier (docs/performance.md).
pytestmark = pytest.mark.slow

ODDS_KINDS = ("state", "match_update", "match_odds")


def phone_session(service, centre: str, bowler: str) -> str:
    """The session cookie of ``bowler``'s code in match m1 of ``centre``, opened."""
    links = PhoneLinkStore(service.repository.store.engine, centre=centre)
    made = links.mint("m1", bowler, date.today(), datetime.now(UTC) + timedelta(hours=3),
                      actor="commissioner:scale-test")
    return links.open(made.secret).session


@dataclass
class FedCentre:
    desk: AlleyService
    centre: str
    web2: str
    slots: dict
    balls: int
    last_seq: int           # the ledger's last event once the worker ran every ball
    odds: list[dict]        # every match_odds the first bowler's phone on web #2 received


@pytest.fixture
def fed_centre(cluster, centre, postgresql_url, redis_url, pty_pair,
               tmp_path) -> Iterator[FedCentre]:
    """A centre with odds on; the first bowler's phone on web #2 joined before a whole game
    was fed to the worker, and kept every ``match_odds`` until the last ball's."""
    config = write_config(tmp_path / "alley.toml", centre=centre, feed_url=pty_pair.reader_path,
                          odds="enabled = true\niterations = 20\nprocesses = 0")
    _web1, web2 = cluster.scaled_out(config)

    simulator, slots = two_lane_game(seed=5)
    with desk_process(centre, postgresql_url, redis_url) as desk:
        writer = FeedWriter(pty_pair.writer_path).start()
        phone = None
        try:
            start_match(desk, "m1", slots, games=1)
            bowler = slots[(1, 1)]
            phone = PhoneClient(web2, phone_session(desk, centre, bowler), kinds=ODDS_KINDS)
            joined = phone.joins.get(timeout=10)
            assert joined.get("bowler") == bowler, joined
            serve(simulator, writer, speed=0)
            assert writer.flush(10)

            deadline = time.monotonic() + 90
            wait_every_ball(desk, "m1", len(simulator.balls), deadline)
            last = desk.state("m1").seq
            # The queue keeps each match's latest request, so the odds of the last change the
            # worker made always come, whatever was dropped before them.
            odds: list[dict] = []
            while not odds or odds[-1]["seq"] < last:
                assert time.monotonic() < deadline, f"odds seen: {[o['seq'] for o in odds]}"
                try:
                    kind, message = phone.next(timeout=1)
                except queue.Empty:
                    continue
                if kind == "match_odds":
                    assert message["match_id"] == "m1"
                    odds.append(message["odds"])
            yield FedCentre(desk, centre, web2, slots, len(simulator.balls), last, odds)
        finally:
            if phone is not None:
                phone.close()
            writer.stop()


def test_a_phone_on_the_second_web_process_gets_the_odds_the_worker_computed(fed_centre):
    odds = fed_centre.odds
    print(f"\nthe phone on web #2 received {len(odds)} odds updates for {fed_centre.balls} "
          "balls (an update replaced before it started is dropped)")
    assert odds[-1]["seq"] == fed_centre.last_seq == fed_centre.desk.state("m1").seq
    assert set(odds[-1]["bowlers"]) == set(fed_centre.slots.values())
    assert [o["seq"] for o in odds] == sorted(o["seq"] for o in odds)


def test_a_phone_joining_the_second_web_process_later_gets_the_workers_odds_at_once(
        fed_centre):
    late = PhoneClient(fed_centre.web2, phone_session(
        fed_centre.desk, fed_centre.centre, fed_centre.slots[(2, 1)]), kinds=ODDS_KINDS)
    try:
        assert late.next()[0] == "state"
        kind, message = late.next(timeout=3)
        assert kind == "match_odds" and message["odds"] == fed_centre.odds[-1]
    finally:
        late.close()
