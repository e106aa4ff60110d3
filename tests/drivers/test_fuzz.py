"""Fuzzing the dialects: whatever arrives, parse() returns events or raises its own
FeedLineRejected — never anything else.  Default tier: a few thousand lines; the slow tier:
more than 100,000."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.base import FeedLineRejected, LaneEvent
from drivers.dialects import make_dialect
from drivers.dialects.apf1 import frame_line

RECORD_TYPES = ["HELLO", "HB", "OPEN", "BALL", "CORR", "VOID", "END", "WRONG", "SNAP", "XYZ"]
small_numbers = st.integers(min_value=0, max_value=12).map(str)
field = st.one_of(
    small_numbers,
    st.sampled_from(["-", "", "F", "G", "S", "FG", "SS", "7.10", "1.2.3", "10.10", "0",
                     "X 7/ 9- S8/ G7", "XXX", "1=ANN;2=BOB", "1=", "boot-1", "99999999999"]),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
)


@st.composite
def apf1_like_lines(draw) -> bytes:
    """Lines with valid framing and checksum but arbitrary content, so the record parsers are
    exercised, not just the checksum check."""
    seq = draw(st.integers(min_value=-1, max_value=40))
    kind = draw(st.sampled_from(RECORD_TYPES))
    fields = draw(st.lists(field, max_size=10))
    body = ",".join(["APF1", str(seq), kind, *fields])
    try:
        line = frame_line(body)
    except UnicodeEncodeError:
        line = b"$" + body.encode("utf-8", "replace")
    if draw(st.booleans()):
        return line
    # Damage it as a line does in transit: cut it, flip a byte, or splice bytes in.
    position = draw(st.integers(min_value=0, max_value=max(0, len(line) - 1)))
    damage = draw(st.sampled_from(["cut", "flip", "splice"]))
    if damage == "cut":
        return line[:position]
    if damage == "flip":
        return line[:position] + bytes([line[position] ^ 0x20]) + line[position + 1:]
    return line[:position] + draw(st.binary(max_size=8)) + line[position:]


sheet_symbols = st.sampled_from(["X", "/", "-", "G", "F", "S8", "(7)", " ", "9", "5", "0"])
scoresheet_like = st.builds(
    lambda lane, slot, game, symbols: f"{lane} {slot} ANN {game} : {''.join(symbols)}".encode(),
    st.integers(0, 1000), st.integers(0, 100), st.integers(0, 100),
    st.lists(sheet_symbols, max_size=40))
any_line = st.one_of(apf1_like_lines(), scoresheet_like, st.binary(max_size=300),
                     st.text(max_size=80).map(lambda text: text.encode("utf-8")))


class Tally:
    lines = 0


def feed_lines(dialect_name: str, lines: list[bytes]) -> None:
    dialect = make_dialect(dialect_name, source="fuzz")
    for line in lines:
        Tally.lines += 1
        try:
            events = dialect.parse(line)
        except FeedLineRejected as refused:
            assert refused.raw == line
            assert refused.reason
            continue
        assert all(isinstance(event, LaneEvent) for event in events)


DIALECTS = ["apf1", "scoresheet", "pinsetter-csv"]


@pytest.mark.slow
@pytest.mark.parametrize("dialect_name", DIALECTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(any_line, min_size=5, max_size=12))
def test_parsers_never_raise_anything_but_their_rejection(dialect_name, lines):
    feed_lines(dialect_name, lines)


#: Generated lines per dialect in the slow tier: the reference protocol's parser gets the
#: 100,000 the issue asks for; the others enough to matter without doubling the suite's time.
SLOW_TIER_LINES = {"apf1": 100_000, "scoresheet": 30_000, "pinsetter-csv": 10_000}
FIELDS = ["-", "", "F", "G", "S", "FG", "SS", "7.10", "1.2.3", "10.10", "0",
          "X 7/ 9- S8/ G7", "XXX", "1=ANN;2=BOB", "1=", "boot-1", "99999999999"]
SHEET_SYMBOLS = ["X", "/", "-", "G", "F", "S8", "(7)", " ", "9", "5", "0"]


def random_line(rng: random.Random) -> bytes:
    """One line of the same families as ``any_line``, drawn from a seeded ``Random``.

    For volume: Hypothesis spends ~0.6 ms drawing each line (a minute for apf1's 100,000,
    while parsing them takes about a second); the property tests above keep its shrinking."""
    family = rng.randrange(4)
    if family == 0:
        body = ",".join(["APF1", str(rng.randint(-1, 40)), rng.choice(RECORD_TYPES),
                         *(random_field(rng) for _ in range(rng.randint(0, 10)))])
        try:
            line = frame_line(body)
        except UnicodeEncodeError:
            line = b"$" + body.encode("utf-8", "replace")
        if rng.random() < 0.5:
            return line
        position = rng.randrange(max(1, len(line)))
        damage = rng.choice(["cut", "flip", "splice"])
        if damage == "cut":
            return line[:position]
        if damage == "flip" and line:
            return line[:position] + bytes([line[position] ^ 0x20]) + line[position + 1:]
        return line[:position] + rng.randbytes(rng.randint(0, 8)) + line[position:]
    if family == 1:
        symbols = "".join(rng.choice(SHEET_SYMBOLS) for _ in range(rng.randint(0, 40)))
        return (f"{rng.randint(0, 1000)} {rng.randint(0, 100)} ANN {rng.randint(0, 100)} : "
                f"{symbols}").encode()
    if family == 2:
        return rng.randbytes(rng.randint(0, 300))
    return "".join(chr(rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FFF))))
                   for _ in range(rng.randint(0, 80))).encode("utf-8", "replace")


def random_field(rng: random.Random) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return str(rng.randint(0, 12))
    if kind == 1:
        return rng.choice(FIELDS)
    return "".join(chr(rng.randint(32, 126)) for _ in range(rng.randint(0, 12)))


@pytest.mark.slow
@pytest.mark.parametrize("dialect_name", DIALECTS)
def test_parsers_survive_many_generated_lines(dialect_name, report):
    wanted = SLOW_TIER_LINES[dialect_name]
    rng = random.Random(f"fuzz-{dialect_name}")
    before = Tally.lines
    feed_lines(dialect_name, [random_line(rng) for _ in range(wanted)])
    assert Tally.lines - before == wanted
    report(f"{dialect_name}: {wanted:,} generated lines parsed or refused with a reason")
