"""A league night's side games driven through the commands, as the desk and scorer would."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from alley_poker.side_games import (
    BracketSettings,
    Draw,
    OpenNight,
    RecordEntry,
    RecordScore,
    SetSideGame,
    SideNight,
    event_to_record,
    run,
)
from alley_poker.side_games.night_commands import Command, decide
from alley_poker.side_games.night_events import SideEvent

NIGHT_ID = "tue-2026-11-24"
SEED = bytes(range(32))
DESK = "desk:pat"
START = datetime(2026, 11, 24, 19, 0, tzinfo=UTC)


def handicap_brackets(**changes: object) -> BracketSettings:
    """$5 handicap brackets paying $30/$10 (nothing to the organiser), games 1, 2, 3."""
    values: dict[str, object] = {"games": (1, 2, 3), "scoring": "handicap", "entry_cents": 500,
                                 "payouts_cents": (3000, 1000)}
    values.update(changes)
    return BracketSettings(**values)  # type: ignore[arg-type]


class Night:
    """A night and its log: every command's events folded and kept as records."""

    def __init__(self, games: int = 3, night_id: str = NIGHT_ID) -> None:
        self.night = SideNight(night_id)
        self.events: list[SideEvent] = []
        self.clock = START
        self.do(OpenNight("tue", night_id[-10:], games))

    def do(self, command: Command, actor: str = DESK) -> list[SideEvent]:
        self.clock += timedelta(seconds=1)
        events = decide(self.night, command, actor=actor, now=self.clock)
        for event in events:
            self.night.apply(event)
        self.events += events
        return events

    @property
    def records(self) -> list[dict]:
        return [event_to_record(event) for event in self.events]

    def enter(self, game: str, entries: Mapping[int, int]) -> None:
        fee = self.night.books[game].settings.entry_cents
        for bowler, count in entries.items():
            self.do(RecordEntry(game, bowler, count, count * fee))

    def score(self, bowler: int, game: int, scratch: int, handicap: int = 0,
              strikes: int = 0) -> list[SideEvent]:
        return self.do(RecordScore(bowler, game, scratch, handicap, strikes), actor="feed:1")


def drawn_night(entries: Mapping[int, int], seed: bytes = SEED,
                **settings: object) -> Night:
    night = Night()
    night.do(SetSideGame("hdcp", handicap_brackets(**settings)))
    night.enter("hdcp", entries)
    night.do(Draw(seed))
    return night


__all__ = ["DESK", "NIGHT_ID", "SEED", "Night", "drawn_night", "handicap_brackets", "run"]
