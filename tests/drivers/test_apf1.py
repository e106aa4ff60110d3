"""The apf1 dialect: every record type, and every way a line is refused."""

from __future__ import annotations

import pytest

from drivers.base import (
    BallCorrected,
    BallRecorded,
    BallRetracted,
    BowlerSlot,
    DuplicateLine,
    FeedLineRejected,
    Flags,
    GameEnded,
    Heartbeat,
    LaneOpened,
    ScoresheetSnapshot,
    SequenceGap,
    WrongLane,
)
from drivers.dialects.apf1 import Apf1Dialect, Apf1Encoder, checksum, frame_line


def lines(*records: str, first: int = 1) -> list[bytes]:
    return [frame_line(f"APF1,{seq},{record}") for seq, record in enumerate(records, first)]


def parse_all(dialect: Apf1Dialect, raw_lines: list[bytes]) -> list:
    return [event for line in raw_lines for event in dialect.parse(line)]


def test_every_record_type_round_trips_through_encoder_and_dialect():
    events = [
        LaneOpened(lane=4, bowlers=(BowlerSlot(1, "ANN"), BowlerSlot(2, "Bo Smith")), game=2),
        BallRecorded(lane=4, bowler=1, game=2, frame=1, ball=1, pins=7,
                     standing=frozenset({4, 7, 10}), flags=Flags(split=True)),
        BallRecorded(lane=4, bowler=1, game=2, frame=1, ball=2, pins=3,
                     standing=frozenset()),
        BallCorrected(lane=4, bowler=1, game=2, frame=1, ball=2, pins=2,
                      standing=frozenset({10})),
        BallRetracted(lane=4, bowler=1, game=2, frame=1, ball=2),
        WrongLane(lane=4, bowler=2),
        ScoresheetSnapshot(lane=4, bowler=1, game=2, frames=()),
        GameEnded(lane=4, bowler=2, game=2, scratch=187, handicap=23),
        Heartbeat(),
    ]
    encoder = Apf1Encoder(session="boot-7")
    dialect = Apf1Dialect(source="desk")
    assert dialect.parse(encoder.hello()) == [Heartbeat(source="desk", seq=1)]
    for seq, event in enumerate(events, start=2):
        (parsed,) = dialect.parse(encoder.encode(event))
        assert parsed.seq == seq and parsed.source == "desk"
        assert type(parsed) is type(event)
        if not isinstance(parsed, Heartbeat):
            assert parsed == type(event)(**{**vars_of(event), "source": "desk", "seq": seq})


def vars_of(event) -> dict:
    import dataclasses

    return {field.name: getattr(event, field.name) for field in dataclasses.fields(event)}


def test_checksum_is_the_xor_of_the_body_in_upper_hex():
    assert checksum("APF1,1,HB") == "5D"
    assert frame_line("APF1,1,HB") == b"$APF1,1,HB*5D\r\n"
    assert Apf1Dialect().parse(b"$APF1,1,HB*5d")[0].seq == 1  # lower-case hex is fine


