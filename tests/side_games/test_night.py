"""A night's side games through the commands: entries and their limits, the sealed draw and
its checks (a re-ordered draw refused), rollover, refunds, and the money per bowler."""

from __future__ import annotations

import copy
import hashlib

import pytest

from alley_poker.side_games import (
    Draw,
    PayBracket,
    PayPot,
    PotSettings,
    RecordEntry,
    RecordScore,
    RevealSeed,
    SetSideGame,
    SideGameError,
    SideNight,
    WithdrawEntry,
    event_from_record,
    verify_side_night,
)
from tests.side_games.nights import SEED, Night, drawn_night, handicap_brackets


def test_the_draw_is_sealed_first_and_revealed_after():
    night = drawn_night({b: 1 for b in range(1, 9)})
    committed, made = night.events[-2:]
    assert committed.type == "draw_committed" and made.type == "draw_made"
    assert committed["commitment"] == hashlib.sha256(SEED).hexdigest()
    assert committed["salt"] == "tue-2026-11-24/2026-11-24"
    assert sorted(made["brackets"][0]) == list(range(1, 9))
    with pytest.raises(SideGameError, match="never made again"):
        night.do(Draw(SEED))
    with pytest.raises(SideGameError, match="not the seed"):
        night.do(RevealSeed(bytes(32)))
    assert verify_side_night(night.records).unproven == (
        f"#{made.seq} draw_made: the seed is not revealed yet",)
    night.do(RevealSeed(SEED))
    check = verify_side_night(night.records)
    assert check.ok and check.draws_checked == 1


def test_a_re_ordered_or_re_seeded_draw_is_refused():
    night = drawn_night({b: 2 for b in range(1, 9)})
    night.do(RevealSeed(SEED))
    records = night.records
    made = next(i for i, r in enumerate(records) if r["type"] == "draw_made")
    swapped = copy.deepcopy(records)
    first = swapped[made]["data"]["brackets"][0]
    first[0], first[2] = first[2], first[0]             # two bowlers swap seats
    check = verify_side_night(swapped)
    assert not check.ok
    assert check.problems == (f"#{made + 1} draw_made: hdcp: bracket 1 is not what the seed "
                              "draws from the entries",)
    moved = copy.deepcopy(records)
    moved[made]["data"]["brackets"].reverse()            # the brackets themselves re-ordered
    assert "bracket 1 is not what the seed draws" in verify_side_night(moved).problems[0]
    other = drawn_night({b: 2 for b in range(1, 9)}, seed=bytes(32))
    forged = [*records[:made], other.records[made], *records[made + 1:]]   # another seed's
    assert not verify_side_night(forged).ok
    # An entry changed in the log after the fact changes what the seed draws, too.
    edited = copy.deepcopy(records)
    entry = next(r for r in edited if r["type"] == "entry_recorded")
    entry["data"]["bowler"] = 99
    assert "bracket" in " ".join(verify_side_night(edited).problems)


def test_a_paid_amount_the_games_do_not_give_is_refused_by_the_check():
    night = drawn_night({b: 1 for b in range(1, 9)})
    for bowler in range(1, 9):
        for game in (1, 2, 3):
            night.score(bowler, game, 100 + bowler)
    night.do(PayBracket("hdcp", 1))
    night.do(RevealSeed(SEED))
    records = night.records
    assert verify_side_night(records).ok
    paid = next(r for r in records if r["type"] == "bracket_paid")
    paid["data"]["payouts"] = [[1, 3000], [8, 1000]]
    assert any("did not pay what its games decide" in p
               for p in verify_side_night(records).problems)


