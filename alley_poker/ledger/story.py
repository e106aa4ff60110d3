"""A match's story: every card movement with the ball or ruling that caused it, in plain words.

The story is a projection of the event log, rebuilt on every read (never stored, never a
second truth): :func:`match_story` folds the events, one by one, through
:class:`~alley_poker.ledger.state.MatchState` and says what each action did.  One entry per
ball or ruling: *where* it happened ("Frame 7, ball 1", "At the desk"), *who* it touched, and
the sentence ("Ann: strike → drew Q♠ and 3♦.").  Jokers are named by their power at that
moment; money is ``$x.yy``; no event or command name appears.  The draw pile's order is never
told (only that it was shuffled): the story says what was dealt, not what was coming.

A ball that moved no card and opened nothing (an open frame) has no entry: the story is about
the cards and the money.

>>> import random
>>> from datetime import datetime, timezone
>>> from alley_poker.ledger import commands as c, handle
>>> state, log = MatchState.empty("m1"), []
>>> now = datetime(2026, 1, 2, 20, 0, tzinfo=timezone.utc)
>>> for command in [c.CreateMatch("m1", ["Ann", "Bob"], test_mode=True, actor="commissioner:pat"),
...                 c.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 c.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 c.StartMatch(actor="commissioner:pat"),
...                 c.StackPile(["QS", "3D", "7C"], actor="commissioner:pat"),
...                 c.RecordBall("Ann", 1, 10, actor="feed:lane-1"),
...                 c.RecordBall("Bob", 1, 0, gutter=True, actor="feed:lane-2")]:
...     for event in handle(state, command, rng=random.Random(1), now=now):
...         state.apply(event)
...         log.append(event)
>>> for entry in match_story(log):
...     print(f"{entry.when}: {entry.text}")
Setting up: Match for Ann and Bob: 1 game, ante $1.00 each.
Setting up: Match started: $2.00 in the pot.
At the desk: The desk stacked the pile (test mode: never in a real match).
Frame 1, ball 1: Ann: strike → drew Q♠ and 3♦; drew 7♣ for the first strike of the game.
Frame 1, ball 1: Bob: gutter ball → had no card to give back: in the hole, owes 1 card.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from alley_poker.ledger.events import Event
from alley_poker.ledger.state import MatchState
from alley_poker.ledger.story_parts import Part, best_cards, describe_event, undo_parts
from alley_poker.ledger.story_words import ball_words, card_words, sentence, where_ball

#: Ledger commands a person at the desk gives (the entry says "At the desk").
_SETUP = {"CreateMatch", "ConsentToAnte", "StartMatch", "AddBowler"}


@dataclass
class StoryEntry:
    """One moment of the story: a ball, a choice, a ruling, the showdown."""

    seq: int                        # the first event of the moment (for ordering and links)
    at: str                         # ISO 8601 UTC
    when: str                       # "Frame 7, ball 1", "At the desk", "Showdown", ...
    kind: str                       # ball, choice, desk, setup, end, showdown, result
    bowler: str | None = None       # whose moment it is (None for the match's own)
    parts: list[Part] = field(default_factory=list)
    head: str = ""                  # for a ball: what the ball was
    undone: bool = False            # later taken back by the desk's undo
    hands: list[dict[str, Any]] | None = None   # the showdown's hands

    mark: str | None = None         # for a ball: its mark (its cards need no reason)

    def add(self, parts: list[Part]) -> None:
        """Tell ``parts`` after what is told (each in its place), merging like with like."""
        for part in parts:
            same = [told for told in self.parts if told.place == part.place]
            if not (same and same[-1].merge(part)):
                self.parts.append(part)

    @property
    def bowlers(self) -> list[str]:
        """Everyone the moment touched (their cards, their hole, their money)."""
        named = [self.bowler] if self.bowler else []
        for part in self.parts:
            named.extend(part.bowlers)
        return list(dict.fromkeys(named))

    @property
    def text(self) -> str:
        said = [part.render(self.bowler)
                for part in sorted(self.parts, key=lambda part: part.place)]
        said = [words for words in said if words]
        if self.head:
            lead = f"{self.bowler}: {self.head}" if self.bowler else self.head
            return sentence(lead + (" → " + "; ".join(said) if said else ""))
        return sentence("; ".join(said))

    def to_json(self) -> dict[str, Any]:
        out = {"seq": self.seq, "at": self.at, "when": self.when, "kind": self.kind,
               "bowler": self.bowler, "bowlers": self.bowlers, "text": self.text,
               "undone": self.undone}
        if self.hands is not None:
            out["hands"] = self.hands
        return out


def _iso(event: Event) -> str:
    return event.at.isoformat().replace("+00:00", "Z")


class StoryTeller:
    """Folds events into story entries; :meth:`tell` one event at a time, in order."""

    def __init__(self, state: MatchState):
        self.state = state
        self._entries: list[StoryEntry] = []
        self._by_action: dict[int, list[StoryEntry]] = {}
        self._current: StoryEntry | None = None
        self._action: int | None = None

    def tell(self, event: Event) -> None:
        state = self.state
        data = event.data
        if self._starts_moment(event):
            self._open(event)
        entry = self._current
        assert entry is not None
        if event.type == "action_undone":
            before = {b: list(h) for b, h in state.hands.items()}
            holes = dict(state.hole)
            self._apply(event)
            undone = self._mark_undone(data["undone_from"], data["undone_to"])
            entry.add(undo_parts(undone, before, holes, self.state, data))
            return
        if event.type == "showdown":
            entry.hands = [{"bowler": bowler, "cards": [card_words(c) for c in hand["hand"]],
                            "best": best_cards(state, bowler), "describe": hand["describe"],
                            "won_cents": data["shares"].get(bowler, 0)}
                           for bowler, hand in data["hands"].items()]
        entry.add(describe_event(event, state, entry.mark))
        self._apply(event)
        if event.type == "hole_deepened":
            for part in entry.parts[::-1]:
                if part.key == ("hole", data["bowler"]):
                    part.count = -self.state.hole[data["bowler"]]
                    break
        elif event.type == "card_returned" and data["card"] in self.state.armed:
            entry.add([Part(lambda who, items, count: (
                "the joker goes back armed: whoever draws it next swaps the jokers' powers"),
                key=("armed",), place=2)])

    def _apply(self, event: Event) -> None:
        self.state.apply(event)

    def _starts_moment(self, event: Event) -> bool:
        action = event.data["action"]
        current = self._current
        if current is None or action != self._action:
            return True
        if event.type in ("ball_recorded", "action_undone", "showdown", "match_ending"):
            return True
        return current.kind == "showdown" and event.type in ("payout", "match_settled")

    def _open(self, event: Event) -> None:
        data = event.data
        self._action = data["action"]
        command, actor = data["command"], data["actor"]
        bowler = data.get("bowler") if isinstance(data.get("bowler"), str) else None
        if event.type == "ball_recorded":
            when = where_ball(data["game"], data["frame"], data["ball"], games=self.state.games)
            kind, head = "ball", _ball_head(data, actor, command)
        elif event.type == "match_ending":
            when, kind, head, bowler = "End of the match", "end", "", None
        elif event.type == "showdown":
            when, kind, head, bowler = "Showdown", "showdown", "", None
        elif event.type in ("payout", "match_settled"):
            when, kind, head, bowler = "Result", "result", "", None
        elif event.type == "action_undone":
            when, kind, head, bowler = "At the desk", "desk", "", None
        elif command in _SETUP or event.type == "match_created":
            when, kind, head = "Setting up", "setup", ""
        elif command == "ExpireDecision":
            when, kind, head = f"Time ran out{' for ' + bowler if bowler else ''}", "choice", ""
        elif actor.startswith("bowler:"):
            bowler = actor.removeprefix("bowler:")
            when, kind, head = f"{bowler}'s choice", "choice", ""
        elif command == "CorrectBall" and not actor.startswith("commissioner:"):
            when, kind, head = "The scorer's correction", "desk", ""
        else:
            when, kind, head = "At the desk", "desk", ""
            if command in ("CommissionerConfirmResult", "CommissionerSettleAsHandsStand",
                           "CommissionerVoidMatch", "CommissionerUndoResult"):
                bowler = None
        if kind in ("desk", "setup"):
            bowler = None
        entry = StoryEntry(seq=event.seq, at=_iso(event), when=when, kind=kind, bowler=bowler,
                           head=head, mark=data.get("mark") if kind == "ball" else None)
        self._current = entry
        self._entries.append(entry)
        self._by_action.setdefault(data["action"], []).append(entry)

    def _mark_undone(self, first: int, last: int) -> list[StoryEntry]:
        undone = []
        for entry in self._entries:
            if first <= entry.seq <= last and entry is not self._current:
                entry.undone = True
                undone.append(entry)
        return undone

    def entries(self) -> list[StoryEntry]:
        """The moments told so far that said something."""
        return [entry for entry in self._entries if entry.parts or entry.hands is not None]


def _ball_head(data: dict[str, Any], actor: str, command: str) -> str:
    head = ball_words(data)
    if actor.startswith("commissioner:") and command == "RecordBall":
        head += " (entered at the desk)"
    return head


def match_story(events: Iterable[Event]) -> list[StoryEntry]:
    """The story of a match from its events, in order (the whole log, from its creation)."""
    teller: StoryTeller | None = None
    for event in events:
        if teller is None:
            teller = StoryTeller(MatchState.empty(event.match_id))
        teller.tell(event)
    return teller.entries() if teller is not None else []


def story_json(events: Iterable[Event]) -> list[dict[str, Any]]:
    """:func:`match_story` as JSON-safe entries."""
    return [entry.to_json() for entry in match_story(events)]