@pytest.mark.parametrize(("line", "reason"), [
    (b"$APF1,1,HB*00", "bad checksum"),
    (b"$APF1,1,H", "truncated"),
    (b"APF1,1,HB*5D", "must start with '$'"),
    (b"$APF1,1,HB\x00*5D", "control or non-ASCII"),
    (b"", "empty line"),
    (frame_line("APF2,1,HB"), "not an apf1 line"),
    (frame_line("APF1,0,HB"), "sequence: '0' is not a number from 1"),
    (frame_line("APF1,x,HB"), "sequence: 'x'"),
    (frame_line("APF1,1,JUMP"), "unknown record type 'JUMP'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8"), "BALL needs 8 fields"),
    (frame_line("APF1,1,BALL,3,1,1,11,1,8,-,-"), "frame: '11' is not a number from 1 to 10"),
    (frame_line("APF1,1,BALL,3,1,1,4,3,8,-,-"), "ball: '3' is not a number from 1 to 2"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,11,-,-"), "pins: '11'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8,7.11,-"), "standing: '7.11'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8,7.7,-"), "standing: '7.7'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8,7.10,Q"), "unknown flag letter 'Q'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8,7.10,SS"), "flags: 'SS'"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,8,7,-"), "impossible ball: frame 1 ball 1: 8 of 10"),
    (frame_line("APF1,1,BALL,3,1,1,1,1,3,-,G"), "gutter ball knocks down no pins"),
    (frame_line("APF1,1,OPEN,3,1,1=ANN;1=BOB"), "slot twice"),
    (frame_line("APF1,1,OPEN,3,1,1"), "write slot=NAME"),
    (frame_line("APF1,1,END,3,1,1,301,0"), "scratch: '301'"),
    (frame_line("APF1,1,SNAP,3,1,1,X 74"), "SNAP sheet: frame 2: 4 after 7"),
    (frame_line("APF1,1,HELLO,bad session!"), "HELLO session"),
    (b"$APF1,1,HB*5D" + b"x" * 300, "line too long"),
])
def test_bad_lines_are_refused_with_a_reason_naming_the_problem(line, reason):
    dialect = Apf1Dialect()
    with pytest.raises(FeedLineRejected) as refused:
        dialect.parse(line)
    assert reason in refused.value.reason
    assert refused.value.raw == line
    # Nothing changed: the same sequence number is still free for a good line.
    assert dialect.parse(frame_line("APF1,1,HB"))[0].seq == 1


def test_an_impossible_second_ball_is_refused_and_the_game_is_untouched():
    dialect = Apf1Dialect()
    parse_all(dialect, lines("BALL,3,1,1,1,1,7,4.7.10,-"))
    with pytest.raises(FeedLineRejected, match="only 3 pins standing; 5 cannot fall"):
        dialect.parse(frame_line("APF1,2,BALL,3,1,1,1,2,5,-,-"))
    with pytest.raises(FeedLineRejected, match="already down and cannot stand"):
        dialect.parse(frame_line("APF1,2,BALL,3,1,1,1,2,1,4.6,-"))
    (ball,) = dialect.parse(frame_line("APF1,2,BALL,3,1,1,1,2,3,-,-"))
    assert ball.pins == 3 and ball.frame == 1 and ball.ball == 2


def test_split_is_computed_from_standing_pins_when_the_scorer_does_not_flag_it():
    (ball,) = Apf1Dialect().parse(frame_line("APF1,1,BALL,3,1,1,1,1,8,7.10,-"))
    assert ball.flags.split


def test_repeated_sequence_numbers_are_duplicates_and_gaps_are_reported():
    dialect = Apf1Dialect()
    first = lines("HELLO,boot-1", "BALL,3,1,1,1,1,10,-,-", "HB")
    parse_all(dialect, first)
    for line in first:
        with pytest.raises(DuplicateLine):
            dialect.parse(line)
    gap, heartbeat = dialect.parse(frame_line("APF1,9,HB"))
    assert gap == SequenceGap(first_missing=4, last_missing=8, source="feed", seq=9)
    assert isinstance(heartbeat, Heartbeat)
    # A number of the gap is still free: its line (lost, or refused for its checksum) is
    # taken when it comes, once; a number before the session's first line is out of order.
    (late,) = dialect.parse(frame_line("APF1,5,HB"))
    assert isinstance(late, Heartbeat) and late.seq == 5
    with pytest.raises(DuplicateLine):
        dialect.parse(frame_line("APF1,5,HB"))
    joined = Apf1Dialect()
    joined.parse(frame_line("APF1,40,HB"))  # a reader that joined the session at line 40
    with pytest.raises(FeedLineRejected, match="out of order: sequence 39 after 40"):
        joined.parse(frame_line("APF1,39,HB"))


