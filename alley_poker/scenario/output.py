"""What a scenario run prints: the JSON contract (``--json``) and a readable summary."""

from __future__ import annotations

from typing import Any

from alley_poker.ledger.state import MatchState
from alley_poker.ledger.values import hand_value
from alley_poker.scenario.runner import ScenarioRun

#: Event data keys that are bookkeeping rather than the fact itself.
_BOOKKEEPING = ("actor", "command", "action")


def pending_view(state: MatchState, decision: dict) -> dict[str, Any]:
    """One open decision as the kiosk shows it (choices as they stand now)."""
    bowler, kind = decision["bowler"], decision["kind"]
    if kind == "lose_card":
        choices: Any = [state.display_card(card) for card in state.hands[bowler]]
    elif kind == "steal":
        choices = {b: [state.display_card(card) for card in hand]
                   for b, hand in state.hands.items() if b != bowler and hand}
    else:
        choices = decision["choices"]
    view = {"id": decision["id"], "kind": kind, "reason": decision["reason"],
            "created_at": decision["created_at"], "deadline": decision["deadline"],
            "choices": choices}
    if kind == "lose_card":
        view["guess_allowed"] = decision["guess_allowed"]
        view["guess"] = decision["guess"]
    return view


def to_json(run: ScenarioRun) -> dict[str, Any]:
    """The scenario runner's ``--json`` object (a contract: outside checks parse it)."""
    state = run.state
    bowlers = {}
    for bowler in state.bowlers:
        entry: dict[str, Any] = {
            "hand": [state.display_card(card) for card in state.hands[bowler]],
            "hole": state.hole[bowler],
        }
        if state.status not in ("new", "open"):
            value = hand_value(state, bowler)
            entry.update(category=value.category, describe=value.describe(),
                         unbeatable=value.category == "unbeatable")
        else:
            entry.update(category="no_hand", describe="no cards", unbeatable=False)
        entry.update(
            pending=[pending_view(state, d) for d in state.pending_for(bowler)],
            paid_cents=state.paid[bowler],
            won_cents=state.won[bowler],
        )
        bowlers[bowler] = entry
    result = state.result or {}
    out: dict[str, Any] = {
        "status": state.status,
        "pot_cents": state.pot_cents,
        "pile_count": len(state.pile),
        "jokers": _jokers(state),
        "bowlers": bowlers,
        "winners": list(result.get("winners", [])),
        "shares": dict(result.get("shares", {})),
        "reviews": [dict(review) for review in state.reviews.values()],
        "events": [_event_view(event) for event in run.events],
    }
    if run.error is not None:
        out["error"] = str(run.error)
    return out


def _jokers(state: MatchState) -> dict[str, str]:
    """Each physical joker's power (before the start: as the rule book will deal them)."""
    if state.powers:
        return {joker: state.powers[joker] for joker in sorted(state.powers)}
    if state.rules is None:
        return {}
    good = state.rules.good_joker
    return {joker: ("good" if joker == good else "bad") for joker in ("JOKER-A", "JOKER-B")}


def _event_view(event: Any) -> dict[str, Any]:
    view = {"seq": event.seq, "type": event.type,
            "at": event.at.isoformat().replace("+00:00", "Z")}
    view.update({k: v for k, v in event.data.items() if k not in _BOOKKEEPING})
    view["actor"] = event.data["actor"]
    return view


def to_text(run: ScenarioRun) -> str:
    """A short human summary of the final state."""
    data = to_json(run)
    lines = [f"status: {data['status']}   pot: {_money(data['pot_cents'])}   "
             f"pile: {data['pile_count']} cards   "
             + "  ".join(f"{j}={p}" for j, p in data["jokers"].items())]
    for name, entry in data["bowlers"].items():
        hole = f"  hole {entry['hole']}" if entry["hole"] else ""
        lines.append(f"  {name:<12} {' '.join(entry['hand']) or '-':<30} {entry['describe']}"
                     f"{hole}   paid {_money(entry['paid_cents'])}"
                     f"   won {_money(entry['won_cents'])}")
        for decision in entry["pending"]:
            lines.append(f"      pending {decision['kind']} ({decision['id']}) until "
                         f"{decision['deadline']}")
    for review in data["reviews"]:
        lines.append(f"  review {review['id']}: {review['description']}")
    if data["winners"]:
        lines.append("winners: " + ", ".join(
            f"{w} ({_money(data['shares'].get(w, 0))})" for w in data["winners"]))
    lines.append(f"{len(data['events'])} events")
    return "\n".join(lines)


def _money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"
