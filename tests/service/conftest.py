"""Fixtures for the service: a real event store on SQLite and on PostgreSQL.

Every test that takes ``store_url`` or ``store_service`` runs once per back-end (PostgreSQL
in a fresh schema of its own; see tests/store/conftest.py).  The socat pty pair is in
tests/conftest.py.
"""

from __future__ import annotations

import random

import pytest

from alley_poker.service import open_service
from tests.store.conftest import (  # noqa: F401  (fixtures shared with the store tests)
    new_postgresql_url,
    new_sqlite_url,
    postgres_admin_engine,
    postgresql_url,
    sqlite_url,
    store_url,
)


@pytest.fixture
def store_service(store_url):  # noqa: F811  (the imported fixture, by name)
    """An AlleyService over a real event store (each back-end in turn), seeded shuffles."""
    seeds = random.Random(2026)
    service = open_service(store_url, rng_factory=lambda: random.Random(seeds.random()))
    yield service
    service.repository.store.close()
