"""Exports of varied matches, and their mutants, for the verifiers (no pytest needed).

``varied_exports(n, seed)`` plays ``n`` matches in memory through the ledger with fair
dealing (a seed per match), choosing balls, choices and desk actions at random but so that
the set holds every kind of event a verifier must follow: jokers swapped, reshuffles,
courtesy draws, gutter losses and steals, a ball entered at the desk and undone with the
later cards dealt as before (an ``undo:`` re-ordering), corrections and review items, buys
and end draws, expired deadlines, voids and settlements.  Each export is exactly what
``alley-poker export`` writes (docs/fairness.md §6), version 2 with its ``inputs``.

``mutants(export)`` yields ``(description, field_kind, mutated_export)``: for every event and
every card-, power-, money-, seat- or pins-bearing field of it, one change, re-chained (the
chain head and the inputs recomputed, as an insider rewriting the database would get from
``alley-poker export``).  ``outcome(export)`` is what the match paid and to whom.

Used by tests/test_fair_mutants.py and by the browser verifier's agreement test.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from alley_poker.cards import FULL_DECK
from alley_poker.fairness import chain
from alley_poker.fairness.deal import SeededDeal
from alley_poker.ledger import CommandRefused, MatchState, decide, event_from_record
from alley_poker.ledger import commands as c
from alley_poker.ledger.events import event_to_record
from alley_poker.ledger.games import rebuild_game
from alley_poker.ledger.inputs import action_inputs
from alley_poker.verifier.verify import EXPORT_FORMAT, EXPORT_VERSION

START = datetime(2026, 3, 6, 19, 0, tzinfo=UTC)
DESK = "commissioner:pat"
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
CARDS = sorted((str(card) for card in FULL_DECK), key=lambda card: card.encode())

#: What each match of a cycle stresses (the n-th match takes ``PLANS[n % len(PLANS)]``).
PLANS = ("undo", "drain", "void", "correct", "drain", "undo", "plain", "settle_early")


class _Bot:
    """One match played at random through ``decide``, in memory."""

    def __init__(self, match_id: str, rng: random.Random, plan: str, day: int,
                 gutter_detection: str | None = None) -> None:
        self.rng, self.plan = rng, plan
        #: A house's gutter rule; with one, the scorer also flags some 0s "not a gutter".
        self.gutter_detection = gutter_detection
        self.deal = SeededDeal(bytes(rng.getrandbits(8) for _ in range(32)))
        self.now = START + timedelta(days=day, seconds=rng.randrange(3600))
        self.state = MatchState.empty(match_id)
        self.events: list = []
        self.undone = False
        self.hold: str | None = None  # the bowler whose desk-entered ball is to be undone

    def do(self, command: c.Command, seconds: int = 7) -> bool:
        self.now += timedelta(seconds=seconds)
        try:
            events, self.state = decide(self.state, command, rng=self.deal, now=self.now)
        except CommandRefused:
            return False
        self.events.extend(events)
        return True

    def play(self) -> None:
        rng, match_id = self.rng, self.state.match_id
        bowlers = list(NAMES[:rng.randint(2, 4 if self.plan != "drain" else 5)])
        rules: dict[str, Any] = {"strike_cards": 4 if self.plan == "drain" else 2,
                                 "good_joker": rng.choice(["JOKER-A", "JOKER-B"])}
        if self.gutter_detection:
            rules["gutter_detection"] = self.gutter_detection
        self.do(c.CreateMatch(match_id, bowlers, 1, rules=rules, actor=DESK))
        for bowler in bowlers:
            self.do(c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
        self.do(c.StartMatch(actor=DESK))
        strike = 0.55 if self.plan == "drain" else 0.3
        stop_at = rng.randint(4, 8) if self.plan in ("void", "settle_early") else None
        balls = 0
        while self.state.status == "playing":
            bowler = min((b for b in bowlers if b != self.hold),
                         key=lambda b: (self.state.current_game(b), len(self._balls(b)),
                                        bowlers.index(b)))
            if self.state.current_game(bowler) > self.state.games:
                break
            self._ball(bowler, strike, balls)
            balls += 1
            self._decisions()
            if stop_at is not None and balls >= stop_at * len(bowlers):
                break
        self._finish()

    def _balls(self, bowler: str) -> list:
        game = self.state.current_game(bowler)
        return self.state.balls[bowler][game - 1] if game <= self.state.games else []

    def _ball(self, bowler: str, strike: float, count: int) -> None:
        rng = self.rng
        game = rebuild_game(self._balls(bowler))
        up = game.standing_count
        pins = up if rng.random() < strike else rng.randint(0, max(0, up - 1))
        # The undo plan: a strike entered at the desk at the start of a frame, five balls
        # by the others (strikes and gutter balls: they draw and lose cards), then the desk
        # undoes its ball: the others' cards are dealt as before (an undo re-ordering).
        desk = (self.plan == "undo" and not self.undone and self.hold is None and count >= 6
                and game.at_full_rack and game.current_ball == 1)
        if desk or self.hold is not None:
            pins = up
        if self.hold is not None and count % 2 and game.at_full_rack:
            pins = 0  # a gutter ball: its lost card is reshuffled in, and again by the undo
        gutter = True if pins == 0 and (self.hold is not None or rng.random() < 0.6) else None
        if self.gutter_detection and pins == 0 and not gutter:
            gutter = rng.choice([False, None])  # the scorer says "not a gutter", or nothing
        split = True if (pins < up and game.at_full_rack and rng.random() < 0.3) else None
        actor = DESK if desk else f"feed:lane-{1 + self.state.bowlers.index(bowler) // 2}"
        done = self.do(c.RecordBall(bowler, None, pins, gutter=gutter, split=split,
                                    actor=actor), seconds=rng.randint(20, 90))
        if desk and done:
            self.hold, self.held_at = bowler, count
        elif self.hold is not None and count >= self.held_at + 5:
            self.undone = self.do(c.CommissionerUndoLastAction(reason="wrong lane's ball",
                                                               actor=DESK))
            self.hold = None
        if self.plan == "correct" and count in (5, 11):
            self._correct(bowler)

    def _correct(self, bowler: str) -> None:
        done = self._balls(bowler)
        if not done:
            return
        target = self.rng.choice(done)
        for pins in self.rng.sample(range(11), 11):
            if pins != target["pins"] and self.do(c.CorrectBall(
                    bowler, target.get("game", self.state.current_game(bowler)),
                    target["frame"], target["ball"], pins, reason="scorer misread",
                    actor="feed:lane-1")):
                break
        for review in list(self.state.reviews):
            if self.rng.random() < 0.7:
                self.do(c.CommissionerApplyReview(review, actor=DESK))
            else:
                self.do(c.CommissionerDismissReview(review, actor=DESK))

    def _decisions(self) -> None:
        rng = self.rng
        for _ in range(40):
            if not self.state.decisions or self.state.status not in ("playing", "ending"):
                return
            decision = next(iter(self.state.decisions.values()))
            bowler, kind, did = decision["bowler"], decision["kind"], decision["id"]
            me = f"bowler:{bowler}"
            roll = rng.random()
            if roll < 0.15:
                self.do(c.ExpireDecision(decision_id=did),
                        seconds=self.state.rules.deadline_s(kind) + 5)
            elif kind == "lose_card":
                hand = [self.state.display_card(card) for card in self.state.hands[bowler]]
                if decision.get("guess_allowed") and roll < 0.45:
                    side = rng.choice(["left", "right"])
                    self.do(c.DecideGuess(bowler, side, decision_id=did, actor=me))
                    self.do(c.RecordGuessOutcome(bowler, rng.choice(["left", "right"]),
                                                 decision_id=did, actor=me))
                elif hand:
                    self.do(c.DecideLoseCard(bowler, rng.choice(hand), decision_id=did,
                                             actor=me))
                else:
                    self.do(c.ExpireDecision(decision_id=did), seconds=200)
            elif kind == "steal":
                victims = decision["choices"]
                victim = rng.choice(sorted(victims))
                self.do(c.DecideSteal(bowler, victim, rng.choice(victims[victim]),
                                      decision_id=did, actor=me))
            elif kind == "end_draw":
                self.do(c.DecideEndDraw(bowler, rng.random() < 0.7, decision_id=did, actor=me))
            elif kind == "buy":
                self.do(c.DecideBuy(bowler, rng.random() < 0.6, decision_id=did, actor=me))
            if did in self.state.decisions:  # refused or still open: let the clock decide
                self.do(c.ExpireDecision(decision_id=did), seconds=400)

    def _finish(self) -> None:
        if self.plan == "void":
            self.do(c.CommissionerVoidMatch(reason="the lane broke down", actor=DESK))
            return
        if self.state.status == "playing":
            self.do(c.CommissionerSettleAsHandsStand(reason="the night closed", actor=DESK))
        self._decisions()
        if self.state.status == "ending":
            self.do(c.CommissionerConfirmResult(actor=DESK))
        if self.state.status not in ("settled", "void"):
            self.do(c.CommissionerVoidMatch(reason="could not settle", actor=DESK))


def export_of(state: MatchState, events: list, centre: str = "corpus") -> dict[str, Any]:
    """A match's export as ``alley-poker export`` writes it."""
    records = json.loads(json.dumps([event_to_record(event) for event in events]))
    fair = state.fairness or {}
    return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "match_id": state.match_id,
            "centre": centre, "status": state.status,
            "fairness": {key: fair.get(key) for key in ("scheme", "commitment", "salt", "seed")},
            "chain_head": chain.head(records),
            "inputs": action_inputs(state.match_id, events), "events": records}


