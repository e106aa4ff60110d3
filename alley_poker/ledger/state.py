"""The state of one match: a fold of its events, applied in place for fast replay.

>>> state = MatchState.empty("m1")
>>> state.status, state.seq
('new', 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from alley_poker.ledger.events import Event
from alley_poker.ledger.fold import (
    APPLY,
    JOKERS,
    FoldedState,
    core_from_json,
    core_to_json,
)
from alley_poker.ledger.ledger_errors import InvariantViolation

__all__ = ["JOKERS", "MatchState", "core_from_json", "core_to_json", "replay"]


#: Commands the commissioner may take back with "undo" when a person at the desk gave them (a
#: ruling, a manual-entry ball, a decision made on a bowler's behalf).  A scorer's ball, a
#: bowler's own choice and the scheduler's expiry are never undone: undo skips past them.
COMMISSIONER_UNDOABLE = frozenset({
    "RecordBall", "CorrectBall", "HollandDaze", "DecideLoseCard", "DecideGuess",
    "RecordGuessOutcome", "DecideSteal", "DecideEndDraw", "DecideBuy",
    "CommissionerVoidGuess", "CommissionerApplyReview", "CommissionerDismissReview",
    "CommissionerDeclineForEveryone",
})

#: Commands that may come after a desk action without ending the chance to undo it: an undo
#: re-applies them, in order, on the state from before the desk action.
REPLAYABLE = frozenset({
    "RecordBall", "HollandDaze", "DecideLoseCard", "DecideGuess", "RecordGuessOutcome",
    "DecideSteal", "DecideEndDraw", "DecideBuy", "ExpireDecision",
})

#: How many later actions an undo may re-apply; past that the desk action is history (a
#: correction or a review item changes it).  Bounds the memory a match keeps for undo.
UNDO_WINDOW = 120

#: Who is the commissioner (what bowlers read as "the desk"): people at the tablet or the
#: manual-entry page.  ``desk:`` is how older event logs named them: read, never written now.
COMMISSIONER_ACTORS = ("commissioner:", "desk:")


def is_commissioner_action(command: str, actor: str) -> bool:
    """True when an action of ``command`` by ``actor`` is one the commissioner may undo.

    >>> is_commissioner_action("HollandDaze", "commissioner:pat")
    True
    >>> is_commissioner_action("HollandDaze", "desk:pat")  # as an older log names them
    True
    >>> (is_commissioner_action("RecordBall", "feed:scorer:lane-3"),
    ...  is_commissioner_action("StartMatch", "commissioner:pat"))
    (False, False)
    """
    return command in COMMISSIONER_UNDOABLE and actor.startswith(COMMISSIONER_ACTORS)



class MatchState(FoldedState):
    """Everything known about one match after its events ``1..seq``.

    Cards are strings (``"AS"``, ``"JOKER-A"``); hands keep the order cards were acquired;
    ``pile[0]`` is the top of the draw pile; ``hole`` is 0 or negative (cards owed);
    ``powers`` maps each physical joker to ``"good"``/``"bad"``; ``armed`` holds the jokers in
    the pile whose draw swaps the powers.  Money is in cents: ``paid`` (antes and buys, less
    refunds) and ``won`` per bowler, and ``pot_cents``.
    """

    @classmethod
    def empty(cls, match_id: str) -> MatchState:
        """The state before ``CreateMatch``."""
        return cls(match_id)

    # --- folding ------------------------------------------------------------------------
    def apply(self, event: Event) -> None:
        """Apply one event in place; it must be this match's next event."""
        self._apply(event, True)

    def _apply(self, event: Event, keep_checkpoint: bool) -> None:
        if event.match_id != self.match_id:
            raise InvariantViolation(
                f"event for match {event.match_id!r} applied to match {self.match_id!r}"
            )
        if event.seq != self.seq + 1:
            raise InvariantViolation(
                f"match {self.match_id}: event seq {event.seq} does not follow {self.seq}"
            )
        handler = APPLY.get(event.type)
        if handler is None:
            raise InvariantViolation(f"match {self.match_id}: unknown event type {event.type!r}")
        data = event.data
        if data["action"] == event.seq:
            self._track_undo_point(data, event.seq, keep_checkpoint)
        point = self.undo_point
        if point is not None:
            (point["own"] if point["action"] == data["action"] else point["later"][-1]).append(
                event)
        try:
            handler(self, data, event)
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            raise InvariantViolation(
                f"match {self.match_id}: event #{event.seq} {event.type} does not fit the "
                f"state: {exc!r}"
            ) from exc
        self.seq = event.seq

    def _track_undo_point(self, data: dict, seq: int, keep_checkpoint: bool) -> None:
        """At the first event of an action: a desk action becomes the one undo would take
        back; a replayable one joins those an undo re-applies; anything else ends the
        chance to undo (an undo, a void, a confirmed result, a feed correction)."""
        command, actor = data["command"], data["actor"]
        point = self.undo_point
        if is_commissioner_action(command, actor):
            self.undo_point = ({"action": seq, "core": self._cheap_checkpoint(), "own": [],
                                "later": []} if keep_checkpoint else None)
        elif point is not None:
            if command in REPLAYABLE and len(point["later"]) < UNDO_WINDOW:
                point["later"].append([])
            else:
                self.undo_point = None

    # --- views ----------------------------------------------------------------------------
    def in_play(self, bowler: str) -> bool:
        """True while the bowler still bowls (not marked gone by the desk)."""
        return bowler not in self.gone

    def contends(self, bowler: str) -> bool:
        """True when the bowler's hand is in the showdown (not folded by leaving)."""
        return self.gone.get(bowler) != "folds"

    def pending_for(self, bowler: str) -> list[dict]:
        """The bowler's open decisions, oldest first."""
        return [d for d in self.decisions.values() if d["bowler"] == bowler]

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
        other.fairness = self.fairness
        other.games = self.games
        other.ante_cents = self.ante_cents
        other.league = self.league        # set once at creation, never changed in place
        other.handicaps = self.handicaps
        other._load_core(self._core_copy())
        point = self.undo_point
        # The clone appends to its own lists: a refused command must leave this state as is.
        other.undo_point = None if point is None else {
            "action": point["action"], "core": point["core"], "own": list(point["own"]),
            "later": [list(events) for events in point["later"]]}
        return other

    def snapshot(self) -> dict[str, Any]:
        """A canonical JSON-safe dict of the whole state (equal states, equal snapshots)."""
        return {
            "match_id": self.match_id,
            "seq": self.seq,
            "rules": self.rules.model_dump() if self.rules else None,
            "test_mode": self.test_mode,
            "fairness": self.fairness,
            "games": self.games,
            "ante_cents": self.ante_cents,
            "league": self.league,
            "handicaps": dict(self.handicaps),
            **core_to_json(self._core_copy()),
            "undo_point": (None if self.undo_point is None else
                           [self.undo_point["action"], len(self.undo_point["later"])]),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MatchState):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<MatchState {self.match_id} seq={self.seq} status={self.status}>"

    def _core_copy(self) -> dict[str, Any]:
        return self._core(
            streak={b: (list(s) if s else None) for b, s in self.streak.items()},
            acquired={b: [list(a) for a in acq] for b, acq in self.acquired.items()},
            balls={b: [list(g) for g in games] for b, games in self.balls.items()},
            mark_cards={b: [list(g) for g in games] for b, games in self.mark_cards.items()},
            reviews={i: dict(r) for i, r in self.reviews.items()})

    def _cheap_checkpoint(self) -> dict[str, Any]:
        """What an undo needs, taken at the start of every desk action, so it must be
        cheap (replay speed).  Ball, acquisition and mark-card lists are append-only (a
        correction or a Holland-daze replaces the list instead), so for them the checkpoint
        keeps the list and its length rather than a copy; :meth:`restorable` slices them."""
        return self._core(
            streak=dict(self.streak),  # streak values are replaced, never changed in place
            acquired={b: (acq, len(acq)) for b, acq in self.acquired.items()},
            balls={b: [(g, len(g)) for g in games] for b, games in self.balls.items()},
            mark_cards={b: [(g, len(g)) for g in gs] for b, gs in self.mark_cards.items()},
            reviews=dict(self.reviews))  # review items are never changed in place

    def _core(self, *, streak: dict, acquired: dict, balls: dict, mark_cards: dict,
              reviews: dict) -> dict[str, Any]:
        """The core state with its containers copied, the parts a copy and a checkpoint
        take differently given; the keys keep this order (an undo event's ``restored``
        is written in it)."""
        return {
            "status": self.status,
            "bowlers": list(self.bowlers),
            "consents": set(self.consents),
            "pile": list(self.pile),
            "hands": {b: list(h) for b, h in self.hands.items()},
            "powers": dict(self.powers),
            "armed": set(self.armed),
            "hole": dict(self.hole),
            "streak": streak,
            "acquired": acquired,
            "balls": balls,
            "mark_cards": mark_cards,
            "first_strike": dict(self.first_strike),
            "balls_recorded": self.balls_recorded,
            "decisions": {i: dict(d) for i, d in self.decisions.items()},
            "reviews": reviews,
            "pot_cents": self.pot_cents,
            "paid": dict(self.paid),
            "won": dict(self.won),
            "end_stage": self.end_stage,
            "series": dict(self.series),
            "lowest": list(self.lowest),
            "automatic_winner": self.automatic_winner,
            "result": self.result,
            "gone": dict(self.gone),
        }

    def restorable(self) -> dict[str, Any] | None:
        """The core state from before the last desk action (None if there is none)."""
        if self.undo_point is None:
            return None
        core = dict(self.undo_point["core"])
        core["acquired"] = {b: [list(a) for a in acq[:n]]
                            for b, (acq, n) in core["acquired"].items()}
        core["balls"] = {b: [g[:n] for g, n in games] for b, games in core["balls"].items()}
        core["mark_cards"] = {b: [g[:n] for g, n in gs] for b, gs in core["mark_cards"].items()}
        core["streak"] = {b: (list(v) if v else None) for b, v in core["streak"].items()}
        return core


def replay(match_id: str, events: Iterable[Event]) -> MatchState:
    """Fold a match's events, in order, into its state.

    >>> replay("m1", []).status
    'new'
    """
    state = MatchState.empty(match_id)
    events = list(events)
    # Only the last desk action's checkpoint can matter (undo is one level deep): skip
    # taking the others.
    last_start = 0
    for index, event in enumerate(events):
        data = event.data
        if isinstance(data, dict) and data.get("action") == event.seq \
                and is_commissioner_action(data.get("command", ""), data.get("actor", "")):
            last_start = index
    for index, event in enumerate(events):
        state._apply(event, index >= last_start)
    return state