def test_entries_follow_the_settings_and_close_at_the_draw():
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets(entries_per_bowler=3, eligible=[1, 2, 3])))
    night.do(RecordEntry("hdcp", 1, 2, 1000))
    with pytest.raises(SideGameError, match="has 2 of the 3 entries") as refused:
        night.do(RecordEntry("hdcp", 1, 2, 1000))
    assert refused.value.field == "entries"
    with pytest.raises(SideGameError, match="may not enter") as refused:
        night.do(RecordEntry("hdcp", 9, 1, 500))
    assert refused.value.field == "bowler"
    with pytest.raises(SideGameError) as refused:
        night.do(RecordEntry("hdcp", 2, 1, 400))
    assert refused.value.field == "paid_cents"
    with pytest.raises(SideGameError, match="no side game 'scratch'"):
        night.do(RecordEntry("scratch", 2, 1, 500))
    with pytest.raises(SideGameError, match="withdraw them before changing"):
        night.do(SetSideGame("hdcp", handicap_brackets()))
    before = night.night.seq
    with pytest.raises(SideGameError, match="game 4 is not one of them"):
        night.do(SetSideGame("late", handicap_brackets(games=(2, 3, 4))))
    assert night.night.seq == before                    # a refused command changed nothing
    night.do(WithdrawEntry("hdcp", 1, 1))
    assert night.night.refunded == {1: 500}
    night.do(Draw(SEED))
    with pytest.raises(SideGameError, match="entries are closed"):
        night.do(RecordEntry("hdcp", 2, 1, 500))


def test_the_draw_comes_before_the_first_game_is_in():
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets()))
    night.enter("hdcp", {b: 1 for b in range(1, 9)})
    night.do(RecordScore(1, 1, 180))
    with pytest.raises(SideGameError, match="sealed before the first counted ball"):
        night.do(Draw(SEED))


def test_unplaced_entries_roll_into_the_next_bracket_game_then_are_refunded():
    night = Night()
    night.do(SetSideGame("scratch", handicap_brackets(scoring="scratch", rollover_to="hdcp",
                                                      seven_bowler_brackets=False)))
    night.do(SetSideGame("hdcp", handicap_brackets(entries_per_bowler=2)))
    night.enter("scratch", {b: 1 for b in range(1, 12)})       # 11: one bracket, 3 over
    night.enter("hdcp", {b: 1 for b in range(20, 27)})         # 7 others so far
    night.do(Draw(SEED))
    scratch, hdcp = [e for e in night.events if e.type == "draw_made"]
    rolled = dict(scratch["rolled"])
    assert scratch["rolled_to"] == "hdcp" and sum(rolled.values()) == 3
    assert scratch["refunded"] == []
    # hdcp drew 7 + 3 = 10 entries: one bracket of eight, two refunded ($10.00 back).
    assert len(hdcp["brackets"]) == 1 and sum(c for _, c in hdcp["refunded"]) == 2
    money = night.night.money()
    assert money.refunds_cents == 1000 and money.balanced
    assert money.in_play_cents == 2 * 4000
    night.do(RevealSeed(SEED))
    assert verify_side_night(night.records).ok


def test_rollover_must_point_forward_to_a_game_of_the_same_fee():
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets(rollover_to="scratch")))
    night.enter("hdcp", {1: 1})
    with pytest.raises(SideGameError, match="set after it") as refused:
        night.do(Draw(SEED))
    assert refused.value.field == "rollover_to"


def test_money_per_bowler_and_the_night_sheet_totals():
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets(seven_bowler_brackets=False)))
    night.do(SetSideGame("high", PotSettings(kind="high_game", scoring="scratch",
                                             games=(1, 2, 3), entry_cents=100)))
    night.enter("hdcp", {b: 1 for b in range(1, 10)})          # 9: one bracket, one back
    night.enter("high", {1: 1, 2: 1})
    night.do(Draw(SEED))
    for bowler in range(1, 10):
        for game in (1, 2, 3):
            night.score(bowler, game, 100 + bowler)
    [bracket] = night.night.brackets("hdcp")
    night.do(PayBracket("hdcp", 1))
    with pytest.raises(SideGameError, match="paid already"):
        night.do(PayBracket("hdcp", 1))
    night.do(PayPot("high"))
    money = night.night.money()
    assert (money.entries_cents, money.payouts_cents, money.refunds_cents,
            money.organiser_cents, money.in_play_cents) == (4700, 4200, 500, 0, 0)
    lines = {line.bowler: line for line in money.bowlers}
    winner = max(bracket.alive())
    assert lines[winner].won_cents == 3000
    assert lines[2].won_cents == 200 + bracket.payouts.get(2, 0) and lines[1].paid_cents == 600
    unplaced = next(b for b in range(1, 10) if b not in night.night.book("hdcp").drawn[0].slots)
    assert lines[unplaced].refunded_cents == 500 and lines[unplaced].net_cents == 0
    assert sum(line.net_cents for line in money.bowlers) == 0


