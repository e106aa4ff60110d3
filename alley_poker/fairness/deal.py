"""The fair deal: an HMAC-SHA256 DRBG keyed by a match's seed, integer draws, the shuffle.

A match's server seed is 32 random bytes; its *commitment* is the hex SHA-256 of the seed,
published before the first card.  The DRBG key binds the seed to the match's public *salt*;
every random use (the first deck, each reshuffle, each courtesy draw) reads its own stream,
separated by the use's label and the seq of the event it produces.  ``docs/fairness.md`` is
the byte-level specification; the examples below are its test vector.

>>> seed = bytes(range(32))
>>> commitment(seed)
'630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd'
>>> drbg = Drbg(seed, "m1/2026-03-06")
>>> drbg.stream("deck", 4).shuffled(["AS", "KS", "QS", "JS"])
['QS', 'AS', 'JS', 'KS']
>>> drbg.stream("deck", 4).shuffled(["JS", "QS", "KS", "AS"])  # the input order never matters
['QS', 'AS', 'JS', 'KS']
>>> stream = drbg.stream("courtesy", 9)
>>> [stream.below(6) for _ in range(5)]
[2, 1, 5, 3, 0]
>>> verify_seed(seed, "0" * 64)
False
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import struct
from collections.abc import Sequence

#: Names this version of the scheme in the ``deal_committed`` event and the export.
SCHEME = "alley-poker/fair-deal/v1"

SEED_BYTES = 32

#: The uses of randomness, each with its own stream per event ("bracket-draw": a league
#: night's brackets, alley_poker/side_games/draw.py).
USES = ("deck", "reshuffle", "courtesy", "bracket-draw")

_UINT32 = 1 << 32


def new_seed() -> bytes:
    """A fresh 256-bit server seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: its SHA-256, lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def verify_seed(seed: bytes, committed: str) -> bool:
    """True when ``seed`` is the one ``committed`` (a hex SHA-256) promised."""
    return hmac.compare_digest(commitment(seed), committed.lower())


def salt_for(match_id: str, date: str) -> str:
    """The default public salt: the match id and the UTC date it was created.

    >>> salt_for("m1", "2026-03-06")
    'm1/2026-03-06'
    """
    return f"{match_id}/{date}"


def card_order_key(card: str) -> bytes:
    """The canonical order of cards (and names) before a shuffle or pick: UTF-8 bytes.

    >>> sorted(["JOKER-A", "AS", "2C", "TD"], key=card_order_key)
    ['2C', 'AS', 'JOKER-A', 'TD']
    """
    return card.encode("utf-8")


def _field(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


class Drbg:
    """HMAC-SHA256 in counter mode, keyed by ``HMAC-SHA256(seed, field(SCHEME) ‖ field(salt))``."""

    def __init__(self, seed: bytes, salt: str) -> None:
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes")
        self.key = hmac.new(seed, _field(SCHEME) + _field(salt), hashlib.sha256).digest()

    def stream(self, use: str, seq: int) -> DrawStream:
        """The stream for one random use: ``use`` (see :data:`USES`) by the event at ``seq``."""
        if use not in USES:
            raise ValueError(f"unknown random use {use!r}")
        return DrawStream(self.key, _field(use) + struct.pack(">Q", seq))


class DrawStream:
    """Bytes ``HMAC(key, domain ‖ uint64be(0)) ‖ HMAC(key, domain ‖ uint64be(1)) ‖ …``."""

    def __init__(self, key: bytes, domain: bytes) -> None:
        self._key = key
        self._domain = domain
        self._block = 0
        self._buffer = b""

    def _uint32(self) -> int:
        if len(self._buffer) < 4:
            self._buffer += hmac.new(self._key, self._domain + struct.pack(">Q", self._block),
                                     hashlib.sha256).digest()
            self._block += 1
        value, self._buffer = int.from_bytes(self._buffer[:4], "big"), self._buffer[4:]
        return value

    def below(self, n: int) -> int:
        """An integer in ``[0, n)`` without modulo bias: 32-bit words at or above the largest
        multiple of ``n`` are rejected and the next word read."""
        if not 1 <= n <= _UINT32:
            raise ValueError(f"cannot draw below {n}")
        limit = _UINT32 - _UINT32 % n
        while True:
            value = self._uint32()
            if value < limit:
                return value % n

    def shuffled(self, cards: Sequence[str]) -> list[str]:
        """Fisher-Yates over the cards in canonical order, from the last position down."""
        order = sorted(cards, key=card_order_key)
        for i in range(len(order) - 1, 0, -1):
            j = self.below(i + 1)
            order[i], order[j] = order[j], order[i]
        return order

    def pick(self, items: Sequence[str]) -> str:
        """One of ``items``, taken in canonical order."""
        return sorted(items, key=card_order_key)[self.below(len(items))]


class SeededDeal:
    """The production source of a fair match: its secret seed (and the commitment to it)."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a seed is {SEED_BYTES} bytes")
        self.seed = seed
        self.commitment = commitment(seed)

    def stream(self, salt: str, use: str, seq: int) -> DrawStream:
        return Drbg(self.seed, salt).stream(use, seq)


class RandomForTests:
    """An explicit, test-only source: a seeded ``random.Random`` (scenarios, seeded tests).

    A match dealt from it carries no commitment and can never be verified.  It deals in the
    order the cards are given, exactly as the ledger did before fair dealing, so seeded
    tests and scenario outcomes keep their cards.
    """

    commitment = None

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def stream(self, salt: str | None, use: str, seq: int) -> _RandomStream:
        return _RandomStream(self.rng)


class _RandomStream:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def below(self, n: int) -> int:
        return self.rng.randrange(n)

    def shuffled(self, cards: Sequence[str]) -> list[str]:
        order = list(cards)
        self.rng.shuffle(order)
        return order

    def pick(self, items: Sequence[str]) -> str:
        return self.rng.choice(list(items))
