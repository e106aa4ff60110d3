"""Two centres on one PostgreSQL database and one Redis never see each other's data.

Centre A's and centre B's web processes run side by side (sharing even the session-signing
key, as a chain might).  A's commissioner — by session or API token — cannot read or change
B's matches; each centre lists only its own; both have a match "m1" and each works; and A's
kiosks never receive B's updates.
"""

from __future__ import annotations

import time
import uuid

import pytest
import requests

from alley_poker.service import open_service
from alley_poker.service.redis_bus import RedisBus, centre_channel_prefix
from tests.scale.conftest import write_config
from tests.scale.test_multi_process import Kiosk, start_match
from tests.web.conftest import PIN, csrf_token_from


class Tablet:
    """A commissioner's tablet signed in to one web process (a requests session)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = requests.Session()
        token = csrf_token_from(self.http.get(f"{base_url}/commissioner", timeout=10).text)
        answer = self.http.post(f"{base_url}/commissioner/sign-in",
                                data={"pin": PIN, "csrf_token": token},
                                allow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text
        self.csrf = csrf_token_from(self.http.get(f"{base_url}/commissioner", timeout=10).text)

    def get(self, path: str, base_url: str | None = None) -> requests.Response:
        return self.http.get(f"{base_url or self.base_url}/api/v1{path}", timeout=10)

    def post(self, path: str, body: dict, base_url: str | None = None) -> requests.Response:
        return self.http.post(f"{base_url or self.base_url}/api/v1{path}", json=body,
                              headers={"X-CSRFToken": self.csrf}, timeout=10)


def desk_for(centre: str, database_url: str, redis_url: str):
    bus = RedisBus(redis_url, channel_prefix=centre_channel_prefix(centre))
    return bus, open_service(database_url, centre=centre, bus=bus)


@pytest.mark.slow
def test_a_commissioner_of_centre_a_can_neither_see_nor_touch_centre_b(
        cluster, postgresql_url, redis_url, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    centre_a, centre_b = f"a-{suffix}", f"b-{suffix}"
    web_a = cluster.web(write_config(tmp_path / "a.toml", centre=centre_a), wait=False)
    web_b = cluster.web(write_config(tmp_path / "b.toml", centre=centre_b), wait=False)
    for process, _ in (web_a, web_b):
        process.wait_for(r"web process serving on")
    url_a, url_b = web_a[1], web_b[1]

    bus_a, desk_a = desk_for(centre_a, postgresql_url, redis_url)
    bus_b, desk_b = desk_for(centre_b, postgresql_url, redis_url)
    kiosks: list[Kiosk] = []
    try:
        start_match(desk_a, "m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1)
        start_match(desk_b, "m1", {(1, 1): "Xia", (2, 1): "Yan"}, games=1)
        start_match(desk_b, "b-only", {(3, 1): "Zoe", (4, 1): "Val"}, games=1)
        kiosk_a, kiosk_b = Kiosk(url_a, "1-2"), Kiosk(url_b, "1-2")
        kiosks += [kiosk_a, kiosk_b]
        deadline = time.monotonic() + 10
        while (kiosk_a.join(), kiosk_b.join()) != (["m1"], ["m1"]):
            assert time.monotonic() < deadline, "the web processes never learned the lanes"
            time.sleep(0.1)

        tablet_a, tablet_b = Tablet(url_a), Tablet(url_b)
        made = tablet_a.post("/tokens", {"name": "league office"})
        assert made.status_code == 201, made.text
        bearer_a = {"Authorization": f"Bearer {made.json()['token']}"}

        # Each centre lists its own matches only; equal ids are each centre's own match.
        assert [m["match_id"] for m in tablet_a.get("/matches").json()["matches"]] == ["m1"]
        assert sorted(m["match_id"] for m in tablet_b.get("/matches").json()["matches"]) == [
            "b-only", "m1"]
        m1_a, m1_b = tablet_a.get("/matches/m1").text, tablet_b.get("/matches/m1").text
        assert "Ann" in m1_a and "Xia" not in m1_a
        assert "Xia" in m1_b and "Ann" not in m1_b

        # A's session and token cannot read B's match nor command B.
        assert tablet_a.get("/matches/b-only").status_code == 404
        assert requests.get(f"{url_a}/api/v1/matches/b-only", headers=bearer_a,
                            timeout=10).status_code == 404
        b_seq = desk_b.state("m1").seq
        refused = tablet_a.post("/matches/m1/commands/record-ball",
                                {"bowler": "Xia", "pins": 10}, base_url=url_b)
        assert refused.status_code in (401, 403), refused.text
        refused = requests.post(f"{url_b}/api/v1/matches/m1/commands/record-ball",
                                json={"bowler": "Xia", "pins": 10}, headers=bearer_a, timeout=10)
        assert refused.status_code == 401, refused.text
        assert desk_b.state("m1").seq == b_seq, "centre B's match changed"

        # Each centre's commissioner commands its own "m1"; each kiosk sees only its centre's.
        dealt_a = requests.post(f"{url_a}/api/v1/matches/m1/commands/record-ball",
                                json={"bowler": "Ann", "pins": 10}, headers=bearer_a,
                                timeout=10)
        assert dealt_a.status_code == 200, dealt_a.text
        dealt_b = tablet_b.post("/matches/m1/commands/record-ball", {"bowler": "Xia", "pins": 7})
        assert dealt_b.status_code == 200, dealt_b.text
        assert kiosk_a.wait(lambda updates: updates, timeout=10)
        assert kiosk_b.wait(lambda updates: updates, timeout=10)
        time.sleep(0.5)  # a stray cross-centre push would have arrived by now
        bowlers_a = {e["data"].get("bowler") for u in kiosk_a.updates for e in u["events"]}
        bowlers_b = {e["data"].get("bowler") for u in kiosk_b.updates for e in u["events"]}
        assert "Ann" in bowlers_a and not bowlers_a & {"Xia", "Yan", "Zoe", "Val"}
        assert "Xia" in bowlers_b and not bowlers_b & {"Ann", "Bob"}
        assert desk_b.state("m1").seq > b_seq and desk_a.state("m1").balls["Ann"][0]
    finally:
        for kiosk in kiosks:
            kiosk.close()
        for bus, desk in ((bus_a, desk_a), (bus_b, desk_b)):
            bus.close()
            desk.repository.store.close()
