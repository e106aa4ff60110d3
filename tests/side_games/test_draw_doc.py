"""docs/league.md's bracket draw, written again from the page alone (hashlib, hmac and the
page's words; the fair deal's stream as tests/test_fairness_doc.py reads fairness.md), gives
the page's test vectors, and so does our draw: a verifier (the /verify page's JavaScript, a
league's own script) can be written from the page."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

from alley_poker.fairness.deal import Drbg
from alley_poker.side_games.draw import draw_brackets
from tests.test_fairness_doc import PageStream, field

DOC = Path(__file__).resolve().parents[2] / "docs" / "league.md"


def vectors() -> list[dict[str, str]]:
    blocks = re.findall(r"```bracket-vector\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2, "docs/league.md should carry two bracket-vector blocks"
    return [dict(line.split(": ", 1) for line in block.strip().splitlines())
            for block in blocks]


def counts(text: str) -> dict[int, int]:
    return {} if text == "none" else {
        int(bowler): int(count) for bowler, count in
        (pair.split("=") for pair in text.split())}


def page_draw(seed: bytes, salt: str, place: int, entries: dict[int, int], sevens: bool):
    key = hmac.new(seed, field("alley-poker/fair-deal/v1") + field(salt),
                   hashlib.sha256).digest()
    stream = PageStream(key, "bracket-draw", place)

    def shuffle(items):
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = stream.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    smallest = 7 if sevens else 8
    best, best_placed = 0, 0
    for n in range(1, sum(entries.values()) // smallest + 1):
        can = sum(min(k, n) for k in entries.values())
        if can >= smallest * n and min(can, 8 * n) > best_placed:
            best, best_placed = n, min(can, 8 * n)
    n = best
    unplaced = {b: k - n for b, k in entries.items() if k > n}
    listed = [b for b in shuffle(sorted(entries)) for _ in range(min(entries[b], n))]
    while len(listed) > 8 * n:
        out = listed.pop(stream.below(len(listed)))
        unplaced[out] = unplaced.get(out, 0) + 1

    def pairings(free):
        if not free:
            yield []
            return
        for partner in free[1:]:
            rest = [seat for seat in free[1:] if seat != partner]
            for tail in pairings(rest):
                yield [(free[0], partner), *tail]

    met, brackets = set(), []
    for number in range(n):
        bowlers = [b for j, b in enumerate(listed) if j % n == number]
        seats = shuffle(sorted(bowlers)) + ["bye"] * (8 - len(bowlers))
        options = []
        for pairing in pairings(list(range(8))):
            pairs = [(seats[a], seats[b]) for a, b in pairing]
            repeats = sum(frozenset(p) in met for p in pairs if "bye" not in p)
            options.append((repeats, pairs))
        fewest = min(r for r, _ in options)
        kept = [pairs for r, pairs in options if r == fewest]
        chosen = kept[stream.below(len(kept))]
        met |= {frozenset(p) for p in chosen if "bye" not in p}
        brackets.append([seat for pair in chosen for seat in pair])
    return brackets, {b: k for b, k in sorted(unplaced.items()) if k}


def test_the_page_alone_and_our_draw_give_the_pages_vectors():
    for vector in vectors():
        seed, salt = bytes.fromhex(vector["seed"]), vector["salt"]
        place, sevens = int(vector["place"]), vector["seven-bowler brackets"] == "yes"
        entries = counts(vector["entries"])
        expected = [vector[key].split() for key in sorted(vector) if key.startswith("bracket ")]
        brackets, unplaced = page_draw(seed, salt, place, entries, sevens)
        assert [[str(seat) for seat in bracket] for bracket in brackets] == expected
        assert unplaced == counts(vector["unplaced"])
        ours = draw_brackets(entries, seven_bowler_brackets=sevens,
                             stream=Drbg(seed, salt).stream("bracket-draw", place))
        assert [["bye" if seat is None else str(seat) for seat in b.slots]
                for b in ours.brackets] == expected
        assert ours.unplaced == counts(vector["unplaced"])
