"""A league night's side games fed by the scorer through the real path: the scorer's lines go
through the router into the ledger, the finished games into the brackets and pots (handicap
from the league), the draw is sealed at the first ball, a corrected ball re-decides a paid
bracket for the desk to confirm, the night sheet's money reconciles, the export verifies and
a re-ordered one is refused.  Real event store (SQLite, and PostgreSQL when present)."""

from __future__ import annotations

import copy
import json
import random
from datetime import UTC, date, datetime

import pytest
from click.testing import CliRunner

from alley_poker.cli.root import main
from alley_poker.league.night_sheet import night_sheet
from alley_poker.ledger import commands as c
from alley_poker.service.night_close import NightClose
from alley_poker.service.side_export import side_night_export
from alley_poker.side_games import (
    BracketSettings,
    PayBracket,
    PayPot,
    PotSettings,
    RecordEntry,
    ResolveChange,
    SetSideGame,
)
from alley_poker.verifier.side_night import verify_side_export
from drivers.base import BallCorrected, BallRecorded, Flags
from tests.league.play import decide_all
from tests.service.tuesday_league import tuesday_desk

pytestmark = pytest.mark.slow

NAMES = ["Ann", "Bob", "Cal", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
# Only Ann has an average (150: a handicap of 63 by the league's 90% of 220); the brackets
# are scratch, so the games alone decide them (scores are planned by rank below), and the
# handicap high-game pot is Ann's.
ROSTER = "name,scorer_name,average,handicap_basis,team\n" + "".join(
    f"{name},{name.upper()},{150 if name == 'Ann' else ''},book,\n" for name in NAMES)
TUESDAY = date(2026, 11, 24)
DESK = "commissioner:pat"


def frames_for(rank: int, game: int) -> list[list[int]]:
    """A bowler's planned game: frame 1 is 9-0, the rest open frames adding up to a score
    of 50 + rank (so a higher rank wins every head-to-head by its rank difference); in
    game 2 the top three throw a strike in frame 5 (the strike pot has strikes)."""
    rest = 41 + rank
    base, extra = divmod(rest, 9)
    frames = [[9, 0]] + [[base + (1 if i < extra else 0), 0] for i in range(9)]
    if game == 2 and rank >= 7:
        frames[4] = [10]
    return frames


@pytest.fixture
def desk(store_service):
    yield from tuesday_desk(store_service, ROSTER, ante_cents=100, games=3)


def test_a_bracket_night_from_the_scorer_to_the_verified_export(desk, store_service,
                                                                store_url):
    service, side = store_service, desk.side_games
    roster = {b.name: b.bowler_id for b in desk.store.bowlers("tue")}
    rank = {roster[name]: position for position, name in enumerate(NAMES)}
    night_id = side.open(desk.store.league("tue"), TUESDAY, actor=DESK)
    side.run(night_id, SetSideGame("scratch", BracketSettings(
        games=(1, 2, 3), scoring="scratch", entry_cents=500, payouts_cents=(3000, 1000))),
        actor=DESK)
    side.run(night_id, SetSideGame("high-game", PotSettings(
        kind="high_game", scoring="handicap", games=(1, 2, 3), entry_cents=200,
        places_percent=(70, 30))), actor=DESK)
    side.run(night_id, SetSideGame("strikes", PotSettings(
        kind="strikes", scoring="scratch", games=(1, 2, 3), entry_cents=100)), actor=DESK)
    for bowler in roster.values():
        bought = 2 if rank[bowler] < 5 else 1                       # 15 entries: 8 + 7
        side.run(night_id, RecordEntry("scratch", bowler, bought, 500 * bought), actor=DESK)
        side.run(night_id, RecordEntry("high-game", bowler, 1, 200), actor=DESK)
        if rank[bowler] >= 4:
            side.run(night_id, RecordEntry("strikes", bowler, 1, 100), actor=DESK)
    assert side.night(night_id).draw_preview("scratch").brackets == 2

    heard = []
    service.bus.subscribe(lambda topic, message: heard.append((topic, message))
                          if topic == f"side:{night_id}" else None)
    started = desk.nights.start("tue", list(roster.values()), actor=DESK, night_date=TUESDAY)
    assert not side.night(night_id).drawn           # nothing sealed before the first ball
    seat_of = {name: (match_id, lane, slot) for match_id, seats in started.seating.items()
               for (lane, slot), name in seats.items()}
    rng = random.Random(41)

    def bowl(name: str, game: int, frame: int, number: int, pins: int) -> None:
        match_id, lane, slot = seat_of[name]
        service.handle_lane_event(BallRecorded(
            lane=lane, bowler=slot, game=game, frame=frame, ball=number, pins=pins,
            flags=Flags(), source="scorer"))
        decide_all(service.execute, service.state, match_id, rng)

    def bowl_game(game: int, *, holding: str | None = None) -> None:
        plans = {name: frames_for(rank[roster[name]], game) for name in NAMES}
        for frame in range(1, 11):
            for name in NAMES:
                if (name, frame) == (holding, 10):
                    continue            # this bowler's last frame comes later
                for number, pins in enumerate(plans[name][frame - 1], start=1):
                    bowl(name, game, frame, number, pins)
            if (game, frame) == (1, 1):
                night = side.night(night_id)
                # Sealed at the night's first ball, before any game was in.
                assert night.drawn and not night.scores

    bowl_game(1)
    bowl_game(2)
    # The bracket whose final is closest (the highest rank of each half meets in it); one
    # bowler of its winner's match keeps the match in play (a ball is corrected only then).
    def final_of(bracket):
        halves = [[b for b in bracket.slots[h:h + 4] if b is not None] for h in (0, 4)]
        return sorted((max(half, key=rank.get) for half in halves), key=rank.get)
    chosen = min(side.night(night_id).book("scratch").drawn,
                 key=lambda b: rank[final_of(b)[1]] - rank[final_of(b)[0]])
    loser, winner = final_of(chosen)
    assert rank[winner] - rank[loser] < 9
    name_of = {bowler: name for name, bowler in roster.items()}
    match_id, lane, slot = seat_of[name_of[winner]]
    holding = next(name for name in NAMES if seat_of[name][0] == match_id
                   and roster[name] not in (winner, loser))
    bowl_game(3, holding=holding)
    night = side.night(night_id)
    assert len(night.scores) == 3 * len(NAMES) - 1
    assert night.scores[roster["Jo"], 3].scratch == 50 + 9

    # The bracket is decided from the games (the highest rank wins) and paid.
    outcome = night.brackets("scratch")[chosen.number - 1]
    assert outcome.finished and outcome.payouts[winner] == 3000 - 500 * (8 - outcome.size)
    side.run(night_id, PayBracket("scratch", chosen.number), actor=DESK)
    mine = side.night(night_id).bowler_brackets(loser)
    assert any(b.bracket == chosen.number and not b.alive and b.won_cents == 1000
               for b in mine)

    # A ball corrected at the scorer changes the paid final: the desk must confirm it.
    service.handle_lane_event(BallCorrected(
        lane=lane, bowler=slot, game=3, frame=1, ball=1, pins=0, flags=Flags(),
        source="scorer"))
    night = side.night(night_id)
    assert night.scores[winner, 3].scratch == 50 + rank[winner] - 9
    [change] = night.pending_changes()
    # The screens hear it on the bus: the corrected game, and a change waiting on the desk.
    assert heard[-1][1]["kind"] == "side_events" and heard[-1][1]["pending_changes"] == 1
    assert heard[-1][1]["events"][0]["type"] == "score_recorded"
    assert (change.game, change.bracket) == ("scratch", chosen.number)
    assert change.paid.payouts[winner] == outcome.payouts[winner]
    assert change.now.payouts[loser] > change.now.payouts.get(winner, 0)
    side.run(night_id, ResolveChange("scratch", chosen.number, True,
                                     "scorer corrected frame 1"), actor=DESK)
    assert side.night(night_id).pending_changes() == []

    for number, pins in enumerate(frames_for(rank[roster[holding]], 3)[9], start=1):
        bowl(holding, 3, 10, number, pins)
    night = side.night(night_id)
    assert len(night.scores) == 3 * len(NAMES)
    for other in night.brackets("scratch"):
        if other.number != chosen.number:
            assert other.finished
            side.run(night_id, PayBracket("scratch", other.number), actor=DESK)

    for match_id in started.matches:
        decide_all(service.execute, service.state, match_id, rng)
        service.execute(match_id, c.CommissionerConfirmResult(actor=DESK))
    side.run(night_id, PayPot("high-game"), actor=DESK)
    night = side.night(night_id)
    assert night.scores[roster["Ann"], 1].handicap == 63                # from the league
    assert night.pot("high-game").standings[0] == (roster["Ann"], 50 + 63)
    assert night.book("high-game").paid[None].payouts[roster["Ann"]] == 1400
    side.run(night_id, PayPot("strikes"), actor=DESK)

    # The night's money: every cent of the side games is paid out, refunded or the
    # organiser's, and the sheet balances with the matches' money.
    money = side.night(night_id).money()
    assert money.balanced and money.in_play_cents == 0
    assert money.entries_cents == 15 * 500 + 10 * 200 + 6 * 100
    assert money.entries_cents == (money.payouts_cents + money.refunds_cents
                                   + money.organiser_cents)
    with desk.standings.reading() as season:
        sheet = night_sheet(season, "tue", night_id, side_money=money)
    assert sheet.balanced and sheet.side_money is money
    assert desk.side_games.season_money("tue").payouts_cents == money.payouts_cents

    # The night's close reveals the seed; the export then verifies, a re-ordered one not.
    close = NightClose(service, close="23:30")
    alarm = close.check(datetime(2026, 11, 25, 5, 30, tzinfo=UTC))
    assert alarm["side_draws_revealed"] == [night_id]
    export = side_night_export(side, night_id)
    verdict = verify_side_export(export)
    assert verdict.ok, str(verdict)
    assert verdict.draws == 1 and verdict.payments == 5  # 2 brackets, a change, 2 pots

    ran = CliRunner().invoke(main, ["verify", night_id, "--database", store_url])
    assert ran.exit_code == 0 and ran.output.startswith("OK: side games"), ran.output
    ran = CliRunner().invoke(main, ["export", night_id, "--database", store_url])
    assert ran.exit_code == 0 and json.loads(ran.output) == export

    forged = copy.deepcopy(export)
    made = next(r for r in forged["events"] if r["type"] == "draw_made")
    first = made["data"]["brackets"][0]
    first[0], first[2] = first[2], first[0]           # two bowlers swap seats
    refused = verify_side_export(forged)
    assert not refused.ok
    assert "bracket 1 is not what the seed draws" in str(refused)
