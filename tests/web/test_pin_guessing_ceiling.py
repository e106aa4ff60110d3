"""PIN guessing from many addresses ends at a centre-wide ceiling (issue 38, point 5).

The probe, against ``alley-poker serve`` on gunicorn: 20 addresses (127.0.0.2 .. 127.0.0.21)
each make 30 wrong-PIN guesses, every guess with fresh cookies (so the per-device staircase
never holds them).  Before, each address met only its own cap of 30, so all 600 guesses were
checked against the PIN.  Now at most the centre-wide ceiling (``[sign_in] centre_wide``'s
first tier, 50) are; the rest are 429 unheard.  The desk's tablet, which signed in before
the attack (its cookies kept), still signs in during it, from one of the attacked addresses;
a new tablet is told the centre is being guessed at and when to try again; /metrics counts it.
"""

from __future__ import annotations

import concurrent.futures
import re
import time
from pathlib import Path

import pytest
from limits import parse_many

from alley_poker.config import SignInConfig
from benchmarks._service_process import BENCH_PIN
from tests.web.from_address import BrowserAt, serving

pytestmark = pytest.mark.slow

GUESSERS = [f"127.0.0.{n}" for n in range(2, 22)]
GUESSES_PER_ADDRESS = 30
CEILING = parse_many(SignInConfig().centre_wide)[0].amount
WRONG = "000000"


@pytest.fixture
def served(tmp_path: Path):
    yield from serving(tmp_path, lanes=4)


def guess_from(address: str, base_url: str) -> list[int]:
    """``GUESSES_PER_ADDRESS`` wrong PINs from ``address``, fresh cookies each: statuses."""
    guesser = BrowserAt(address, base_url)
    statuses = []
    for _ in range(GUESSES_PER_ADDRESS):
        guesser.forget()
        statuses.append(guesser.sign_in(WRONG)[0])
    return statuses


def failures_in_metrics(base_url: str) -> dict[str, float]:
    status, _headers, text = BrowserAt("127.0.0.1", base_url).request("GET", "/metrics")
    assert status == 200
    return {found.group(1): float(found.group(2)) for found in re.finditer(
        r'^alley_sign_in_failures_total\{refused_by="(\w+)"\} (\S+)$', text, re.MULTILINE)}


def test_600_guesses_from_20_addresses_end_at_the_centre_wide_ceiling(served, report):
    base = served.base_url
    desk = BrowserAt(GUESSERS[0], base)  # the desk shares the Wi-Fi address of a guesser
    assert desk.sign_in(BENCH_PIN)[0] == 302  # before the attack: now a known tablet
    desk.cookies = {"alley_device": desk.cookies["alley_device"]}  # session gone, device kept

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(GUESSERS)) as pool:
        per_address = list(pool.map(lambda address: guess_from(address, base), GUESSERS))
    took = time.monotonic() - started
    statuses = [status for each in per_address for status in each]
    checked = statuses.count(401)  # heard and compared with the PIN
    report(f"PIN guessing: {len(statuses)} guesses from {len(GUESSERS)} addresses in "
           f"{took:.0f} s: {checked} checked against the PIN (ceiling {CEILING}), "
           f"{statuses.count(429)} refused unheard (429)")
    assert len(statuses) == len(GUESSERS) * GUESSES_PER_ADDRESS
    assert set(statuses) <= {401, 429}, sorted(set(statuses))
    assert 0 < checked <= CEILING

    # The desk's tablet still signs in, from an attacked address, during the attack.
    status, page = desk.sign_in(BENCH_PIN)
    assert status == 302, page
    # A new tablet is told why it waits, until when, and what works meanwhile.
    newcomer = BrowserAt("127.0.0.30", base)
    status, page = newcomer.sign_in(BENCH_PIN)
    assert status == 429
    assert "someone may be guessing the PIN" in page
    assert "A tablet that has signed in here before can sign in now" in page

    failures = failures_in_metrics(base)
    assert failures.get("pin") == checked, failures
    assert failures.get("centre", 0) >= 1 and failures.get("address", 0) >= 0, failures
    assert sum(failures.values()) == len(statuses) + 1, failures  # + the new tablet's
