"""Shared test fixtures.

External parts (PostgreSQL, Redis, socat, Chromium) are used for real.  Where one is missing a
test skips with the reason, except under CI (``CI`` set), where a missing part is a failure:
CI must never go green by skipping.
"""

from __future__ import annotations

import os

import pytest

IN_CI = bool(os.environ.get("CI"))


def skip_or_fail(reason: str) -> None:
    """Skip the current test because ``reason``; fail instead when running under CI."""
    if IN_CI:
        pytest.fail(f"required by CI but unavailable: {reason}", pytrace=False)
    pytest.skip(reason)