def test_a_pot_waits_on_every_entrant_unless_the_desk_pays_it_as_it_stands():
    night = Night()
    night.do(SetSideGame("high", PotSettings(kind="high_series", scoring="handicap",
                                             games=(1, 2), entry_cents=200)))
    night.enter("high", {1: 1, 2: 1})
    night.score(1, 1, 200, handicap=10)
    night.score(1, 2, 180, handicap=10)
    night.score(2, 1, 230)
    with pytest.raises(SideGameError, match="waits on games of bowlers 2"):
        night.do(PayPot("high"))
    with pytest.raises(SideGameError, match="pots' entries are closed"):
        night.do(RecordEntry("high", 3, 1, 200))
    night.do(PayPot("high", as_they_stand=True))
    assert night.night.book("high").paid[None].payouts == {1: 400}
    night.score(2, 2, 200)                       # 430 beats 400: the desk is asked
    [change] = night.night.pending_changes()
    assert change.now.payouts == {2: 400}


def test_the_log_round_trips_and_a_replay_gives_the_same_night():
    night = drawn_night({b: 1 for b in range(1, 16)})
    replayed = SideNight(night.night.night_id)
    for record in night.records:
        replayed.apply(event_from_record(record))
    assert replayed == night.night


def test_the_brackets_export_names_each_bowlers_opponents_and_the_bye():
    from alley_poker.side_games.csv_exports import brackets_csv

    night = drawn_night({b: 1 for b in range(1, 8)})           # seven and a bye
    names = {b: f"Bowler {b}" for b in range(1, 8)}
    rows = brackets_csv(night.night, names).splitlines()
    assert rows[0] == "game,bracket,round,match,counted_game,bowler_a,bowler_b,status,winner,how"
    assert len(rows) == 1 + 7
    [bye] = [row.split(",") for row in rows if row.endswith(",bye")]
    facing = bye[6] if bye[5] == "bye" else bye[5]
    assert "bye" in (bye[5], bye[6]) and bye[7:] == ["decided", facing, "bye"]
    assert rows[-1].startswith("hdcp,1,3,1,3,,,earlier")


def test_the_order_entries_were_recorded_in_never_changes_the_draw():
    entries = {b: 1 + b % 3 for b in range(1, 20)}
    forward = drawn_night(entries)
    backward = drawn_night(dict(reversed(list(entries.items()))))
    split = Night()
    split.do(SetSideGame("hdcp", handicap_brackets()))
    for bowler, count in entries.items():               # one entry at a time, bought twice
        for _ in range(count):
            split.enter("hdcp", {bowler: 1})
    split.do(Draw(SEED))

    def made(night):
        return next(e.data for e in night.events if e.type == "draw_made")
    assert made(forward) == made(backward) == made(split)


def test_an_entry_moved_after_the_draw_is_refused_by_the_check():
    night = drawn_night({b: 1 for b in range(1, 10)})
    night.do(RevealSeed(SEED))
    records = night.records
    committed = next(i for i, r in enumerate(records) if r["type"] == "draw_committed")
    last_entry = records[committed - 1]
    assert last_entry["type"] == "entry_recorded"
    # The last entry moved to after the draw (the seqs renumbered to look whole).
    moved = [*records[:committed - 1], *records[committed:committed + 2], last_entry,
             *records[committed + 2:]]
    moved = [{**record, "seq": seq} for seq, record in enumerate(moved, start=1)]
    assert verify_side_night(moved).problems == (
        "#12 draw_made: hdcp: bracket 1 is not what the seed draws from the entries",
        "#12 draw_made: hdcp: refunded is not what the draw gives",
        "#13 entry_recorded: hdcp's entries were closed")
