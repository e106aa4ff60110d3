"""The state of one match: a fold of its events, applied in place for fast replay.

>>> state = MatchState.empty("m1")
>>> state.status, state.seq
('new', 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from alley_poker.ledger.errors import InvariantViolation
from alley_poker.ledger.events import Event
from alley_poker.ledger.rules import RuleBook

JOKERS = ("JOKER-A", "JOKER-B")

#: Commands whose effects the commissioner may undo as "the last ledger action".
UNDOABLE_COMMANDS = frozenset({
    "RecordBall", "CorrectBall", "HollandDaze", "DecideLoseCard", "DecideGuess",
    "RecordGuessOutcome", "DecideSteal", "DecideEndDraw", "DecideBuy", "ExpireDecision",
    "CommissionerVoidGuess", "CommissionerApplyReview", "CommissionerDismissReview",
})

# The parts of the state that change during play (what an undo restores).
_CORE = (
    "status", "bowlers", "consents", "pile", "hands", "powers", "armed", "hole", "streak",
    "acquired", "balls", "mark_cards", "first_strike", "balls_recorded", "decisions",
    "reviews", "pot_cents", "paid", "won", "end_stage", "series", "lowest",
    "automatic_winner", "result",
)


class MatchState:
    """Everything known about one match after its events ``1..seq``.

    Cards are strings (``"AS"``, ``"JOKER-A"``); hands keep the order cards were acquired;
    ``pile[0]`` is the top of the draw pile; ``hole`` is 0 or negative (cards owed);
    ``powers`` maps each physical joker to ``"good"``/``"bad"``; ``armed`` holds the jokers in
    the pile whose draw swaps the powers.  Money is in cents: ``paid`` (antes and buys, less
    refunds) and ``won`` per bowler, and ``pot_cents``.
    """

    def __init__(self, match_id: str):
        self.match_id = match_id
        self.seq = 0
        self.status = "new"
        self.rules: RuleBook | None = None
        self.test_mode = False
        self.games = 0
        self.ante_cents = 0
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
        self.checkpoint: tuple[int, dict] | None = None  # (first seq of last action, core)

    @classmethod
    def empty(cls, match_id: str) -> MatchState:
        """The state before ``CreateMatch``."""
        return cls(match_id)

    # --- folding ------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        """Apply one event in place; it must be this match's next event."""
        if event.match_id != self.match_id:
            raise InvariantViolation(
                f"event for match {event.match_id!r} applied to match {self.match_id!r}"
            )
        if event.seq != self.seq + 1:
            raise InvariantViolation(
                f"match {self.match_id}: event seq {event.seq} does not follow {self.seq}"
            )
        handler = _APPLY.get(event.type)
        if handler is None:
            raise InvariantViolation(f"match {self.match_id}: unknown event type {event.type!r}")
        data = event.data
        if data["action"] == event.seq:
            self.checkpoint = (
                (event.seq, self._core_copy()) if data["command"] in UNDOABLE_COMMANDS else None
            )
        try:
            handler(self, data, event)
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            raise InvariantViolation(
                f"match {self.match_id}: event #{event.seq} {event.type} does not fit the "
                f"state: {exc!r}"
            ) from exc
        self.seq = event.seq

    # --- views ----------------------------------------------------------------------------
    def pending_for(self, bowler: str) -> list[dict]:
        """The bowler's open decisions, oldest first."""
        return [d for d in self.decisions.values() if d["bowler"] == bowler]

    def joker_power(self, card: str) -> str | None:
        """``"good"``/``"bad"`` for a physical joker, None for a standard card."""
        return self.powers.get(card)

    def display_card(self, card: str) -> str:
        """A card as a bowler sees it: jokers by their current power (``GJ``/``BJ``)."""
        power = self.powers.get(card)
        if power is None:
            return card
        return "GJ" if power == "good" else "BJ"

    def physical_card(self, text: str) -> str | None:
        """The physical card named by ``text`` (``GJ``/``BJ`` by current power), or None."""
        name = text.strip().upper()
        if name in ("GJ", "BJ"):
            want = "good" if name == "GJ" else "bad"
            return next((j for j, p in self.powers.items() if p == want), None)
        return name

    def holder_of(self, card: str) -> str | None:
        """Who holds ``card`` (None when it is in the pile)."""
        for bowler, hand in self.hands.items():
            if card in hand:
                return bowler
        return None

    def current_game(self, bowler: str) -> int:
        """The game (1-based) the bowler's next ball belongs to; ``games + 1`` when done."""
        for index, balls in enumerate(self.balls[bowler]):
            if not self.game_complete(bowler, index + 1, balls):
                return index + 1
        return self.games + 1

    def game_complete(self, bowler: str, game: int, balls: list[dict] | None = None) -> bool:
        """True when the bowler's game has its last ball (read from the recorded balls)."""
        balls = self.balls[bowler][game - 1] if balls is None else balls
        return bool(balls) and bool(balls[-1].get("completes_game"))

    # --- snapshots ------------------------------------------------------------------------
    def clone(self) -> MatchState:
        """An independent copy (what ``handle`` works on)."""
        other = MatchState(self.match_id)
        other.seq = self.seq
        other.rules = self.rules
        other.test_mode = self.test_mode
        other.games = self.games
        other.ante_cents = self.ante_cents
        other._load_core(self._core_copy())
        other.checkpoint = self.checkpoint
        return other

    def snapshot(self) -> dict[str, Any]:
        """A canonical JSON-safe dict of the whole state (equal states, equal snapshots)."""
        return {
            "match_id": self.match_id,
            "seq": self.seq,
            "rules": self.rules.model_dump() if self.rules else None,
            "test_mode": self.test_mode,
            "games": self.games,
            "ante_cents": self.ante_cents,
            **core_to_json(self._core_copy()),
            "checkpoint": self.checkpoint[0] if self.checkpoint else None,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatchState):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<MatchState {self.match_id} seq={self.seq} status={self.status}>"

    def _core_copy(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "bowlers": list(self.bowlers),
            "consents": set(self.consents),
            "pile": list(self.pile),
            "hands": {b: list(h) for b, h in self.hands.items()},
            "powers": dict(self.powers),
            "armed": set(self.armed),
            "hole": dict(self.hole),
            "streak": {b: (list(s) if s else None) for b, s in self.streak.items()},
            "acquired": {b: [list(a) for a in acq] for b, acq in self.acquired.items()},
            "balls": {b: [list(g) for g in games] for b, games in self.balls.items()},
            "mark_cards": {b: [list(g) for g in games] for b, games in self.mark_cards.items()},
            "first_strike": dict(self.first_strike),
            "balls_recorded": self.balls_recorded,
            "decisions": {i: dict(d) for i, d in self.decisions.items()},
            "reviews": {i: dict(r) for i, r in self.reviews.items()},
            "pot_cents": self.pot_cents,
            "paid": dict(self.paid),
            "won": dict(self.won),
            "end_stage": self.end_stage,
            "series": dict(self.series),
            "lowest": list(self.lowest),
            "automatic_winner": self.automatic_winner,
            "result": self.result,
        }

    def _load_core(self, core: dict[str, Any]) -> None:
        for key in _CORE:
            setattr(self, key, core[key])


