"""Verification by re-execution: run a match anew from its inputs and compare every event.

The inputs of a match are what each command was asked to do (the scorer's balls, the
bowlers' and the desk's choices, the deadlines that passed and the moment of each command:
:mod:`alley_poker.ledger.inputs`) and the revealed seed.  Each command is handed to the
ledger's own :func:`~alley_poker.ledger.decide` on the match as it stood, with the seed as
the only source of cards, and must produce exactly the recorded events — type, time and every
data field.  A recorded event the rules would not have produced (a stacked re-ordering, a
swap that swaps nothing, a payout the rules did not make) is named with what the rules give
instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from alley_poker.fairness.deal import SeededDeal
from alley_poker.ledger import CommandRefused, InvariantViolation, MatchState, decide
from alley_poker.ledger.events import Event, event_to_record
from alley_poker.ledger.inputs import (
    InputError,
    actions,
    command_of_input,
    input_event,
    input_of,
)


class Mismatch(Exception):
    """The first event the inputs do not produce: ``seq``, ``kind`` and what disagrees."""

    def __init__(self, seq: int | None, kind: str | None, problem: str) -> None:
        super().__init__(problem)
        self.seq, self.kind, self.problem = seq, kind, problem


class Rerun:
    """Re-runs a match action by action: :meth:`action` gives the events the rules produce
    for the next recorded action, :meth:`same` compares one recorded event with them.
    ``stated_inputs`` (an export's ``inputs``), when given, must be exactly the inputs the
    log records."""

    def __init__(self, match_id: str, seed: bytes, stated_inputs: list | None = None) -> None:
        self.source = SeededDeal(seed)
        self.stated = stated_inputs
        self.inputs: list[dict[str, Any]] = []

    def action(self, state: MatchState, group: list[Event]) -> list[Event]:
        """The events the rules give for the action whose recorded events are ``group``, on
        ``state`` (the match before it); :class:`Mismatch` if its command cannot be read or
        the rules refuse it."""
        first = group[0]
        try:
            given = input_of(state, group)
            command = command_of_input(given)
        except (InputError, KeyError, TypeError, AttributeError, ValueError) as error:
            raise Mismatch(first.seq, first.type, f"the action's command cannot be read from "
                                                  f"its events: {error}") from None
        if self.stated is not None:
            _same_input(self.stated, len(self.inputs), given, first)
        self.inputs.append(given)
        asked = input_event(group)
        try:
            return decide(state, command, rng=self.source, now=first.at)[0]
        except CommandRefused as refused:
            raise Mismatch(asked.seq, asked.type,
                           f"recorded {_words(given)}, the rules refuse it: {refused.reason}"
                           ) from None
        except InvariantViolation as error:
            raise Mismatch(asked.seq, asked.type,
                           f"recorded {_words(given)}, the rules break: {error}") from None
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
            # A command no scorer or screen could send (a name that is a list, standing
            # pins that are a number): the ledger's commands are typed, the export is not.
            raise Mismatch(asked.seq, asked.type,
                           f"recorded {_words(given)}, which is not a command the rules "
                           f"take: {error!r}") from None

    def same(self, recorded: Event, produced: list[Event], index: int) -> None:
        """The ``index``-th recorded event of an action must be the rules' ``index``-th."""
        if index >= len(produced):
            raise Mismatch(recorded.seq, recorded.type,
                           f"recorded {recorded.type} {_text(_shown(recorded))}, the rules give "
                           "no further event for this action")
        _same_event(recorded, produced[index])

    def end_of_action(self, group: list[Event], produced: list[Event],
                      log: Sequence[Event]) -> None:
        """The rules give no more events for the action than were recorded."""
        if len(produced) > len(group):
            extra = produced[len(group)]
            following = next((e for e in log if e.seq == extra.seq), None)
            raise Mismatch(extra.seq, following.type if following else extra.type,
                           (f"recorded {following.type} of the next action, " if following
                            else "recorded nothing (the log ends), ")
                           + f"the rules give {extra.type} {_text(_shown(extra))} first")

    def finish(self) -> list[dict[str, Any]]:
        if self.stated is not None and len(self.stated) != len(self.inputs):
            raise Mismatch(None, None, f"the export lists {len(self.stated)} inputs; the log "
                                       f"records {len(self.inputs)} actions")
        return self.inputs


def split_actions(events: Sequence[Event]) -> list[list[Event]]:
    """:func:`~alley_poker.ledger.inputs.actions`, with :class:`Mismatch` naming the event."""
    try:
        return actions(events)
    except InputError as error:
        seq = _seq_in(str(error), events)
        raise Mismatch(seq, _kind(events, seq), str(error)) from None


def _same_input(stated: list, index: int, given: dict, first: Event) -> None:
    listed = stated[index] if index < len(stated) else None
    if listed != given:
        raise Mismatch(first.seq, first.type,
                       f"the export's inputs list {_text(listed)} for this action; its events "
                       f"record {_text(given)}")


def _same_event(recorded: Event, produced: Event) -> None:
    if (recorded.type, recorded.at, recorded.data) == (produced.type, produced.at,
                                                      produced.data):
        return
    mine, theirs = event_to_record(recorded), event_to_record(produced)
    if mine["type"] != theirs["type"]:
        raise Mismatch(recorded.seq, recorded.type,
                       f"recorded {recorded.type} {_text(_shown(recorded))}, the rules give "
                       f"{produced.type} {_text(_shown(produced))}")
    if mine["at"] != theirs["at"]:
        raise Mismatch(recorded.seq, recorded.type,
                       f"recorded at {mine['at']}, the rules give {theirs['at']}")
    for key in sorted(set(recorded.data) | set(produced.data)):
        if key not in produced.data or key not in recorded.data \
                or _norm(recorded.data[key]) != _norm(produced.data[key]):
            raise Mismatch(recorded.seq, recorded.type,
                           f"recorded {key} {_text(recorded.data.get(key, '(none)'))}, the "
                           f"rules give {_text(produced.data.get(key, '(none)'))}")


def _norm(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _shown(event: Event) -> dict:
    return {k: v for k, v in event.data.items() if k not in ("actor", "command", "action")}


def _text(value: Any, limit: int = 160) -> str:
    text = _norm(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _words(given: dict) -> str:
    params = ", ".join(f"{k}={_text(v, 60)}" for k, v in given["params"].items())
    return f"{given['command']}({params}) by {given['actor']} at {given['at']}"


def _kind(events: Sequence[Event], seq: int | None) -> str | None:
    return next((e.type for e in events if e.seq == seq), None)


def _seq_in(text: str, events: Sequence[Event]) -> int | None:
    for event in events:
        if text.startswith(f"event #{event.seq} "):
            return event.seq
    return None
