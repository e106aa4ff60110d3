"""docs/fairness.md's test vectors, recomputed by an implementation written from the page
(hashlib and hmac only; nothing of alley_poker's DRBG), and by our own code."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
from pathlib import Path

from alley_poker.cards import FULL_DECK
from alley_poker.fairness.chain import GENESIS, link_hash
from alley_poker.fairness.deal import Drbg, commitment

DOC = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


def doc_vectors() -> dict[str, str]:
    blocks = re.findall(r"```vector\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2, "docs/fairness.md should carry two vector blocks"
    found = {}
    for block in blocks:
        for line in block.strip().splitlines():
            name, _, value = line.partition(": ")
            found[name] = value
    return found


def field(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">I", len(data)) + data


class PageStream:
    """Section 3 and 4 of the page, as a reader would write them."""

    def __init__(self, key: bytes, label: str, seq: int):
        self.key, self.domain = key, field(label) + struct.pack(">Q", seq)
        self.data, self.block = b"", 0

    def word(self) -> int:
        if len(self.data) < 4:
            self.data += hmac.new(self.key, self.domain + struct.pack(">Q", self.block),
                                  hashlib.sha256).digest()
            self.block += 1
        word, self.data = struct.unpack(">I", self.data[:4])[0], self.data[4:]
        return word

    def below(self, n: int) -> int:
        limit = 2**32 - 2**32 % n
        while (x := self.word()) >= limit:
            pass
        return x % n


def test_the_page_alone_reproduces_its_vectors():
    v = doc_vectors()
    seed = bytes.fromhex(v["seed"])
    assert hashlib.sha256(seed).hexdigest() == v["commitment"]
    key = hmac.new(seed, field("alley-poker/fair-deal/v1") + field(v["salt"]),
                   hashlib.sha256).digest()
    assert key.hex() == v["key"]
    block = hmac.new(key, field("deck") + struct.pack(">Q", 5) + struct.pack(">Q", 0),
                     hashlib.sha256).hexdigest()
    assert block == v["deck stream at seq 5, block 0"]
    stream = PageStream(key, "deck", 5)
    assert [stream.below(n) for n in (54, 53, 52, 51, 50)] == [
        int(x) for x in v["deck stream at seq 5, first draws below 54, 53, 52, 51, 50"].split()]
    deck = sorted((str(card) for card in FULL_DECK), key=lambda card: card.encode("utf-8"))
    stream = PageStream(key, "deck", 5)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    assert deck == v["first deck (match_started at seq 5, top first)"].split()
    record = v["record"].encode("utf-8")
    assert hashlib.sha256(bytes(32) + record).hexdigest() == v["hash after genesis"]


def test_our_code_agrees_with_the_page():
    v = doc_vectors()
    seed = bytes.fromhex(v["seed"])
    assert commitment(seed) == v["commitment"]
    drbg = Drbg(seed, v["salt"])
    assert drbg.key.hex() == v["key"]
    shuffled = drbg.stream("deck", 5).shuffled([str(card) for card in reversed(FULL_DECK)])
    assert shuffled == v["first deck (match_started at seq 5, top first)"].split()
    assert link_hash(GENESIS, json.loads(v["record"])) == v["hash after genesis"]


def test_a_changed_vector_would_be_caught():
    v = doc_vectors()
    deck = [str(card) for card in FULL_DECK]
    first = v["first deck (match_started at seq 5, top first)"].split()
    other = bytes.fromhex(v["seed"])[::-1]
    assert Drbg(other, v["salt"]).stream("deck", 5).shuffled(deck) != first
    assert Drbg(bytes.fromhex(v["seed"]), v["salt"]).stream("deck", 6).shuffled(deck) != first
