"""Run a scenario: a JSON Lines script of one match, folded in memory (no store).

>>> run = run_scenario([
...     '{"setup": {"bowlers": ["Ann", "Bob"], "games": 1}}',
...     '{"stack": ["AS", "KH", "GJ"]}',
...     '{"ball": {"bowler": "Ann", "pins": 10}}',
... ])
>>> run.error is None, run.state.hands["Ann"]
(True, ['AS', 'KH', 'JOKER-A'])
>>> bad = run_scenario(['{"setup": {"bowlers": ["Ann", "Bob"]}}', '{"bowl": {}}'])
>>> str(bad.error)
"line 2: unknown step 'bowl' (setup, stack, ball, decide, guess_outcome, commissioner, \
correct, consent, start, expire)"
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from alley_poker.fairness.deal import RandomForTests
from alley_poker.ledger import CommandRefused, MatchState, check_invariants, handle
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import parse_iso
from alley_poker.ledger.events import Event
from alley_poker.scenario.steps import (
    COMMISSIONER,
    FEED,
    StepError,
    ball_command,
    commissioner_command,
    correct_command,
    decide_command,
    no_more_keys,
    table_of,
    take,
)

MATCH_ID = "scenario"
START = datetime(2026, 1, 2, 19, 0, tzinfo=UTC)
STEP_KINDS = ("setup", "stack", "ball", "decide", "guess_outcome", "commissioner", "correct",
              "consent", "start", "expire")


class ScenarioError(ValueError):
    """A bad scenario line; the message is ``line N: reason``."""

    def __init__(self, line: int, reason: str):
        self.line = line
        self.reason = reason
        super().__init__(f"line {line}: {reason}")


@dataclass
class ScenarioRun:
    """The outcome of a run: the state so far, every event, and the error that stopped it."""

    state: MatchState
    events: list[Event] = field(default_factory=list)
    error: ScenarioError | None = None


class _Runner:
    def __init__(self, seed: int):
        # The explicit test-only source: scenarios (and their ``stack`` steps) deal the same
        # cards every run and commit to no seed (docs/fairness.md).
        self.rng = RandomForTests(random.Random(seed))
        self.now = START
        self.run = ScenarioRun(MatchState.empty(MATCH_ID))

    def execute(self, command: c.Command) -> None:
        state = self.run.state
        events = handle(state, command, rng=self.rng, now=self.now)
        for event in events:
            state.apply(event)
        check_invariants(state)
        self.run.events.extend(events)

    def step(self, line: str) -> None:
        try:
            step = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StepError(f"not valid JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(step, dict) or len(step) != 1:
            raise StepError("a step is an object with exactly one key, e.g. {\"ball\": {...}}")
        (kind,) = step
        if kind not in STEP_KINDS:
            raise StepError(f"unknown step {kind!r} ({', '.join(STEP_KINDS)})")
        state = self.run.state
        if kind != "setup" and state.status == "new":
            raise StepError("the first step must be 'setup'")
        self.now += timedelta(seconds=1)
        getattr(self, f"_{kind}")(step)

    def _setup(self, step: dict) -> None:
        if self.run.state.status != "new":
            raise StepError("the match is already set up")
        body = table_of(step, "setup")
        bowlers = take(body, "bowlers", list, "setup")
        consent = take(body, "consent", bool, "setup", default=True)
        command = c.CreateMatch(
            MATCH_ID, bowlers, take(body, "games", int, "setup", default=1),
            take(body, "ante_cents", int, "setup", default=None, optional=True),
            take(body, "rules", dict, "setup", default=None, optional=True),
            test_mode=True, actor=COMMISSIONER,
            # A league match's tag and handicaps, as a league night records them (the ledger
            # checks both and refuses a bad one, naming it).
            league=take(body, "league", dict, "setup", default=None, optional=True),
            handicaps=take(body, "handicaps", dict, "setup", default=None, optional=True))
        no_more_keys(body, "setup")
        self.execute(command)
        if consent:
            for bowler in bowlers:
                self.execute(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
            self.execute(c.StartMatch(actor=COMMISSIONER))

    def _consent(self, step: dict) -> None:
        body = table_of(step, "consent")
        bowler = take(body, "bowler", str, "consent")
        no_more_keys(body, "consent")
        self.execute(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))

    def _start(self, step: dict) -> None:
        no_more_keys(table_of(step, "start"), "start")
        self.execute(c.StartMatch(actor=COMMISSIONER))

    def _stack(self, step: dict) -> None:
        cards = step["stack"]
        if not isinstance(cards, list) or not all(isinstance(x, str) for x in cards):
            raise StepError("'stack' is a list of cards, e.g. [\"AS\", \"GJ\"]")
        self.execute(c.StackPile(cards, actor=COMMISSIONER))

    def _ball(self, step: dict) -> None:
        command, frame = ball_command(step)
        state = self.run.state
        if frame is not None and command.bowler in state.balls:
            game = command.game or state.current_game(command.bowler)
            if 1 <= game <= state.games:
                balls = state.balls[command.bowler][game - 1]
                expected = _next_frame(balls)
                if frame != expected:
                    raise StepError(f"{command.bowler}'s next ball in game {game} is in frame "
                                    f"{expected}, not frame {frame}")
        self.execute(command)

    def _decide(self, step: dict) -> None:
        self.execute(decide_command(table_of(step, "decide")))

    def _guess_outcome(self, step: dict) -> None:
        body = table_of(step, "guess_outcome")
        bowler = take(body, "bowler", str, "guess_outcome")
        side = take(body, "side", str, "guess_outcome")
        by = take(body, "by", str, "guess_outcome", default="bowler")
        no_more_keys(body, "guess_outcome")
        actor = COMMISSIONER if by == "commissioner" else f"bowler:{bowler}"
        self.execute(c.RecordGuessOutcome(bowler, side, actor=actor))

    def _commissioner(self, step: dict) -> None:
        body = step["commissioner"]
        if (isinstance(body, dict) and body.get("action") in ("apply_review", "dismiss_review")
                and "review" not in body):
            # Without an id: the oldest open review item (ids depend on event numbering).
            reviews = list(self.run.state.reviews)
            if not reviews:
                raise StepError("there is no open review item")
            step = {"commissioner": {**body, "review": reviews[0]}}
        self.execute(commissioner_command(step))

    def _correct(self, step: dict) -> None:
        self.execute(correct_command(table_of(step, "correct"), FEED))

    def _expire(self, step: dict) -> None:
        body = table_of(step, "expire")
        bowler = take(body, "bowler", str, "expire")
        no_more_keys(body, "expire")
        pending = self.run.state.pending_for(bowler) if bowler in self.run.state.hands else []
        if pending:
            self.now = max(self.now, parse_iso(pending[0]["deadline"]))
        self.execute(c.ExpireDecision(bowler, actor="scheduler"))


def _next_frame(balls: list[dict]) -> int:
    if not balls:
        return 1
    last = balls[-1]
    if last["frame"] == 10:
        return 10
    ended = last["mark"] == "strike" or last["ball"] == 2
    return last["frame"] + 1 if ended else last["frame"]


def run_scenario(lines: Iterable[str], *, seed: int = 0) -> ScenarioRun:
    """Run scenario lines; a bad line stops the run (``run.error``), keeping the state so far.

    Blank lines and lines starting with ``#`` are skipped (comments).
    """
    runner = _Runner(seed)
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            runner.step(text)
        except (StepError, CommandRefused) as exc:
            runner.run.error = ScenarioError(number, str(exc))
            break
    return runner.run