def core_to_json(core: dict[str, Any]) -> dict[str, Any]:
    """The JSON-safe form of a core copy (sets sorted, game numbers as text)."""
    out = dict(core)
    out["consents"] = sorted(core["consents"])
    out["armed"] = sorted(core["armed"])
    out["first_strike"] = {str(g): b for g, b in sorted(core["first_strike"].items())}
    return out


def core_from_json(data: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`core_to_json` (fresh containers, safe to mutate)."""
    core = {key: data[key] for key in _CORE}
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
    return core


def replay(match_id: str, events: Iterable[Event]) -> MatchState:
    """Fold a match's events, in order, into its state.

    >>> replay("m1", []).status
    'new'
    """
    state = MatchState.empty(match_id)
    for event in events:
        state.apply(event)
    return state


# --- the fold, one function per event type ----------------------------------------------------
def _match_created(s: MatchState, d: dict, e: Event) -> None:
    if s.status != "new":
        raise ValueError("match already created")
    s.rules = RuleBook.from_dict(d["rules"])
    s.test_mode = d["test_mode"]
    s.games = d["games"]
    s.ante_cents = d["ante_cents"]
    s.status = "open"
    for bowler in d["bowlers"]:
        _seat(s, bowler)


def _seat(s: MatchState, bowler: str) -> None:
    s.bowlers.append(bowler)
    s.hands[bowler] = []
    s.hole[bowler] = 0
    s.streak[bowler] = None
    s.acquired[bowler] = []
    s.balls[bowler] = [[] for _ in range(s.games)]
    s.mark_cards[bowler] = [[] for _ in range(s.games)]
    s.paid[bowler] = 0
    s.won[bowler] = 0


def _consent_recorded(s: MatchState, d: dict, e: Event) -> None:
    s.consents.add(d["bowler"])


def _match_started(s: MatchState, d: dict, e: Event) -> None:
    s.pile = list(d["pile"])
    s.powers = dict(d["powers"])
    for bowler, cents in d["antes"].items():
        s.paid[bowler] += cents
        s.pot_cents += cents
    s.status = "playing"


def _bowler_added(s: MatchState, d: dict, e: Event) -> None:
    _seat(s, d["bowler"])
    s.paid[d["bowler"]] += d["ante_paid"]
    s.pot_cents += d["ante_paid"]


def _bowler_removed(s: MatchState, d: dict, e: Event) -> None:
    bowler = d["bowler"]
    if s.hands[bowler]:
        raise ValueError(f"{bowler} still holds cards")
    s.pot_cents -= d["refund_cents"]
    s.bowlers.remove(bowler)
    s.consents.discard(bowler)
    for table in (s.hands, s.hole, s.streak, s.acquired, s.balls, s.mark_cards, s.paid, s.won):
        del table[bowler]


def _pile_shuffled(s: MatchState, d: dict, e: Event) -> None:
    if sorted(d["order"]) != sorted(s.pile):
        raise ValueError("shuffled order is not the pile's cards")
    s.pile = list(d["order"])


def _card_drawn(s: MatchState, d: dict, e: Event) -> None:
    card, bowler = d["card"], d["bowler"]
    if not s.pile or s.pile[0] != card:
        raise ValueError(f"{card} is not the top of the pile")
    s.pile.pop(0)
    s.hands[bowler].append(card)
    s.acquired[bowler].append([card, "draw"])
    if d["for_ball"] is not None:
        s.mark_cards[bowler][d["for_ball"][0] - 1].append(card)


def _card_taken(s: MatchState, d: dict, e: Event) -> None:
    card, bowler = d["card"], d["bowler"]
    s.hands[d["from_bowler"]].remove(card)
    s.hands[bowler].append(card)
    s.acquired[bowler].append([card, d["via"]])
    if d["for_ball"] is not None:
        s.mark_cards[bowler][d["for_ball"][0] - 1].append(card)


def _card_returned(s: MatchState, d: dict, e: Event) -> None:
    card = d["card"]
    s.hands[d["bowler"]].remove(card)
    s.pile.append(card)
    if card in JOKERS and s.rules.freaky_friday:
        s.armed.add(card)


def _jokers_swapped(s: MatchState, d: dict, e: Event) -> None:
    s.powers = dict(d["powers"])
    s.armed.difference_update(d["disarmed"])


def _nothing(s: MatchState, d: dict, e: Event) -> None:
    """Events that are facts for the audit trail and change no state."""


def _hole_deepened(s: MatchState, d: dict, e: Event) -> None:
    s.hole[d["bowler"]] -= 1


def _hole_paid_off(s: MatchState, d: dict, e: Event) -> None:
    if s.hole[d["bowler"]] >= 0:
        raise ValueError(f"{d['bowler']} is not in the hole")
    s.hole[d["bowler"]] += 1


_BALL_KEYS = ("frame", "ball", "pins", "standing", "foul", "gutter", "split", "mark",
              "gutter_ball", "split_pickup", "cards_due", "bonus", "completes_game",
              "streak_before", "streak_after")


def _ball_recorded(s: MatchState, d: dict, e: Event) -> None:
    ball = {key: d[key] for key in _BALL_KEYS}
    s.balls[d["bowler"]][d["game"] - 1].append(ball)
    s.streak[d["bowler"]] = d["streak_after"]
    if d["bonus"]:
        s.first_strike[d["game"]] = d["bowler"]
    s.balls_recorded += 1


def _ball_corrected(s: MatchState, d: dict, e: Event) -> None:
    bowler, game = d["bowler"], d["game"]
    s.balls[bowler][game - 1] = [dict(b) for b in d["balls"]]
    if any(b["bonus"] for b in d["balls"]):
        s.first_strike[game] = bowler
    elif s.first_strike.get(game) == bowler:
        del s.first_strike[game]
    if d["streak_after"] != "unchanged":
        s.streak[d["bowler"]] = d["streak_after"]


def _holland_daze(s: MatchState, d: dict, e: Event) -> None:
    bowler = d["bowler"]
    if s.hands[bowler]:
        raise ValueError(f"{bowler} still holds cards")
    s.hole[bowler] = 0
    s.streak[bowler] = None
    s.acquired[bowler] = []


def _decision_opened(s: MatchState, d: dict, e: Event) -> None:
    s.decisions[d["id"]] = {
        "id": d["id"], "bowler": d["bowler"], "kind": d["kind"],
        "created_at": _iso(e), "deadline": d["deadline"], "choices": d["choices"],
        "reason": d["reason"], "guess_allowed": d["guess_allowed"], "guess": None,
    }


def _guess_made(s: MatchState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = {"side": d["side"], "at": _iso(e)}
    decision["guess_allowed"] = False


def _guess_resolved(s: MatchState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = {**decision["guess"], "outcome": d["side"], "correct": d["correct"]}


def _guess_voided(s: MatchState, d: dict, e: Event) -> None:
    decision = s.decisions[d["decision_id"]]
    decision["guess"] = None
    decision["guess_allowed"] = False
    decision["guess_voided"] = True


def _decision_closed(s: MatchState, d: dict, e: Event) -> None:
    del s.decisions[d["decision_id"]]


def _review_raised(s: MatchState, d: dict, e: Event) -> None:
    s.reviews[d["id"]] = {key: d[key] for key in
                          ("id", "bowler", "game", "description", "difference", "remedy")}


def _review_closed(s: MatchState, d: dict, e: Event) -> None:
    del s.reviews[d["id"]]


def _match_ending(s: MatchState, d: dict, e: Event) -> None:
    s.status = "ending"
    s.series = dict(d["series"])
    s.lowest = list(d["lowest"])
    s.end_stage = "draws"


def _end_phase(s: MatchState, d: dict, e: Event) -> None:
    s.end_stage = d["stage"]


def _buy_paid(s: MatchState, d: dict, e: Event) -> None:
    s.paid[d["bowler"]] += d["cents"]
    s.pot_cents += d["cents"]


def _automatic_win(s: MatchState, d: dict, e: Event) -> None:
    s.automatic_winner = d["bowler"]


def _showdown(s: MatchState, d: dict, e: Event) -> None:
    s.result = {"winners": list(d["winners"]), "shares": dict(d["shares"]),
                "hands": d["hands"], "automatic": s.automatic_winner is not None}
    s.end_stage = "result"


def _payout(s: MatchState, d: dict, e: Event) -> None:
    s.won[d["bowler"]] += d["cents"]
    s.pot_cents -= d["cents"]


def _match_settled(s: MatchState, d: dict, e: Event) -> None:
    s.status = "settled"


def _result_undone(s: MatchState, d: dict, e: Event) -> None:
    for bowler, cents in d["reversed"].items():
        s.won[bowler] -= cents
        s.pot_cents += cents
    s.status = "ending"
    s.result = None
    s.end_stage = "showdown"


def _match_voided(s: MatchState, d: dict, e: Event) -> None:
    for bowler, cents in d["refunds"].items():
        s.paid[bowler] -= cents
        s.pot_cents -= cents
    s.decisions = {}
    s.status = "void"


def _action_undone(s: MatchState, d: dict, e: Event) -> None:
    s._load_core(core_from_json(d["restored"]))


def _iso(e: Event) -> str:
    return e.at.isoformat().replace("+00:00", "Z")


_APPLY = {
    "match_created": _match_created,
    "consent_recorded": _consent_recorded,
    "match_started": _match_started,
    "bowler_added": _bowler_added,
    "bowler_removed": _bowler_removed,
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
