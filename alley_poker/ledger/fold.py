"""The fold: how each event type changes a match's state (``MatchState.apply`` dispatches
here).  Every function trusts the event's data (``handle`` made it) and only moves state."""

from __future__ import annotations

from typing import Any

from alley_poker.ledger.events import Event
from alley_poker.ledger.rules import RuleBook

JOKERS = ("JOKER-A", "JOKER-B")

#: The parts of the state that change during play (what an undo restores).
CORE = (
    "status", "bowlers", "consents", "pile", "hands", "powers", "armed", "hole", "streak",
    "acquired", "balls", "mark_cards", "first_strike", "balls_recorded", "decisions",
    "reviews", "pot_cents", "paid", "won", "end_stage", "series", "lowest",
    "automatic_winner", "result", "gone",
)


def core_to_json(core: dict[str, Any]) -> dict[str, Any]:
    """The JSON-safe form of a core copy (sets sorted, game numbers as text)."""
    out = dict(core)
    out["consents"] = sorted(core["consents"])
    out["armed"] = sorted(core["armed"])
    out["first_strike"] = {str(g): b for g, b in sorted(core["first_strike"].items())}
    # Only a match someone left records ``gone``: an undo's ``restored`` is then exactly what
    # it was before the key existed (re-running an older log gives the same event).
    if not out.get("gone"):
        out.pop("gone", None)
    return out


