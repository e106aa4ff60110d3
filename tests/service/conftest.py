"""Fixtures for the service: a real store on SQLite (the socat pty pair is in tests/)."""

from __future__ import annotations

import random

import pytest

from alley_poker.service import open_service


@pytest.fixture
def store_service(tmp_path):
    """An AlleyService over a real SQLite event store in ``tmp_path`` (seeded shuffles)."""
    seeds = random.Random(2026)
    service = open_service(f"sqlite:///{tmp_path / 'alley.sqlite3'}",
                           rng_factory=lambda: random.Random(seeds.random()))
    yield service
    service.repository.store.close()
