"""Two leagues back to back on lanes 1-2, bowled through the real serial feed (a socat pty
pair read with pyserial): the early league's match settles, the late league starts on the
same lanes, and its scorer bowls.

Three evenings: (a) one scorer process runs through both leagues (it opens the lanes again
and numbers the late games from 1), and the early games' last lines (the sheet after the
last frame, the game's end) are read only once the late league has started, as a busy
reader may; (b) the scorer is restarted for the late league (a new
session, its lines numbered from 1 again); (c) as (b), with balls held from the early league
(the scorer showed a name nobody in the early match has, and the desk dismissed the seat
request, so they stay on the held-balls list).

Every late ball must land in the late match and nowhere else, the late match must settle
with the scorer's own scores, no early ball may appear in it, and the lanes' screen (what the
kiosk reads) and the late match's story must show nothing of the early league.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date

import pytest

from alley_poker.bowling import Game
from alley_poker.config import FeedConfig
from alley_poker.ledger import commands as c
from alley_poker.service.feeds import FeedSupervisor
from drivers.base import BallRecorded, GameEnded, ScoresheetSnapshot
from drivers.feed_writer import FeedWriter, ScorerOutput
from drivers.named_lanes import named_lanes
from drivers.simulator import Simulator
from tests.conftest import centre_app
from tests.service.league_night_runner import wait_until
from tests.service.tuesday_league import early_and_late_desk
from tests.web.conftest import OPEN_NIGHT, PIN, open_service

NIGHT = date(2026, 11, 24)
DESK = "commissioner:pat"
EARLY = {"ED": "Ed Hall", "FAY": "Fay Moss", "GUS": "Gus Pike", "HAL": "Hal Rowe"}
LATE = {"IVY": "Ivy Lane", "JO": "Jo King", "KIM": "Kim Cole", "LOU": "Lou Reed"}
#: The early scorer's extra name: nobody of the early league (its balls are held).
STRANGER = "ZED"


def roster(people: dict[str, str]) -> str:
    return "name,scorer_name,average\n" + "".join(
        f"{name},{scorer},{150 + 10 * index}\n"
        for index, (scorer, name) in enumerate(people.items()))


class Scorer:
    """The lane scorer: bowls a simulator's games as apf1 lines into the pty."""

    def __init__(self, pty_path: str, session: str):
        self.writer = FeedWriter(pty_path).start()
        self.output = ScorerOutput("apf1", session=session, writer=self.writer)
        self.output.send(None)  # HELLO: a scorer announces its session when it starts

    def bowl(self, simulator: Simulator, *, hold_tail: bool = False) -> list:
        """Send the simulator's lines; with ``hold_tail``, keep back (and return) those
        after its last ball."""
        events = [timed.event for timed in simulator.events()]
        last_ball = max(at for at, event in enumerate(events)
                        if isinstance(event, BallRecorded))
        tail = events[last_ball + 1:] if hold_tail else []
        self.send(events[:len(events) - len(tail)])
        return tail

    def send(self, events: list) -> None:
        for event in events:
            self.output.send(event)
        assert self.writer.flush(30), "the pty did not take the scorer's lines"

    def stop(self) -> None:
        self.writer.stop()


def league_balls(simulator: Simulator, names: dict[str, str]) -> dict[str, list[tuple]]:
    """Per roster name, the balls the scorer bowled for them, as (game, frame, ball, pins)."""
    slot_name = {(setup.lane, slot): profile.name for setup in simulator.lanes
                 for slot, profile in enumerate(setup.bowlers, 1)}
    balls: dict[str, list[tuple]] = {}
    for ball in simulator.balls:
        scorer_name = slot_name[(ball.lane, ball.bowler)]
        if scorer_name in names:
            balls.setdefault(names[scorer_name], []).append(
                (ball.game, ball.frame, ball.ball, ball.pins))
    return balls


def settle(service, match_id: str) -> None:
    """The scorer is done: every bowler answers what is open for them at once (a card to
    lose, a steal, no end draw, no buy), and the desk confirms the result."""
    for _ in range(200):
        state = service.state(match_id)
        if not state.decisions:
            break
        decision = next(iter(state.decisions.values()))
        bowler, kind = decision["bowler"], decision["kind"]
        actor = f"bowler:{bowler}"
        if kind == "lose_card":
            command = c.DecideLoseCard(bowler, state.display_card(state.hands[bowler][0]),
                                       actor=actor)
        elif kind == "steal":
            # The choices are the hands when the decision opened: steal from one as it is.
            victim = next(other for other in decision["choices"] if state.hands[other])
            command = c.DecideSteal(bowler, victim, state.display_card(state.hands[victim][0]),
                                    actor=actor)
        else:
            answer = {"end_draw": c.DecideEndDraw, "buy": c.DecideBuy}[kind]
            command = answer(bowler, False, decision_id=decision["id"], actor=actor)
        service.execute(match_id, command)
    service.execute(match_id, c.CommissionerConfirmResult(reason="end of the night",
                                                          actor=DESK))
    assert service.state(match_id).status == "settled"


def ledger_balls(state) -> dict[str, list[tuple]]:
    return {bowler: [(game, b["frame"], b["ball"], b["pins"])
                     for game, balls in enumerate(state.balls[bowler], 1) for b in balls]
            for bowler in state.bowlers}