def core_from_json(data: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`core_to_json` (fresh containers, safe to mutate)."""
    # ``gone`` came later: an undo recorded before it restores a match where nobody left.
    core = {key: data[key] if key != "gone" else data.get(key, {}) for key in CORE}
    core["consents"] = set(data["consents"])
    core["armed"] = set(data["armed"])
    core["first_strike"] = {int(g): b for g, b in data["first_strike"].items()}
    core["bowlers"] = list(data["bowlers"])
    core["pile"] = list(data["pile"])
    core["hands"] = {b: list(h) for b, h in data["hands"].items()}
    core["powers"] = dict(data["powers"])
    core["hole"] = dict(data["hole"])
    core["streak"] = {b: (list(s) if s else None) for b, s in data["streak"].items()}
    core["acquired"] = {b: [list(a) for a in acq] for b, acq in data["acquired"].items()}
    core["balls"] = {b: [list(g) for g in games] for b, games in data["balls"].items()}
    core["mark_cards"] = {b: [list(g) for g in gs] for b, gs in data["mark_cards"].items()}
    core["decisions"] = {i: dict(d) for i, d in data["decisions"].items()}
    core["reviews"] = {i: dict(r) for i, r in data["reviews"].items()}
    core["paid"] = dict(data["paid"])
    core["won"] = dict(data["won"])
    core["series"] = dict(data["series"])
    core["lowest"] = list(data["lowest"])
    core["gone"] = dict(core["gone"])
    return core


class FoldedState:
    """The data of a match that the fold writes.  :class:`~alley_poker.ledger.state.MatchState`
    adds what is done with it (apply, clone, snapshot, invariants); the fold knows only this
    part, so the two modules do not import each other."""

    def __init__(self, match_id: str):
        self.match_id = match_id
        self.seq = 0
        self.status = "new"
        self.rules: RuleBook | None = None
        self.test_mode = False
        # {"scheme", "commitment", "salt", "seed" (hex once revealed)}; None: not committed.
        self.fairness: dict[str, str | None] | None = None
        self.games = 0
        self.ante_cents = 0
        self.league: dict[str, Any] | None = None   # a league match's tag (match_created)
        self.handicaps: dict[str, int] = {}         # pins per game, by seat name
        self.bowlers: list[str] = []
        self.consents: set[str] = set()
        self.pile: list[str] = []
        self.hands: dict[str, list[str]] = {}
        self.powers: dict[str, str] = {}
        self.armed: set[str] = set()
        self.hole: dict[str, int] = {}
        self.streak: dict[str, list | None] = {}      # [kind, cards of the last mark]
        self.acquired: dict[str, list[list[str]]] = {}  # [card, via] since start/Holland-daze
        self.balls: dict[str, list[list[dict]]] = {}    # per bowler, per game
        self.mark_cards: dict[str, list[list[str]]] = {}  # cards dealt for marks, per game
        self.first_strike: dict[int, str] = {}
        self.balls_recorded = 0
        self.decisions: dict[str, dict] = {}             # open decisions, oldest first
        self.reviews: dict[str, dict] = {}               # open review items
        self.pot_cents = 0
        self.paid: dict[str, int] = {}
        self.won: dict[str, int] = {}
        self.end_stage: str | None = None
        self.series: dict[str, int] = {}
        self.lowest: list[str] = []
        self.automatic_winner: str | None = None
        self.result: dict | None = None
        # Bowlers the desk marked gone after they had bowled: name -> "keeps_hand"/"folds".
        self.gone: dict[str, str] = {}
        # The last desk action that may be undone: {"action": its first seq, "core": the
        # state before it, "own": its events, "later": the events of each action since}.
        self.undo_point: dict[str, Any] | None = None

    def _load_core(self, core: dict[str, Any]) -> None:
        for key in CORE:
            setattr(self, key, core[key])


def _match_created(s: FoldedState, d: dict, e: Event) -> None:
    if s.status != "new":
        raise ValueError("match already created")
    s.rules = RuleBook.from_dict(d["rules"])
    s.test_mode = d["test_mode"]
    s.games = d["games"]
    s.ante_cents = d["ante_cents"]
    s.league = d.get("league")            # both tags are absent from matches made before
    s.handicaps = dict(d.get("handicaps") or {})
    s.status = "open"
    for bowler in d["bowlers"]:
        _seat(s, bowler)


def _seat(s: FoldedState, bowler: str) -> None:
    s.bowlers.append(bowler)
    s.hands[bowler] = []
    s.hole[bowler] = 0
    s.streak[bowler] = None
    s.acquired[bowler] = []
    s.balls[bowler] = [[] for _ in range(s.games)]
    s.mark_cards[bowler] = [[] for _ in range(s.games)]
    s.paid[bowler] = 0
    s.won[bowler] = 0


def _consent_recorded(s: FoldedState, d: dict, e: Event) -> None:
    s.consents.add(d["bowler"])


def _match_started(s: FoldedState, d: dict, e: Event) -> None:
    s.pile = list(d["pile"])
    s.powers = dict(d["powers"])
    for bowler, cents in d["antes"].items():
        s.paid[bowler] += cents
        s.pot_cents += cents
    s.status = "playing"


def _bowler_added(s: FoldedState, d: dict, e: Event) -> None:
    _seat(s, d["bowler"])
    s.paid[d["bowler"]] += d["ante_paid"]
    s.pot_cents += d["ante_paid"]


def _bowler_removed(s: FoldedState, d: dict, e: Event) -> None:
    bowler = d["bowler"]
    if s.hands[bowler]:
        raise ValueError(f"{bowler} still holds cards")
    s.pot_cents -= d["refund_cents"]
    s.bowlers.remove(bowler)
    s.consents.discard(bowler)
    for table in (s.hands, s.hole, s.streak, s.acquired, s.balls, s.mark_cards, s.paid, s.won):
        del table[bowler]


def _bowler_gone(s: FoldedState, d: dict, e: Event) -> None:
    bowler = d["bowler"]
    if bowler not in s.hands or bowler in s.gone:
        raise ValueError(f"{bowler} is not a bowler still in the match")
    if d["outcome"] != "removed":   # a removal is bowler_removed's, which follows
        s.gone[bowler] = d["outcome"]


def _pile_shuffled(s: FoldedState, d: dict, e: Event) -> None:
    if sorted(d["order"]) != sorted(s.pile):
        raise ValueError("shuffled order is not the pile's cards")
    s.pile = list(d["order"])


def _card_drawn(s: FoldedState, d: dict, e: Event) -> None:
    card, bowler = d["card"], d["bowler"]
    if not s.pile or s.pile[0] != card:
        raise ValueError(f"{card} is not the top of the pile")
    s.pile.pop(0)
    s.hands[bowler].append(card)
    s.acquired[bowler].append([card, "draw"])
    if d["for_ball"] is not None:
        s.mark_cards[bowler][d["for_ball"][0] - 1].append(card)


def _card_taken(s: FoldedState, d: dict, e: Event) -> None:
    card, bowler = d["card"], d["bowler"]
    s.hands[d["from_bowler"]].remove(card)
    s.hands[bowler].append(card)
    s.acquired[bowler].append([card, d["via"]])
    if d["for_ball"] is not None:
        s.mark_cards[bowler][d["for_ball"][0] - 1].append(card)


def _card_returned(s: FoldedState, d: dict, e: Event) -> None:
    card = d["card"]
    s.hands[d["bowler"]].remove(card)
    s.pile.append(card)
    if card in JOKERS and s.rules.freaky_friday:
        s.armed.add(card)


def _jokers_swapped(s: FoldedState, d: dict, e: Event) -> None:
    s.powers = dict(d["powers"])
    s.armed.difference_update(d["disarmed"])


def _nothing(s: FoldedState, d: dict, e: Event) -> None:
    """Events that are facts for the audit trail and change no state."""


def _hole_deepened(s: FoldedState, d: dict, e: Event) -> None:
    s.hole[d["bowler"]] -= 1


def _hole_paid_off(s: FoldedState, d: dict, e: Event) -> None:
    if s.hole[d["bowler"]] >= 0:
        raise ValueError(f"{d['bowler']} is not in the hole")
    s.hole[d["bowler"]] += 1


_BALL_KEYS = ("frame", "ball", "pins", "standing", "foul", "gutter", "split", "mark",
              "gutter_ball", "split_pickup", "cards_due", "bonus", "completes_game",
              "streak_before", "streak_after")


def _ball_recorded(s: FoldedState, d: dict, e: Event) -> None:
    ball = {key: d[key] for key in _BALL_KEYS}
    s.balls[d["bowler"]][d["game"] - 1].append(ball)
    s.streak[d["bowler"]] = d["streak_after"]
    if d["bonus"]:
        s.first_strike[d["game"]] = d["bowler"]
    s.balls_recorded += 1


def _ball_corrected(s: FoldedState, d: dict, e: Event) -> None:
    bowler, game = d["bowler"], d["game"]
    s.balls[bowler][game - 1] = [dict(b) for b in d["balls"]]
    if any(b["bonus"] for b in d["balls"]):
        s.first_strike[game] = bowler
    elif s.first_strike.get(game) == bowler:
        del s.first_strike[game]
    if d["streak_after"] != "unchanged":
        s.streak[d["bowler"]] = d["streak_after"]


def _holland_daze(s: FoldedState, d: dict, e: Event) -> None:
    bowler = d["bowler"]
    if s.hands[bowler]:
        raise ValueError(f"{bowler} still holds cards")
    s.hole[bowler] = 0
    s.streak[bowler] = None
    s.acquired[bowler] = []


def _decision_opened(s: FoldedState, d: dict, e: Event) -> None:
    s.decisions[d["id"]] = {
        "id": d["id"], "bowler": d["bowler"], "kind": d["kind"],
        "created_at": _iso(e), "deadline": d["deadline"], "choices": d["choices"],
        "reason": d["reason"], "guess_allowed": d["guess_allowed"], "guess": None,
    }


def _guess_made(s: FoldedState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = {"side": d["side"], "at": _iso(e)}
    decision["guess_allowed"] = False


def _guess_resolved(s: FoldedState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = {**decision["guess"], "outcome": d["side"], "correct": d["correct"]}


def _guess_voided(s: FoldedState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = None
    decision["guess_allowed"] = False
    decision["guess_voided"] = True


def _decision_closed(s: FoldedState, d: dict, e: Event) -> None:
    del s.decisions[d["decision_id"]]


def _review_raised(s: FoldedState, d: dict, e: Event) -> None:
    s.reviews[d["id"]] = {key: d[key] for key in
                          ("id", "bowler", "game", "description", "difference", "remedy")}


def _review_closed(s: FoldedState, d: dict, e: Event) -> None:
    del s.reviews[d["id"]]


def _match_ending(s: FoldedState, d: dict, e: Event) -> None:
    s.status = "ending"
    s.series = dict(d["series"])
    s.lowest = list(d["lowest"])
    s.end_stage = "draws"


def _end_phase(s: FoldedState, d: dict, e: Event) -> None:
    s.end_stage = d["stage"]


def _buy_paid(s: FoldedState, d: dict, e: Event) -> None:
    s.paid[d["bowler"]] += d["cents"]
    s.pot_cents += d["cents"]


def _automatic_win(s: FoldedState, d: dict, e: Event) -> None:
    s.automatic_winner = d["bowler"]


def _showdown(s: FoldedState, d: dict, e: Event) -> None:
    s.result = {"winners": list(d["winners"]), "shares": dict(d["shares"]),
                "hands": d["hands"], "automatic": s.automatic_winner is not None}
    s.end_stage = "result"


def _payout(s: FoldedState, d: dict, e: Event) -> None:
    s.won[d["bowler"]] += d["cents"]
    s.pot_cents -= d["cents"]


def _match_settled(s: FoldedState, d: dict, e: Event) -> None:
    s.status = "settled"


def _result_undone(s: FoldedState, d: dict, e: Event) -> None:
    for bowler, cents in d["reversed"].items():
        s.won[bowler] -= cents
        s.pot_cents += cents
    s.status = "ending"
    s.result = None
    s.end_stage = "showdown"


def _deal_committed(s: FoldedState, d: dict, e: Event) -> None:
    if s.fairness is not None:
        raise ValueError("the deal is already committed")
    s.fairness = {"scheme": d["scheme"], "commitment": d["commitment"], "salt": d["salt"],
                  "seed": None}


def _seed_revealed(s: FoldedState, d: dict, e: Event) -> None:
    if s.fairness is None:
        raise ValueError("a seed revealed for a match that committed none")
    s.fairness = {**s.fairness, "seed": d["seed"]}  # replaced: clones may share the dict


def _match_voided(s: FoldedState, d: dict, e: Event) -> None:
    for bowler, cents in d["refunds"].items():
        s.paid[bowler] -= cents
        s.pot_cents -= cents
    s.decisions = {}
    s.status = "void"


def _action_undone(s: FoldedState, d: dict, e: Event) -> None:
    s._load_core(core_from_json(d["restored"]))


def _iso(e: Event) -> str:
    return e.at.isoformat().replace("+00:00", "Z")


APPLY = {
    "match_created": _match_created,
    "consent_recorded": _consent_recorded,
    "match_started": _match_started,
    "deal_committed": _deal_committed,
    "seed_revealed": _seed_revealed,
    "bowler_added": _bowler_added,
    "bowler_removed": _bowler_removed,
    "bowler_gone": _bowler_gone,
    "pile_shuffled": _pile_shuffled,
    "pile_stacked": _pile_shuffled,
    "card_drawn": _card_drawn,
    "card_taken": _card_taken,
    "card_returned": _card_returned,
    "jokers_swapped": _jokers_swapped,
    "draw_skipped": _nothing,
    "hole_deepened": _hole_deepened,
    "hole_paid_off": _hole_paid_off,
    "ball_recorded": _ball_recorded,
    "ball_corrected": _ball_corrected,
    "holland_daze": _holland_daze,
    "decision_opened": _decision_opened,
    "guess_made": _guess_made,
    "guess_resolved": _guess_resolved,
    "guess_voided": _guess_voided,
    "decision_closed": _decision_closed,
    "review_raised": _review_raised,
    "review_closed": _review_closed,
    "match_ending": _match_ending,
    "end_phase": _end_phase,
    "buy_paid": _buy_paid,
    "automatic_win": _automatic_win,
    "showdown": _showdown,
    "payout": _payout,
    "match_settled": _match_settled,
    "result_undone": _result_undone,
    "match_voided": _match_voided,
    "action_undone": _action_undone,
}
