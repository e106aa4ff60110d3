"""Shared test fixtures.

External parts (PostgreSQL, Redis, socat, Chromium) are used for real.  Where one is missing a
test skips with the reason, except under CI (``CI`` set), where a missing part is a failure:
CI must never go green by skipping.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from werkzeug.security import generate_password_hash

from alley_poker.centre import Centre, Role, build_centre
from alley_poker.config import AlleyConfig
from alley_poker.web import create_app
from tests.cpu_account import CpuLog
from tests.csp_watch import CspWatch, poll_from_outside

IN_CI = bool(os.environ.get("CI"))

# No time limit on a single Hypothesis example: the suite runs in parallel on a shared
# machine, where an example that takes 0.2 ms alone can take 280 ms while the other workers
# start servers (CI saw DeadlineExceeded, then "Unreliable test timings").  Whether an
# example passes must not depend on the load; the tests' own settings still apply.
settings.register_profile("alley-poker-suite", deadline=None)
settings.load_profile("alley-poker-suite")


def built_centre(service: Any = None, *, database_url: str = "sqlite://", pin: str | None = None,
                centre_id: str = "default", lanes: int = 200, time_zone: str | None = None,
                role: Role = Role.ONE_BOX, **sections: Any) -> Centre:
    """A centre built as the house builds one (:func:`alley_poker.centre.build_centre`),
    around ``service`` when the test opened its ledger first (seeded deals, matches already
    made).  ``sections`` are alley.toml's, e.g. ``night={"close": "11:59"}``; the live odds
    are off unless ``odds`` turns them on; ``lanes`` defaults to the most a centre may have."""
    if service is not None:
        database_url = service.repository.store.engine.url.render_as_string(hide_password=False)
    sections.setdefault("odds", {"enabled": False})
    sections.setdefault("backup", {"enabled": False})
    config = AlleyConfig.model_validate({
        "centre": {"id": centre_id, "name": "Test Lanes", "lanes": lanes,
                   "time_zone": time_zone},
        "database": {"url": database_url},
        "commissioner": {"pin_hash": pin_hash_for_tests(pin)} if pin else {},
        **sections})
    return build_centre(config, role, service=service)


@functools.cache
def pin_hash_for_tests(pin: str) -> str:
    """``pin``'s scrypt hash for a test's centre, made once a process and at a 32nd of the
    product's work factor: the product's (``hash_pin``, 2^15) costs 0.11 s of CPU to make
    and as much to check, and some 700 test centres and 300 sign-ins paid it (about 5 % of
    the suite's CPU).  The sign-in checks it as it checks any scrypt hash; the product's own
    hashing is tested by ``alley_poker.config`` and ``set-pin``/``init``'s tests."""
    return generate_password_hash(pin, method="scrypt:1024:8:1")


def centre_app(service: Any = None, *, testing: bool = False, secret_key: str | None = None,
               **settings: Any):
    """The web app of a :func:`built_centre` built from ``settings`` (its centre:
    ``alley_poker.web.centre_access.centre_of(app)``); ``testing`` and ``secret_key`` are
    Flask's own."""
    flask = {"TESTING": True} if testing else {}
    if secret_key is not None:
        flask["SECRET_KEY"] = secret_key
    return create_app(built_centre(service, **settings), flask)


def skip_or_fail(reason: str) -> None:
    """Skip the current test because ``reason``; fail instead when running under CI."""
    if IN_CI:
        pytest.fail(f"required by CI but unavailable: {reason}", pytrace=False)
    pytest.skip(reason)


class SocatPtyPair:
    """Two linked ptys, ``writer_path`` and ``reader_path``; ``unplug()`` kills socat with
    SIGKILL (the cable is gone), ``plug()`` starts it again on the same paths."""

    def __init__(self, directory: Path):
        self.writer_path = str(directory / "scorer-tty")
        self.reader_path = str(directory / "alley-tty")
        self.process: subprocess.Popen[bytes] | None = None

    def plug(self) -> None:
        for path in (self.writer_path, self.reader_path):
            if os.path.lexists(path):
                os.unlink(path)  # stale links from a socat killed with SIGKILL
        self.process = subprocess.Popen(
            ["socat", f"pty,raw,echo=0,link={self.writer_path}",
             f"pty,raw,echo=0,link={self.reader_path}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not (os.path.exists(self.writer_path) and os.path.exists(self.reader_path)):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("socat did not create the pty pair")
            time.sleep(0.01)

    def unplug(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
        self.process = None


@pytest.fixture
def pty_pair(tmp_path: Path):
    if shutil.which("socat") is None:
        skip_or_fail("socat is not installed (scripts/install-system-deps installs it)")
    pair = SocatPtyPair(tmp_path)
    pair.plug()
    yield pair
    pair.unplug()


def serve_output_until_serving(process: subprocess.Popen) -> str:
    """What ``alley-poker serve`` (its stdout, stderr merged in) printed up to its "press
    Ctrl-C" line, or until it ended without serving."""
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "press Ctrl-C" in line:
            break
    return "".join(lines)


def stop_serving(process: subprocess.Popen, timeout: float) -> str | None:
    """SIGTERM to ``process`` (a served centre: it hands over and stops), SIGKILL if it has not
    ended within ``timeout`` seconds; the rest of its stdout pipe (None without one)."""
    process.send_signal(signal.SIGTERM)
    try:
        rest, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        rest, _ = process.communicate()
    return rest


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class Chromium:
    """One headless Chromium for the whole test process (each xdist worker has its own),
    launched when a test first asks for it and launched again should it have died."""

    def __init__(self, playwright) -> None:
        self.playwright = playwright
        self.running = None
        #: Every page's Content-Security-Policy violations (tests/csp_watch.py).
        self.csp = CspWatch()

    def browser(self):
        if self.running is None or not self.running.is_connected():
            self.running = self.playwright.chromium.launch(executable_path=CHROMIUM,
                                                           args=CHROMIUM_ARGS)
            self.csp.attach(self.running)
            _no_service_worker_on_new_pages(self.running)
        return self.running

    def fail_on_csp_violations(self) -> None:
        """A page broke the app's Content-Security-Policy: something it needs was blocked."""
        seen = self.csp.take()
        if seen:
            pytest.fail("the page broke its Content-Security-Policy (web.security_headers):\n"
                        + "\n".join(seen), pytrace=False)


def _no_service_worker_on_new_pages(browser) -> None:
    """A page opened with ``browser.new_page`` runs without the app's service worker: its
    install fetches and keeps every file of the screen again, a quarter of a kiosk's load in
    Chromium's CPU, for a test that never goes offline.  The tests of the offline screens
    (test_kiosk_offline.py, test_kiosk_hung_server.py) open contexts of their own
    (``browser.new_context``), where it runs as on a lane's screen."""
    open_page = browser.new_page

    def new_page(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("service_workers", "block")
        return open_page(*args, **kwargs)

    browser.new_page = new_page


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    if shutil.which("chromium") is None:
        skip_or_fail("chromium is not installed (scripts/install-system-deps installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("the playwright package is not installed (pip install -e .[test])")
    poll_from_outside()  # the policy forbids the eval Playwright polls with (csp_watch)
    with sync_playwright() as playwright:
        shared = Chromium(playwright)
        yield shared
        if shared.running is not None and shared.running.is_connected():
            shared.running.close()


@pytest.fixture(scope="module")
def module_browser(chromium: Chromium):
    """The process's Chromium for a module whose tests share pages or a server; the contexts
    the module opened are closed after its last test (which fails should any page of the
    module have broken the Content-Security-Policy)."""
    running = chromium.browser()
    before = set(running.contexts)
    chromium.csp.take()
    yield running
    for context in running.contexts:
        if context not in before:
            context.close()
    chromium.fail_on_csp_violations()


@pytest.fixture
def browser(chromium: Chromium):
    """The process's Chromium; every context (and page) a test opens in it is closed after
    the test, so no cookie, storage or open socket of one test reaches the next.  The test
    fails should a page have broken the Content-Security-Policy (tests/csp_watch.py)."""
    running = chromium.browser()
    chromium.csp.take()
    yield running
    for context in list(running.contexts):
        context.close()
    chromium.fail_on_csp_violations()


#: Fixtures that open a real Chromium: a test that takes one is in the slow tier.
_BROWSER_FIXTURES = {"chromium", "browser", "module_browser"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """Every test that drives a real Chromium is ``browser`` and ``slow``: the quick tier
    (``-m "not slow and not bench"``, docs/performance.md "The suite") answers in minutes
    without the pages, the whole suite and CI run them all.  Tried first, so that ``-m``
    selects by these marks and the order below sees them."""
    # The long tests are dealt out as they were marked before the browser tests joined the
    # slow tier: a browser test takes seconds, not minutes, and a hundred of them at the
    # front of every worker's run crowd the two cores with Chromium at once.
    long = [item for item in items if item.get_closest_marker("slow")
            or item.get_closest_marker("bench")]
    for item in items:
        if _BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
    _deal_out_long_tests(items, long)


def _deal_out_long_tests(items, long) -> None:
    """Under pytest-xdist, start each worker on its share of the long tests.

    ``--dist worksteal`` first hands worker ``i`` the ``i``-th of equal runs of the collected
    list, then moves queued tests from a busy worker to an idle one.  The long tests
    (``slow``, ``bench``: a few dozen of some 1,500, half the suite's time) are dealt out in
    turn to the front of those runs, so they run side by side from the start instead of
    queueing behind each other on one worker at the end.  Every worker collects the same
    list and orders it the same way, as xdist requires.
    """
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
    if workers < 2:
        return
    if not long:
        return
    chosen = set(long)
    short = [item for item in items if item not in chosen]
    runs: list[list] = [[] for _ in range(workers)]
    for unit in _kept_together(long):
        min(runs, key=len).extend(unit)
    left = len(items)
    for number, run in enumerate(runs):
        size = left // (workers - number)  # worksteal's first split: pending // nodes left
        left -= size
        take = max(0, size - len(run))
        run.extend(short[:take])
        del short[:take]
    items[:] = [item for run in runs for item in run] + short


_CPU_LOG = (CpuLog(os.environ["ALLEY_POKER_TEST_CPU_LOG"])
            if os.environ.get("ALLEY_POKER_TEST_CPU_LOG") else None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With ALLEY_POKER_TEST_CPU_LOG set, each test's CPU (tests/cpu_account.py)."""
    done = _CPU_LOG.measure(item.nodeid) if _CPU_LOG is not None else None
    yield
    if done is not None:
        done()


def _kept_together(long) -> list[list]:
    """The long tests in units a worker runs whole: all of a module's when they share a
    module-scoped fixture (a demo night, a clean venv, a served centre), so it is made once,
    not once on each worker its tests were dealt to (ci2: the side-games demo night was
    bowled four times, 140 s of CPU); any other long test alone."""
    units: dict[str, list] = {}
    for item in long:
        shares = any(definitions and definitions[-1].scope in ("module", "package", "class")
                     for definitions in item._fixtureinfo.name2fixturedefs.values())
        units.setdefault(item.module.__name__ if shares else item.nodeid, []).append(item)
    return list(units.values())


#: Figures tests measured for a person to read (restart times, takeover times), shown together
#: at the end of the run: pytest keeps a passing test's own output to itself.  A test hands
#: them on in its report's ``user_properties``, which pytest-xdist carries from the worker
#: that ran the test to the process that prints the summary.
_REPORTED: list[str] = []
FIGURES = "measured figures"


@pytest.fixture
def report(request) -> Callable[[str], None]:
    """``report(text)``: print ``text`` and show it again in the run's closing summary."""

    def add(text: str) -> None:
        print(text)
        request.node.user_properties.append((FIGURES, text))

    return add


def pytest_runtest_logreport(report) -> None:
    if report.when != "teardown":
        return
    for name, text in report.user_properties:
        if name == FIGURES:
            _REPORTED.extend(f"{report.nodeid}: {line}" if index == 0 else f"    {line}"
                             for index, line in enumerate(text.strip().splitlines()))


def pytest_terminal_summary(terminalreporter) -> None:
    if _REPORTED:
        terminalreporter.section("figures measured by the tests")
        for line in _REPORTED:
            terminalreporter.write_line(line)