@pytest.mark.slow
@pytest.mark.parametrize("evening", ["one-scorer", "scorer-restarted", "held-left"])
def test_the_late_league_gets_every_late_ball_and_none_of_the_early_league(
        tmp_path, pty_pair, evening):
    service = open_service(tmp_path / "ledger.sqlite3")
    desk = early_and_late_desk(service, roster(EARLY), roster(LATE), lane_pairs=((1, 2),))
    feeds = FeedSupervisor([FeedConfig(name="lanes-1-4", url=pty_pair.reader_path,
                                       lanes=[1, 2, 3, 4])], service.handle_lane_event)
    feeds.start()
    held_left = evening == "held-left"
    early_lane_1 = ["ED", "FAY"] + ([STRANGER] if held_left else [])
    early_sim = Simulator(named_lanes([1, 2], [early_lane_1, ["GUS", "HAL"]], seed=3),
                          seed=3, games=1, snapshots=evening != "scorer-restarted")
    # KIM bowls in the slot the stranger had on the early night.
    late_sim = Simulator(named_lanes([1, 2], [["IVY", "JO", "KIM"], ["LOU"]], seed=4),
                         seed=4, games=1, snapshots=evening != "scorer-restarted")
    scorer = Scorer(pty_pair.writer_path, "boot-1")
    try:
        # --- the early league ------------------------------------------------------------
        early = desk.nights.start("early", [b.bowler_id for b in desk.store.bowlers("early")],
                                  actor=DESK, night_date=NIGHT).matches[0]
        early_tail = scorer.bowl(early_sim, hold_tail=evening == "one-scorer")
        expected_early = league_balls(early_sim, EARLY)
        assert wait_until(lambda: ledger_balls(service.state(early)) == expected_early, 60), \
            (ledger_balls(service.state(early)), expected_early)
        stranger_balls = sum(1 for b in early_sim.balls if (b.lane, b.bowler) == (1, 3))

        def stranger_items() -> list[dict]:
            return [item for item in service.held.open_items()
                    if (item["lane"], item["slot"]) == (1, 3)]
        assert wait_until(lambda: len(stranger_items()) == stranger_balls, 30)
        left = stranger_items()
        if held_left:
            assert stranger_balls > 10  # a whole game held for the desk
            (request,) = desk.store.open_seat_requests(early)
            desk.seating.dismiss(request.id, actor=DESK)
            assert {item["match_id"] for item in left} == {early}
        settle(service, early)
        early_after = ledger_balls(service.state(early))

        # --- the late league on the same lanes ---------------------------------------------
        late = desk.nights.start("late", [b.bowler_id for b in desk.store.bowlers("late")],
                                 actor=DESK, night_date=NIGHT).matches[0]
        if early_tail:
            assert any(isinstance(event, ScoresheetSnapshot) for event in early_tail)
            scorer.send(early_tail)  # the early game's last sheet, read only now
        if evening != "one-scorer":
            scorer.stop()  # the scorer is restarted: a new session, lines from 1 again
            scorer = Scorer(pty_pair.writer_path, "boot-2")
        scorer.bowl(late_sim)
        expected_late = league_balls(late_sim, LATE)
        assert wait_until(lambda: ledger_balls(service.state(late)) == expected_late, 60), \
            (ledger_balls(service.state(late)), expected_late)

        # Every line was taken: none refused, the feed green, nothing held for the late match.
        (health,) = feeds.health()
        assert health["lines_rejected"] == 0, health["recent_rejected"]
        assert health["state"] == "ok", health
        assert service.held.open_items(late) == []
        # The early night's held balls stay with the early match, still on the list.
        still = stranger_items()
        assert [item["id"] for item in still] == [item["id"] for item in left]
        assert all(item["match_id"] == early for item in still)
        assert ledger_balls(service.state(early)) == early_after

        # What the kiosk on lanes 1-2 reads: the late match alone, with the late bowlers.
        app = centre_app(service, testing=True, pin=PIN, secret_key="test-secret", **OPEN_NIGHT)
        client = app.test_client()
        screen = client.get("/api/v1/lanes/1-2/screen").get_json()
        assert [match["match_id"] for match in screen["matches"]] == [late]
        (live,) = screen["matches"]
        assert set(live["bowlers"]) == set(LATE.values())
        live_text = json.dumps(live)
        assert not [name for name in EARLY.values() if name in live_text]
        # The late match's events (what the kiosk tells its moments from): only late balls.
        events = client.get(f"/api/v1/matches/{late}/events?since=0&limit=1000").get_json()
        balls = Counter(e["data"]["bowler"] for e in events["events"]
                        if e["type"] == "ball_recorded")
        assert balls == Counter({name: len(b) for name, b in expected_late.items()})

        settle(service, late)
        state = service.state(late)
        scratch = {LATE[name]: ended.scratch for ended in late_sim.record
                   if isinstance(ended, GameEnded)
                   for name in [_scorer_name(late_sim, ended)]}
        assert {bowler: _score(state.balls[bowler][0]) for bowler in state.bowlers} == scratch
        story = client.get(f"/api/v1/matches/{late}/story").get_json()
        story_text = json.dumps(story)
        assert story["status"] == "settled"
        assert not [name for name in [*EARLY.values(), *EARLY] if name in story_text]
    finally:
        scorer.stop()
        feeds.stop()
        desk.close()
        service.repository.store.close()


def _scorer_name(simulator: Simulator, ended: GameEnded) -> str:
    setup = next(setup for setup in simulator.lanes if setup.lane == ended.lane)
    return setup.bowlers[ended.bowler - 1].name


def _score(balls: list[dict]) -> int:
    game = Game.from_rolls({"pins": b["pins"], "foul": b["foul"]} for b in balls)
    return game.score()

