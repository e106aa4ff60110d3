"""Fixtures for the web tests: a real service over a tmp SQLite ledger, the app, a live server."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

from alley_poker.ledger import commands as c
from alley_poker.service import AlleyService
from alley_poker.service import open_service as service_over_store
from alley_poker.web.centre_access import centre_of
from tests.conftest import centre_app
from tests.ports import free_port  # noqa: F401  (ports for the tests' servers: tests/ports.py)

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PIN = "2468"
DESK = "commissioner:test-desk"


def open_service(database: Path, seed: int = 1) -> AlleyService:
    """A service over the SQLite ledger at ``database``; seed 1 deals Ann no joker in her
    first strike, so her first gutter opens a lose-card decision."""
    rng = random.Random(seed)
    return service_over_store(f"sqlite:///{database}",
                              rng_factory=lambda: random.Random(rng.random()))


def start_match(service: AlleyService, match_id: str = "m1",
                slots: dict | None = None) -> None:
    """A started one-game match: Ann on lane 1, Bob on lane 2."""
    slots = slots or {(1, 1): "Ann", (2, 1): "Bob"}
    service.create_match(match_id, slots, games=1, actor=DESK)
    for bowler in slots.values():
        service.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, c.StartMatch(actor=DESK))


def start_stacked_match(service, match_id: str, slots: dict) -> None:
    """A started one-game match in test mode (so the pile can be stacked) on ``slots``."""
    service.lanes.assign(match_id, slots)
    bowlers = list(slots.values())
    service.execute(match_id, c.CreateMatch(match_id, bowlers, games=1, test_mode=True,
                                            actor=DESK))
    for bowler in bowlers:
        service.execute(match_id, c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    service.execute(match_id, c.StartMatch(actor=DESK))


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "ledger.sqlite3"


@pytest.fixture
def service(database: Path) -> AlleyService:
    service = open_service(database)
    start_match(service)
    return service


#: Phone codes can be made whenever the suite runs.  A close before noon is the next
#: morning's, so the night going on is open at every hour; and a league night (the tests'
#: Tuesday league: 19:00 in Chicago, a night of 12 hours, so "tonight" until 07:00 there) must
#: close no earlier than the league's own night ends, in the league's zone.  (The close was
#: 04:00 UTC once: from 04:00 to 13:00 UTC a code for tonight's league match was refused,
#: rightly, and the test minting one failed whenever the suite ran then.)  With the default
#: 23:30 close a code asked for between 23:30 and midnight is refused, as it should be.
OPEN_NIGHT = {"night": {"close": "11:59", "timezone": "America/Chicago"}}


@pytest.fixture
def app(service: AlleyService):
    return centre_app(service, testing=True, pin=PIN, secret_key="test-secret", **OPEN_NIGHT)


def pair_kiosk(app, lanes: str = "1-2") -> str:
    """A kiosk for ``lanes`` paired as the commissioner would: its device secret."""
    devices = centre_of(app).kiosk_devices
    asked = devices.request(lanes)
    assert devices.approve(asked.code, actor="commissioner:test") is not None
    return asked.secret


def csrf_token_from(html: str) -> str:
    found = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert found, "the page carries no CSRF token"
    return found.group(1)


def signed_in_client(app):
    """A test client signed in as the commissioner, and its CSRF token."""
    client = app.test_client()
    token = csrf_token_from(client.get("/commissioner").get_data(as_text=True))
    answer = client.post("/commissioner/sign-in", data={"pin": PIN, "csrf_token": token})
    assert answer.status_code == 302, answer.get_data(as_text=True)
    token = csrf_token_from(client.get("/commissioner").get_data(as_text=True))
    return client, token


def post_new_match(client, csrf: str, bowlers: list[tuple[int, str]], **fields):
    """``POST /api/v1/matches`` of match m2, one game, each ``(lane, bowler)`` of ``bowlers``
    in slot 1 of its lane (``fields`` added to the body); the answer."""
    body = {"match_id": "m2", "games": 1,
            "slots": [{"lane": lane, "slot": 1, "bowler": bowler} for lane, bowler in bowlers],
            **fields}
    return client.post("/api/v1/matches", json=body, headers={"X-CSRFToken": csrf})


def signed_in_tablet(app):
    """A signed-in commissioner's test client and ``send(method, url, body=None)``, which
    sends ``body`` as JSON with the CSRF token and returns the status code and the JSON."""
    client, csrf = signed_in_client(app)

    def send(method, url, body=None):
        answer = client.open(url, method=method, json=body, headers={"X-CSRFToken": csrf})
        return answer.status_code, answer.get_json()

    return client, send


#: A centre of four lanes over SQLite with one feed, for ``alley-poker serve`` in a test; no
#: live odds (their pool: two more processes at work on every ball, for tests not about them).
SERVE_CONFIG = """
[centre]
id = "test-centre"
name = "Test Lanes"
lanes = 4

[database]
url = "sqlite:///{database}"

[odds]
enabled = false