def varied_exports(n: int, seed: int = 0, *,
                   gutter_detection: str | None = None) -> list[dict[str, Any]]:
    """``n`` exports of settled or void matches, of every plan in turn (deterministic);
    with ``gutter_detection``, under that house rule, the scorer flagging some balls of no
    pins "not a gutter"."""
    rng = random.Random(seed)
    found = []
    for index in range(n):
        bot = _Bot(f"m{seed}-{index + 1}", random.Random(rng.getrandbits(64)),
                   PLANS[index % len(PLANS)], index // 40, gutter_detection)
        bot.play()
        found.append(export_of(bot.state, bot.events))
    return found


# --- mutants -------------------------------------------------------------------------------
CARD_KEYS = ("card", "trigger")
CARD_LIST_KEYS = ("pile", "order", "disarmed")
MONEY_KEYS = ("ante_cents", "cents", "refund_cents", "ante_paid", "antes", "shares",
              "refunds", "reversed")
SEAT_KEYS = ("bowler", "from_bowler", "bowlers", "winners", "lowest")
FIELD_KINDS = ("card", "power", "money", "seat", "pins")


def outcome(export: dict[str, Any]) -> list:
    """What the match ends with: its status, and every money event after its last result
    undone or undo (antes, buys, showdown, payouts, refunds)."""
    kept = ("showdown", "payout", "match_voided", "buy_paid", "consent_recorded",
            "bowler_removed", "bowler_added", "automatic_win", "match_settled")
    found: list = [export.get("status")]
    for record in export["events"]:
        if record["type"] in ("result_undone", "action_undone"):
            found = [export.get("status")]
        elif record["type"] in kept:
            data = {k: v for k, v in record["data"].items()
                    if k not in ("actor", "command", "action", "reason")}
            found.append((record["type"], data))
    return found


def _other_card(card: Any) -> str:
    index = CARDS.index(card) if card in CARDS else 0
    return CARDS[(index + 1) % len(CARDS)]


def _changes(record: dict, bowlers: list[str]) -> Iterator[tuple[str, str, Any]]:
    """(key path text, kind, new value setter) for one event: yields (label, kind, fn)."""
    data = record["data"]

    def other_seat(name: Any) -> Any:
        others = [b for b in bowlers if b != name]
        return others[0] if others else f"{name}x"

    for key in sorted(data):
        value = data[key]
        if key in ("actor", "command", "action"):
            continue
        if key in CARD_KEYS and isinstance(value, str):
            yield key, "card", _other_card(value)
        elif key in CARD_LIST_KEYS and isinstance(value, list) and len(value) >= 2:
            changed = list(value)
            changed[0], changed[-1] = changed[-1], changed[0]
            yield key, "card", changed
        elif key in CARD_LIST_KEYS and isinstance(value, list) and value:
            yield key, "card", [_other_card(value[0])]
        elif key == "powers" and isinstance(value, dict):
            swapped = {k: ("good" if v == "bad" else "bad") for k, v in value.items()}
            yield key, "power", swapped
        elif key in MONEY_KEYS and isinstance(value, int) and not isinstance(value, bool):
            yield key, "money", value + 100
        elif key in MONEY_KEYS and isinstance(value, dict) and value:
            first = sorted(value)[0]
            if isinstance(value[first], int):
                yield key, "money", {**value, first: value[first] + 100}
        elif key in SEAT_KEYS and isinstance(value, str):
            yield key, "seat", other_seat(value)
        elif key in SEAT_KEYS and isinstance(value, list) and len(value) >= 2:
            yield key, "seat", list(reversed(value))
        elif key in SEAT_KEYS and isinstance(value, list) and value:
            yield key, "seat", [other_seat(value[0])]
        elif key == "pins" and isinstance(value, int):
            yield key, "pins", value - 1 if value > 0 else 1
        elif key == "balls" and isinstance(value, list) and value:
            balls = copy.deepcopy(value)
            balls[0]["pins"] = balls[0]["pins"] - 1 if balls[0]["pins"] else 1
            yield "balls[0].pins", "pins", balls
        elif key == "hands" and isinstance(value, dict) and value:
            yield key, "card", _swap_hand_cards(value)
        elif key == "restored" and isinstance(value, dict):
            if isinstance(value.get("pile"), list) and len(value["pile"]) >= 2:
                pile = list(value["pile"])
                pile[0], pile[-1] = pile[-1], pile[0]
                yield "restored.pile", "card", {**value, "pile": pile}
            if isinstance(value.get("hands"), dict):
                yield "restored.hands", "card", {**value, "hands": _swap_hand_cards(
                    value["hands"])}


def _swap_hand_cards(hands: dict) -> dict:
    changed = copy.deepcopy(hands)
    for name in sorted(changed):
        hand = changed[name]
        if isinstance(hand, list) and hand and isinstance(hand[0], str):
            hand[0] = _other_card(hand[0])
            return changed
        if isinstance(hand, dict):
            for key in sorted(hand):
                if isinstance(hand[key], list) and hand[key] and isinstance(hand[key][0], str):
                    hand[key][0] = _other_card(hand[key][0])
                    return changed
    return changed


def rechain(export: dict[str, Any]) -> dict[str, Any]:
    """The export an insider gets from ``alley-poker export`` after rewriting its events in
    the database and recomputing every hash: chain head and inputs recomputed (an export
    whose inputs cannot be read is written as version 1, as ``export`` does)."""
    export["chain_head"] = chain.head(export["events"])
    return _with_inputs(export, lambda: [event_from_record(r) for r in export["events"]])


def _with_inputs(export: dict[str, Any], events) -> dict[str, Any]:
    """``export`` with the inputs of ``events()`` (version 2), or, when the log does not
    rebuild, without inputs as version 1, as ``export`` writes it."""
    try:
        export["inputs"] = action_inputs(export["match_id"], events())
        export["version"] = EXPORT_VERSION
    except Exception:  # any log that does not rebuild
        export.pop("inputs", None)
        export["version"] = 1
    return export


def mutants(export: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every single-field change of a card, power, money, seat or pins field, re-chained."""
    bowlers = []
    for record in export["events"]:
        if record["type"] == "match_created":
            bowlers = list(record["data"]["bowlers"])
        elif record["type"] == "bowler_added":
            bowlers.append(record["data"]["bowler"])
    records = export["events"]
    # Only the changed event and those after it are hashed again, and only it is parsed again:
    # the same export as ``rechain`` writes, at a fraction of the cost (thousands per run).
    prefix = [chain.GENESIS]
    for record in records:
        prefix.append(chain.link_hash(prefix[-1], record))
    parsed = [event_from_record(record) for record in records]
    for index, record in enumerate(records):
        for key, kind, value in list(_changes(record, bowlers)):
            mutated = dict(export, events=list(records))
            changed = copy.deepcopy(record)
            changed["data"][key.split(".")[0].split("[")[0]] = value
            mutated["events"][index] = changed
            yield (f"{export['match_id']} event #{record['seq']} ({record['type']}) {key}",
                   kind, _rechained_from(mutated, index, prefix[index], parsed))


def _rechained_from(export: dict[str, Any], index: int, before: str,
                    parsed: list) -> dict[str, Any]:
    """``rechain(export)`` when only event ``index`` changed: ``before`` is the hash up to
    it, ``parsed`` the original events."""
    current = before
    for record in export["events"][index:]:
        current = chain.link_hash(current, record)
    export["chain_head"] = current
    return _with_inputs(export, lambda: [*parsed[:index],
                                         event_from_record(export["events"][index]),
                                         *parsed[index + 1:]])


def mutant_seq(description: str) -> int:
    """The seq of the event a mutant's description names."""
    return int(description.split("#", 1)[1].split()[0])


if __name__ == "__main__":  # python tests/fairness_corpus.py N SEED > exports.json
    import sys

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    json.dump(varied_exports(count, int(sys.argv[2]) if len(sys.argv) > 2 else 0),
              sys.stdout)
