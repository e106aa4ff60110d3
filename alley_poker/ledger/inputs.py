"""A match's inputs: the command behind each action of its log, as JSON and back.

Every event's data names the ``command`` that produced it and its ``action`` (the seq of that
command's first event), so a log is a list of *actions*, one per command.  What the command
was asked to do — the scorer's ball, the bowler's choice, the desk's ruling, the deadline
that passed (its moment is the action's ``at``) — is recorded in its first events; everything
else the command emitted is a *consequence* the rules derive (cards dealt, decisions opened,
the showdown, payouts, the seed revealed).  :func:`action_inputs` reads the inputs back out of
a log, and :func:`command_of_input` turns one into the command again, so a verifier can run
the match anew through :func:`~alley_poker.ledger.decide` and compare every event
(docs/fairness.md §6, "Inputs and consequences").

An input is ``{"action", "command", "actor", "at", "params"}``; ``params`` are the command's
fields (``actor`` aside), JSON-safe.

>>> from datetime import datetime, timezone
>>> from alley_poker.ledger.events import Event
>>> at = datetime(2026, 3, 6, 19, 0, tzinfo=timezone.utc)
>>> ball = Event("m1", 7, "ball_recorded", at, {
...     "bowler": "Ann", "game": 1, "frame": 1, "ball": 1, "pins": 10, "standing": [],
...     "foul": False, "gutter": None, "split": None, "actor": "feed:lane-1",
...     "command": "RecordBall", "action": 7})
>>> record = input_of(None, [ball])
>>> record["command"], record["params"]["pins"], record["at"]
('RecordBall', 10, '2026-03-06T19:00:00Z')
>>> command_of_input(record)
RecordBall(bowler='Ann', game=1, pins=10, standing=[], foul=False, gutter=None, split=None, \
actor='feed:lane-1')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alley_poker.ledger import commands as c
from alley_poker.ledger.context import iso
from alley_poker.ledger.events import Event
from alley_poker.ledger.state import MatchState

#: The commands a log can hold, by the name its events record.
COMMANDS: dict[str, type[c.Command]] = {
    cls.__name__: cls for cls in vars(c).values()
    if isinstance(cls, type) and issubclass(cls, c.Command) and cls is not c.Command
}

#: For each command, the event that carries what it was asked to do (besides its ``at`` and
#: ``actor``); every other event of the action is a consequence.
INPUT_EVENTS: dict[str, str] = {
    "CreateMatch": "match_created", "ConsentToAnte": "consent_recorded",
    "StartMatch": "match_started", "StackPile": "pile_stacked",
    "RecordBall": "ball_recorded", "CorrectBall": "ball_corrected",
    "HollandDaze": "holland_daze", "DecideLoseCard": "card_returned",
    "DecideGuess": "guess_made", "RecordGuessOutcome": "guess_resolved",
    "DecideSteal": "card_taken", "DecideEndDraw": "decision_closed",
    "DecideBuy": "decision_closed", "ExpireDecision": "decision_closed",
    "CommissionerAddBowler": "bowler_added", "CommissionerRemoveBowler": "bowler_removed",
    "CommissionerBowlerGone": "bowler_gone",
    "CommissionerVoidGuess": "guess_voided", "CommissionerApplyReview": "review_closed",
    "CommissionerDismissReview": "review_closed",
    "CommissionerUndoLastAction": "action_undone", "CommissionerVoidMatch": "match_voided",
    "CommissionerConfirmResult": "match_settled", "CommissionerUndoResult": "result_undone",
    "CommissionerSettleAsHandsStand": "match_settled",
    "CommissionerDeclineForEveryone": "decision_closed",
}


class InputError(ValueError):
    """An action whose events do not say what its command was (the message says why)."""


def actions(events: Sequence[Event]) -> list[list[Event]]:
    """The log cut into actions: runs of events with the same ``action``, each starting at
    the event whose seq is its ``action`` (:class:`InputError` names one that does not)."""
    found: list[list[Event]] = []
    for event in events:
        action = event.data.get("action")
        if action == event.seq:
            found.append([event])
        elif found and action == found[-1][0].seq:
            found[-1].append(event)
        else:
            raise InputError(f"event #{event.seq} ({event.type}) names action {action!r}, "
                             "but it does not follow that action's events")
    return found


def input_event(events: list[Event]) -> Event:
    """The event of an action that carries what its command was asked (else its first)."""
    wanted = INPUT_EVENTS.get(events[0].data.get("command"))
    return next((e for e in events if e.type == wanted), events[0])


def input_of(state: MatchState | None, events: list[Event]) -> dict[str, Any]:
    """The input of one action: what its command was asked (``state``: the match before it,
    needed only to name the card a bowler chose and the ball a correction changed)."""
    first = events[0]
    name, actor = first.data.get("command"), first.data.get("actor")
    if name not in COMMANDS:
        raise InputError(f"event #{first.seq} ({first.type}) names no known command: {name!r}")
    wanted = INPUT_EVENTS[name]
    found = next((e for e in events if e.type == wanted), None)
    if found is None:
        raise InputError(f"action #{first.seq} ({name}) has no {wanted} event saying what "
                         "was asked")
    params = _params(name, found.data, state, events)
    return {"action": first.seq, "command": name, "actor": actor, "at": iso(first.at),
            "params": params}


def action_inputs(match_id: str, events: Sequence[Event]) -> list[dict[str, Any]]:
    """Every action's input, in order (the export's ``inputs``)."""
    state = MatchState.empty(match_id)
    found = []
    for group in actions(events):
        found.append(input_of(state, group))
        for event in group:
            state.apply(event)
    return found


def command_of_input(record: dict[str, Any]) -> c.Command:
    """The command an input names (:class:`InputError` if it names none or its fields are
    wrong)."""
    cls = COMMANDS.get(record.get("command"))
    params = record.get("params")
    if cls is None or not isinstance(params, dict):
        raise InputError(f"action #{record.get('action')}: no command {record.get('command')!r}")
    try:
        return cls(**params, actor=record.get("actor"))
    except TypeError as exc:
        raise InputError(f"action #{record.get('action')}: {exc}") from None


def _params(name: str, d: dict, state: MatchState | None, events: list[Event]) -> dict:
    closed = next((e.data for e in events if e.type == "decision_closed"), None)
    decision = closed["decision_id"] if closed else None
    if name == "CreateMatch":
        params = {"match_id": events[0].match_id, "bowlers": d["bowlers"],
                  "games": d["games"], "ante_cents": d["ante_cents"], "rules": d["rules"],
                  "test_mode": d["test_mode"]}
        params.update({key: d[key] for key in ("league", "handicaps") if key in d})
        return params
    if name == "ConsentToAnte":
        return {"bowler": d["bowler"]}
    if name in ("StartMatch", "CommissionerVoidMatch", "CommissionerConfirmResult",
                "CommissionerUndoResult", "CommissionerSettleAsHandsStand"):
        return {} if name == "StartMatch" else {"reason": d["reason"]}
    if name == "StackPile":
        return {"cards": list(d["order"])}
    if name == "RecordBall":
        return {"bowler": d["bowler"], "game": d["game"], "pins": d["pins"],
                "standing": d["standing"], "foul": d["foul"], "gutter": d["gutter"],
                "split": d["split"]}
    if name == "CorrectBall":
        return _correction(d, state)
    if name == "HollandDaze":
        return {"bowler": d["bowler"], "reason": d["reason"]}
    if name == "DecideLoseCard":
        return {"bowler": _decider(state, decision, d["bowler"]),
                "card": _shown(state, d["card"]), "decision_id": decision}
    if name == "DecideGuess":
        return {"bowler": d["bowler"], "side": d["side"], "decision_id": d["decision_id"]}
    if name == "RecordGuessOutcome":
        return {"bowler": d["bowler"], "side": d["side"], "decision_id": d["decision_id"]}
    if name == "DecideSteal":
        return {"bowler": _decider(state, decision, d["bowler"]),
                "from_bowler": d["from_bowler"], "card": _shown(state, d["card"]),
                "decision_id": decision}
    if name in ("DecideEndDraw", "DecideBuy"):
        return {"bowler": _decider(state, d["decision_id"], d["bowler"]),
                "accept": d["outcome"] == "accepted", "decision_id": d["decision_id"]}
    if name == "ExpireDecision":
        return {"decision_id": d["decision_id"]}
    if name == "CommissionerDeclineForEveryone":
        declined = state.decisions.get(decision) if state is not None else None
        if not isinstance(declined, dict):
            raise InputError(f"action #{events[0].seq} declines decision {decision}, which "
                             "was not open")
        return {"kind": declined["kind"]}
    if name in ("CommissionerAddBowler", "CommissionerRemoveBowler"):
        return {"bowler": d["bowler"]}  # the reason is not recorded: it changes nothing
    if name == "CommissionerBowlerGone":
        return {"bowler": d["bowler"], "reason": d["reason"]}
    if name == "CommissionerVoidGuess":
        return {"bowler": d["bowler"], "reason": d["reason"], "decision_id": d["decision_id"]}
    if name in ("CommissionerApplyReview", "CommissionerDismissReview"):
        return {"review_id": d["id"], "reason": d["reason"]}
    if name == "CommissionerUndoLastAction":
        return {"reason": d["reason"], "action": d["undone_from"]}
    raise InputError(f"{name} is not a command a log can hold")  # pragma: no cover


def _decider(state: MatchState | None, decision_id: Any, recorded: str) -> str:
    """Whose decision it is: the open decision's bowler (what the bowler chose is the input;
    who the decision belongs to follows from the log), else the one the events name."""
    open_ = state.decisions.get(decision_id) if state is not None else None
    return open_["bowler"] if isinstance(open_, dict) else recorded


def _shown(state: MatchState | None, card: str) -> str:
    """A card as the bowler names it (a joker by its power then)."""
    return state.display_card(card) if state is not None else card


_RAW = ("pins", "standing", "foul", "gutter", "split")


def _correction(d: dict, state: MatchState | None) -> dict:
    """The one ball a ``ball_corrected`` changed: the first whose raw reading differs from
    the recorded game before it (or the first ball whose score differs)."""
    new = d["balls"] if isinstance(d["balls"], list) else []
    old = []
    if state is not None and d["bowler"] in state.balls and isinstance(d["game"], int) \
            and 1 <= d["game"] <= len(state.balls[d["bowler"]]):
        old = state.balls[d["bowler"]][d["game"] - 1]
    pairs = list(zip(old, new, strict=False))
    index = next((i for i, (a, b) in enumerate(pairs)
                  if any(a.get(k) != b.get(k) for k in _RAW)),
                 next((i for i, (a, b) in enumerate(pairs) if a != b), 0))
    if index >= len(new) or index >= len(old):
        raise InputError("the correction names no recorded ball")
    before, after = old[index], new[index]
    return {"bowler": d["bowler"], "game": d["game"], "frame": before["frame"],
            "ball": before["ball"], **{k: after.get(k) for k in _RAW}, "reason": d["reason"]}