def test_a_new_session_restarts_numbering_and_resent_balls_are_recognised():
    dialect = Apf1Dialect()
    parse_all(dialect, lines("HELLO,boot-1", "BALL,3,1,1,1,1,9,10,-"))
    # The scorer rebooted: a new session, numbering from 1, and it re-sends its last ball.
    assert dialect.parse(frame_line("APF1,1,HELLO,boot-2"))[0].seq == 1
    with pytest.raises(DuplicateLine, match="already recorded"):
        dialect.parse(frame_line("APF1,2,BALL,3,1,1,1,1,9,10,-"))
    (spare,) = dialect.parse(frame_line("APF1,3,BALL,3,1,1,1,2,1,-,-"))
    assert spare.pins == 1


def test_a_changed_ball_must_come_as_a_correction_and_corrections_are_checked():
    dialect = Apf1Dialect()
    parse_all(dialect, lines("BALL,3,1,1,1,1,9,10,-", "BALL,3,1,1,1,2,1,-,-"))
    with pytest.raises(FeedLineRejected, match="must come as a correction"):
        dialect.parse(frame_line("APF1,3,BALL,3,1,1,1,1,8,9.10,-"))
    with pytest.raises(FeedLineRejected, match="impossible correction"):
        dialect.parse(frame_line("APF1,3,CORR,3,1,1,1,1,8,9.10,-"))  # then 1 leaves 1 up
    (fixed,) = dialect.parse(frame_line("APF1,3,CORR,3,1,1,1,2,0,10,-"))
    assert isinstance(fixed, BallCorrected) and fixed.pins == 0


def test_a_snapshot_resynchronises_checking_after_a_hole():
    dialect = Apf1Dialect()
    # Joined mid-game: frame 3 is accepted on its field checks alone...
    parse_all(dialect, lines("BALL,3,1,1,3,1,9,10,-"))
    # ... until a snapshot tells the whole story; then balls are checked again.
    (snap,) = dialect.parse(frame_line("APF1,2,SNAP,3,1,1,X 7/ 9"))
    assert [ball.pins for ball in snap.ball_events()] == [10, 7, 3, 9]
    with pytest.raises(FeedLineRejected, match="only 1 pin standing"):
        dialect.parse(frame_line("APF1,3,BALL,3,1,1,3,2,2,-,-"))


def test_a_foul_scores_zero_and_leaves_the_pins_it_faced():
    dialect = Apf1Dialect()
    (foul,) = dialect.parse(frame_line("APF1,1,BALL,3,1,1,1,1,0,1.2.3.4.5.6.7.8.9.10,F"))
    assert foul.flags.foul and foul.pins == 0
    (spare,) = dialect.parse(frame_line("APF1,2,BALL,3,1,1,1,2,10,-,-"))
    assert spare.pins == 10


def test_every_example_line_in_the_protocol_document_is_read_without_complaint():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "feed-protocol.md").read_text()
    examples = [line for line in doc.splitlines() if line.startswith("$APF1,")]
    assert len(examples) == 12
    dialect = Apf1Dialect(source="doc")
    events = parse_all(dialect, [line.encode() for line in examples])
    assert [type(event).__name__ for event in events] == [
        "Heartbeat", "LaneOpened", "BallRecorded", "BallRecorded", "BallRecorded",
        "BallRecorded", "BallCorrected", "BallRetracted", "WrongLane", "ScoresheetSnapshot",
        "GameEnded", "Heartbeat"]
    assert events[2].flags.split and events[4].flags.gutter and events[5].flags.foul
    checksum_example = doc.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(checksum_example, "feed-protocol.md", "exec"), {})


def test_the_docs_name_apf1_records_as_the_reader_reads_them():
    """docs/service.md once called the snapshot record ``SHEET``; the reader knows ``SNAP``."""
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs"
    known = set(Apf1Dialect()._parsers)
    named = {(path.name, found) for path in docs.glob("*.md")
             for found in re.findall(r"`apf1` `([A-Z]+)` record", path.read_text())}
    assert named, "no doc names an apf1 record any more: this check reads nothing"
    assert {(doc, record) for doc, record in named if record not in known} == set()
