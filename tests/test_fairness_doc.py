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
from alley_poker.ledger.events import EVENT_KEYS, OPTIONAL_KEYS
from alley_poker.ledger.inputs import INPUT_EVENTS

DOC = Path(__file__).resolve().parents[1] / "docs" / "fairness.md"


def doc_vectors() -> dict[str, str]:
    blocks = re.findall(r"```vector\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 4, "docs/fairness.md should carry four vector blocks"
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


def page_key(v: dict[str, str]) -> bytes:
    return hmac.new(bytes.fromhex(v["seed"]), field("alley-poker/fair-deal/v1") + field(v["salt"]),
                    hashlib.sha256).digest()


def test_the_page_alone_reproduces_its_courtesy_draw():
    v = doc_vectors()
    hands = {name: cards.split(",") for name, _, cards in
             (entry.partition("=") for entry in v["courtesy hands"].split())}
    drawer, seq = v["courtesy drawer"], int(v["courtesy at seq"])
    most = max(len(cards) for cards in hands.values())
    candidates = sorted((b for b in hands if b != drawer and len(hands[b]) == most),
                        key=lambda name: name.encode("utf-8"))
    stream = PageStream(page_key(v), "courtesy", seq)
    words = []
    if len(candidates) == 1:
        victim = candidates[0]
    else:
        words.append(stream.below(len(candidates)))
        victim = candidates[words[-1]]
    cards = sorted(hands[victim], key=lambda card: card.encode("utf-8"))
    words.append(stream.below(len(cards)))
    assert " ".join(map(str, words)) == v["courtesy draws below 2, 3"]
    assert f"{victim} {cards[words[-1]]}" == v["courtesy victim and card"]
    ours = Drbg(bytes.fromhex(v["seed"]), v["salt"]).stream("courtesy", seq)
    assert ours.pick(candidates) == victim


def page_undo_order(pile: list[str], drew: list[str]) -> list[str] | None:
    """Section 5.4 as a reader would write it: None when no re-ordering is emitted."""
    wanted = [card for card in dict.fromkeys(drew) if card in pile]
    if not wanted or pile[:len(wanted)] == wanted:
        return None
    return wanted + [card for card in pile if card not in wanted]


def test_the_page_alone_reproduces_its_undo_reordering():
    v = doc_vectors()
    drew = v["undo later action drew"].split()
    assert page_undo_order(v["undo pile"].split(), drew) == v["undo order"].split()
    assert v["undo order then"] == "none"
    assert page_undo_order(v["undo pile already in place"].split(), drew) is None


def test_every_undo_reordering_the_ledger_made_follows_the_page():
    """Matches played through the ledger (tests/fairness_corpus.py): each undo re-ordering is
    the page's order for one of the later actions (re-execution checks which one)."""
    from alley_poker.ledger import MatchState, event_from_record
    from tests.fairness_corpus import varied_exports

    checked = 0
    for export in varied_exports(8, seed=4):
        events = [event_from_record(record) for record in export["events"]]
        state = MatchState.empty(export["match_id"])
        for event in events:
            if event.type == "pile_shuffled" and event["why"].startswith("undo:"):
                undo = events[event["action"] - 1]
                assert undo.type == "action_undone"
                later: dict[int, list[str]] = {}
                for earlier in events[undo["undone_to"]:undo.seq - 1]:
                    drawn = later.setdefault(earlier["action"], [])
                    if earlier.type == "card_drawn":
                        drawn.append(earlier["card"])
                assert event["order"] in [page_undo_order(list(state.pile), drew)
                                          for drew in later.values()]
                checked += 1
            state.apply(event)
    assert checked


def doc_table(marker: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    after = text.split(f"<!-- {marker}:", 1)[1].split("\n", 1)[1]
    rows = []
    for line in after.splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def names(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


def test_the_pages_event_keys_are_the_ledgers():
    rows = doc_table("event-keys")
    assert {names(row[0]).pop(): names(row[1]) for row in rows} == {
        kind: set(keys) for kind, keys in EVENT_KEYS.items()}
    assert {names(row[0]).pop(): names(row[2]) for row in rows if names(row[2])} == {
        kind: set(keys) for kind, keys in OPTIONAL_KEYS.items()}


def test_the_pages_input_events_are_the_ledgers():
    rows = doc_table("input-events")
    assert {names(row[0]).pop(): names(row[1]).pop() for row in rows} == INPUT_EVENTS