[[feeds]]
name = "scorer"
url = "{feed_url}"
lanes = [1, 2]
{feed_extra}"""


def serve_config(database: Path, feed_url: str, feed_extra: str = "") -> str:
    """``SERVE_CONFIG`` for a ledger at ``database`` and a feed at ``feed_url``, with
    ``feed_extra`` lines in the feed's table."""
    return SERVE_CONFIG.format(database=database, feed_url=feed_url, feed_extra=feed_extra)


@dataclass
class LiveServer:
    app: object
    server: BaseWSGIServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def serve(app, port: int = 0) -> LiveServer:
    """Serve ``app`` (Socket.IO included) on a loopback port in a thread."""
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return LiveServer(app, server, thread)


@pytest.fixture
def live_server(app) -> Iterator[LiveServer]:
    running = serve(app)
    yield running
    running.stop()


#: The desk page's socket is live: what a signed-in desk waits for before a test uses it.
DESK_LIVE = "#live-state[data-state=live]"


def signed_in_desk(browser, url: str, *, width: int = 1280, height: int = 800,
                   timeout_ms: int = 8_000, ready: str = DESK_LIVE):
    """A new page of ``browser`` (a tablet's 1280x800 unless told) signed in at the
    commissioner's desk of the centre at ``url`` with the PIN, once ``ready`` is drawn.

    The sign-in form is sent by the page's own context (its cookies), not typed into a drawn
    sign-in page: drawing it cost Chromium half a second a desk, and the form itself is
    typed into by the tests of signing in (test_tablet_desk.py, test_accessibility.py)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(timeout_ms)
    form = page.context.request
    token = csrf_token_from(form.get(f"{url}/commissioner").text())
    answer = form.post(f"{url}/commissioner/sign-in", form={"pin": PIN, "csrf_token": token},
                       max_redirects=0)
    assert answer.status == 302, answer.text()
    page.goto(f"{url}/commissioner")
    page.wait_for_selector(ready)
    return page


def open_kiosk(browser, url: str, width: int = 1920, height: int = 1080, *,
               device_token: str | None = None, lanes: str = "1-2",
               showing: str = "section.bowler[data-bowler=Ann]"):
    """The kiosk of ``lanes`` (1-2 unless told), live and ``showing`` (Ann's panel unless
    told); with ``device_token`` (see ``pair_kiosk``) a paired one, whose bowlers may answer
    their decisions."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(10_000)
    if device_token is not None:
        page.add_init_script(f"localStorage.setItem('alley-poker-kiosk-device:{lanes}', "
                             f"{json.dumps(device_token)})")
    page.goto(f"{url}/kiosk/{lanes}")
    page.wait_for_selector("#connection[data-state=live]")
    page.wait_for_selector(showing)
    return page


@pytest.fixture
def stacked_kiosk(browser, database):
    """A service with no match yet, served, and a function opening the kiosk of lanes 1-2
    once it shows a match's panels (the test starts the match first)."""
    service = open_service(database)
    server = serve(centre_app(service, testing=True, pin=PIN, secret_key="test-secret"))
    try:
        yield service, lambda: open_kiosk(browser, server.url, showing="section.bowler")
    finally:
        server.stop()


def assert_no_pile_order(payload: object, pile: list[str]) -> None:
    """Fail if ``payload`` (JSON-safe) reveals the draw pile's order.

    Neither an ``order``/``pile`` key, nor any list holding three or more of the pile's cards
    in a row in pile order, may appear anywhere in it.
    """
    runs = {tuple(pile[i:i + 3]) for i in range(len(pile) - 2)}

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                assert key not in ("order", "pile"), f"{where}.{key} is sent to clients"
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            strings = [item if isinstance(item, str) else None for item in node]
            for i in range(len(strings) - 2):
                assert tuple(strings[i:i + 3]) not in runs, f"{where} holds the pile's order"
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    walk(payload, "payload")


def serve_in_process(database: Path, port: int) -> subprocess.Popen:
    """The app over ``database`` in its own process (``tests.web.serve_app``), serving."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.web.serve_app", str(database), str(port)],
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout.readline().strip() == "serving"
    return process


def press_on(page, locator) -> None:
    """Hold the mouse button down over the middle of ``locator``'s element.

    ``hover`` waits for the element to be there, visible and still (trying again if a redraw
    replaces it), then moves the pointer onto it.  A ``bounding_box()`` read straight away is
    None while the element is not drawn yet or was just replaced: CI saw that once.
    """
    locator.hover()
    page.mouse.down()


def drawn(page) -> None:
    """Wait until the page has drawn what it was last told to: its web fonts loaded and two
    animation frames run (a viewport change fires ``resize``, and the kiosk re-fits, in the
    first frame after it).  The condition a layout check reads, instead of a guessed pause
    that a loaded machine outlasts."""
    page.evaluate("""() => document.fonts.ready.then(() => new Promise(done =>
        requestAnimationFrame(() => requestAnimationFrame(() => done()))))""")
