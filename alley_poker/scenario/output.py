"""What a scenario run prints: the JSON contract (``--json``) and a readable summary."""

from __future__ import annotations

from typing import Any

from alley_poker.ledger.state import MatchState
from alley_poker.ledger.views import bowler_view, handicap_view, league_view
from alley_poker.scenario.runner import ScenarioRun

#: Event data keys that are bookkeeping rather than the fact itself.
_BOOKKEEPING = ("actor", "command", "action")


def to_json(run: ScenarioRun) -> dict[str, Any]:
    """The scenario runner's ``--json`` object (a contract: outside checks parse it)."""
    state = run.state
    bowlers = {bowler: bowler_view(state, bowler) for bowler in state.bowlers}
    if state.handicaps:  # a handicap match: each bowler's handicap and both series
        for bowler, entry in bowlers.items():
            entry.update(handicap_view(state, bowler))
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
    out.update(league_view(state))  # "league" and "handicaps", only for a league match
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
        series = (f"   series {entry['scratch_series']} + hdcp {entry['handicap']}/game "
                  f"= {entry['handicap_series']}" if "handicap" in entry else "")
        lines.append(f"  {name:<12} {' '.join(entry['hand']) or '-':<30} {entry['describe']}"
                     f"{hole}   paid {_money(entry['paid_cents'])}"
                     f"   won {_money(entry['won_cents'])}{series}")
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
