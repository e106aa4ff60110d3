"""Issue 13's reproduction, through the real pieces: a ruling undone while the scorer bowls on.

``alley-poker serve`` runs as a subprocess on SQLite or PostgreSQL, reading a simulated scorer
through a real serial URL (``socket://``, the scorer listening like a device server); the desk
uses the tablet's HTTP API with an API token.  The commissioner rules a Holland-daze on one
bowler, the scorer's balls keep arriving, then the desk undoes "the last action".  Before the
fix the undo took back the latest *scorer* ball instead: that bowler fell one ball behind, every
later ball of theirs was dropped without a trace and the match never settled, the pot held.

Now: the undo names the ruling and takes back only it, no scorer ball is lost or held, the
ledger holds exactly what the simulator bowled, and the match settles with the pot paid out.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from alley_poker.service import open_service
from alley_poker.store.api_tokens import ApiTokenStore
from drivers.feed_writer import FeedWriter
from tests.service.league_night_runner import (
    Scorer,
    all_balls_recorded,
    audit,
    free_port,
    league_night,
    night_seconds,
    set_up_matches,
    wait_until,
)
from tests.service.test_crash_loop import CONFIG, ServeProcess, ledger_states

pytestmark = pytest.mark.slow

SPEED = 60.0
CENTRE = "crash-test"
MATCH = "lanes-1-2"


class Tablet:
    """The tablet's HTTP API over the network, signed in with an API token."""

    def __init__(self, port: int, token: str):
        self.base = f"http://127.0.0.1:{port}/api/v1"
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.base + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def match(self, match_id: str = MATCH) -> dict:
        return self.call("GET", f"/matches/{match_id}")[1]

    def command(self, kind: str, body: dict, match_id: str = MATCH) -> tuple[int, dict]:
        return self.call("POST", f"/matches/{match_id}/commands/{kind}", body)

    def answer_everything(self, match_id: str) -> None:
        """The desk answers every open decision on the bowlers' behalf (as a quick bowler
        would), so the night can end without waiting for deadlines."""
        for decision in self.call("GET", f"/matches/{match_id}/pending")[1]["pending"]:
            bowler, kind = decision["bowler"], decision["kind"]
            if kind == "lose_card":
                hand = self.match(match_id)["bowlers"][bowler]["hand"]
                if hand:
                    self.command("lose-card", {"bowler": bowler, "card": hand[0]}, match_id)
            elif kind == "steal":
                victims = decision["choices"]
                victim = sorted(victims)[0]
                self.command("steal", {"bowler": bowler, "from_bowler": victim,
                                       "card": victims[victim][0]}, match_id)
            elif kind in ("end_draw", "buy"):
                self.command(kind.replace("_", "-"), {"bowler": bowler, "accept": False},
                             match_id)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_ruling_undone_while_the_scorer_bowls_on_loses_no_ball(backend, tmp_path, request,
                                                                 report):
    database_url = (f"sqlite:///{tmp_path / 'alley.sqlite3'}" if backend == "sqlite"
                    else request.getfixturevalue("postgresql_url"))
    night = league_night(seed=13, games=1)
    desk = open_service(database_url, centre=CENTRE)
    set_up_matches(desk, night)
    token = ApiTokenStore(desk.repository.store.engine, centre=CENTRE).create("desk").secret
    desk.repository.store.close()

    writer = FeedWriter("socket://127.0.0.1:0", resend_window=32).start()
    host, feed_port = writer.address
    config = tmp_path / "alley.toml"
    config.write_text(CONFIG.format(database="/unused", host=host, port=feed_port,
                                    centre=CENTRE).replace(
        'url = "sqlite:////unused"', f'url = "{database_url}"'), encoding="utf-8")
    web_port = free_port()
    log_path = tmp_path / "serve.log"
    serve = ServeProcess(config, web_port, log_path)
    tablet = Tablet(web_port, token)
    try:
        assert wait_until(lambda: writer.connections > 0 and serve.answers(), 30), \
            log_path.read_text(errors="replace")[-3000:]
        scorer = Scorer(night, writer, speed=SPEED).start()

        # Rule on the bowler holding most cards, so the ruling takes something back.
        assert wait_until(lambda: tablet.match()["seq"] > 40, 30)
        view = tablet.match()
        victim, seat = max(view["bowlers"].items(), key=lambda item: len(item[1]["hand"]))
        before = sorted(seat["hand"])
        status, ruled = tablet.command("holland-daze", {"bowler": victim,
                                                        "reason": "ruled on the wrong bowler"})
        assert status == 200, ruled
        ruling_seq = ruled["seq"]
        # The scorer bowls on: at least one of its balls lands after the ruling.
        assert wait_until(lambda: tablet.match()["seq"] > ruling_seq + 1, 10)

        status, answer = tablet.call("GET", f"/matches/{MATCH}/undo")
        last = answer["undoable"]
        assert last["what"] == f"the Holland-daze ruling on {victim}", last
        assert last["later"] >= 1, "a scorer ball was expected between the ruling and the undo"
        assert f"{victim}'s {len(before)} card" in last["undo"], last
        status, undone = tablet.command("undo-last", {"action": last["action"],
                                                      "reason": "tapped the wrong bowler"})
        assert status == 200, undone
        after = tablet.match()["bowlers"][victim]["hand"]
        assert set(before) <= set(after), f"{victim} held {before}, after the undo {after}"

        assert scorer.join(timeout=max(60.0, 3 * night_seconds(night, SPEED))), \
            "the scorer never finished"
        assert writer.flush(30)
        assert wait_until(lambda: all_balls_recorded(ledger_states(database_url), night), 30), \
            "a scorer ball never reached the ledger"
        assert tablet.call("GET", "/held")[1]["held"] == []
        checked = audit(ledger_states(database_url), night)

        for match_id in ("lanes-1-2", "lanes-3-4"):
            for _ in range(20):
                tablet.answer_everything(match_id)
                status, body = tablet.command("confirm-result", {"reason": "night over"},
                                              match_id)
                if status == 200:
                    break
                time.sleep(0.2)
            assert status == 200, body
        states = ledger_states(database_url)
    finally:
        serve.kill()
        writer.stop()

    for match_id, state in states.items():
        assert state.status == "settled", (match_id, state.status)
        antes = sum(state.paid.values())
        assert state.pot_cents == 0 and sum(state.won.values()) == antes, (
            match_id, state.paid, state.won)
    undo_events = [e for e in _events(database_url, MATCH) if e["type"] == "action_undone"]
    assert len(undo_events) == 1 and undo_events[0]["data"]["reason"] == "tapped the wrong bowler"
    report(f"undo reproduction [{backend}]: {checked} scorer balls, all in the ledger once; "
           f"Holland-daze on {victim} undone past {last['later']} later action(s); "
           "both matches settled, pots paid out")
    log = Path(log_path).read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]


def _events(database_url: str, match_id: str) -> list[dict]:
    from alley_poker.store import EventStore
    store = EventStore.open(database_url, centre=CENTRE)
    try:
        return store.load(match_id)
    finally:
        store.close()
