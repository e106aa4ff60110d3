"""Verifying at the domain layer: a match export checked against its commitment, card by card.

The verifier trusts nothing in the export but the rules: the seed must hash to the
commitment published before the first card; every shuffle (the first deck, each reshuffle)
and every courtesy draw is recomputed from the seed; every event is folded into the match
again (each card drawn must be the top of the pile); and every action is re-executed from
its input by the ledger's own rules (:mod:`alley_poker.verifier.reexecute`), which must give
exactly the recorded events.  It stops at the first event that disagrees and names it.

>>> verify_export({"format": "something else"}).problem
'not a match export (format must be "alley-poker-match-export", version 1 or 2)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alley_poker.cards import FULL_DECK
from alley_poker.fairness import chain
from alley_poker.fairness.deal import Drbg, verify_seed
from alley_poker.ledger import (
    EventFormatError,
    InvariantViolation,
    MatchState,
    check_invariants,
    event_from_record,
)
from alley_poker.ledger.events import Event
from alley_poker.verifier.reexecute import Mismatch, Rerun, split_actions

EXPORT_FORMAT = "alley-poker-match-export"
#: Version 2 adds ``inputs`` (each action's command, docs/fairness.md §6); version 1 exports
#: (without it) are still verified, their inputs read from their events alone.
EXPORT_VERSION = 2
READ_VERSIONS = (1, 2)


@dataclass
class Verdict:
    """OK (``problem`` None) or the first disagreement; ``seq`` names the event if any."""

    match_id: str | None
    problem: str | None = None
    seq: int | None = None
    kind: str | None = None
    events: int = 0
    chain_head: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.ok:
            return (f"OK: match {self.match_id}: {self.events} events, every card follows from "
                    f"the revealed seed and every event from the inputs by the rules; chain head "
                    f"{self.chain_head}")
        where = f" event #{self.seq}" if self.seq is not None else ""
        where += f" ({self.kind})" if self.seq is not None and self.kind else ""
        return f"FAILED: match {self.match_id}{where}: {self.problem}"


class _Disagreement(Exception):
    def __init__(self, seq: int | None, problem: str, kind: str | None = None) -> None:
        super().__init__(problem)
        self.seq, self.problem, self.kind = seq, problem, kind


def verify_export(export: Mapping[str, Any]) -> Verdict:
    """The verdict on one match export (the format of ``docs/fairness.md``)."""
    if not isinstance(export, Mapping) or export.get("format") != EXPORT_FORMAT \
            or export.get("version") not in READ_VERSIONS:
        return Verdict(None, f'not a match export (format must be "{EXPORT_FORMAT}", '
                             f"version 1 or {EXPORT_VERSION})")
    match_id = export.get("match_id")
    verdict = Verdict(match_id)
    records = export.get("events")
    if not isinstance(records, list) or not records:
        verdict.problem = "the export carries no events"
        return verdict
    inputs = export.get("inputs") if export.get("version") != 1 else None
    if export.get("version") != 1 and not isinstance(inputs, list):
        verdict.problem = "a version 2 export lists its inputs (the export carries none)"
        return verdict
    fairness = export.get("fairness")
    try:
        verdict.events = _check(match_id, records, fairness if isinstance(fairness, Mapping)
                                else {}, inputs)
    except _Disagreement as found:
        verdict.problem, verdict.seq, verdict.kind = found.problem, found.seq, found.kind
        if verdict.kind is None and found.seq is not None:
            verdict.kind = next((r.get("type") for r in records if isinstance(r, Mapping)
                                 and r.get("seq") == found.seq), None)
        return verdict
    verdict.chain_head = chain.head(records)
    stated = export.get("chain_head")
    if stated is not None and stated != verdict.chain_head:
        verdict.problem = (f"the events hash to chain head {verdict.chain_head}, but the export "
                           f"states {stated}")
    return verdict


def _check(match_id: Any, records: list, fairness: Mapping[str, Any],
           inputs: list | None) -> int:
    if not isinstance(match_id, str) or not match_id:
        raise _Disagreement(None, "the export names no match")
    events = []
    for index, record in enumerate(records, start=1):
        try:
            events.append(event_from_record(record))
        except EventFormatError as error:
            raise _Disagreement(index, f"not a ledger event: {error}") from None
        if events[-1].seq != index or events[-1].match_id != match_id:
            raise _Disagreement(index, f"the export's event #{index} is "
                                       f"{events[-1].match_id}#{events[-1].seq}: events must be "
                                       "this match's, numbered from 1 without gaps")
    committed = next((e for e in events if e.type == "deal_committed"), None)
    if committed is None:
        raise _Disagreement(None, "the match committed to no seed (dealt before fair dealing "
                                  "or by a test source): it cannot be verified")
    first_card = next((e.seq for e in events if e.type in ("match_started", "card_drawn")),
                      None)
    if first_card is not None and first_card < committed.seq:
        raise _Disagreement(committed.seq, "the commitment came after the first card")
    revealed = next((e["seed"] for e in events if e.type == "seed_revealed"), None)
    seed_text = fairness.get("seed") or revealed
    if not seed_text:
        raise _Disagreement(None, "the seed is not revealed yet (it is revealed when the match "
                                  "settles or is voided)")
    try:
        seed = bytes.fromhex(seed_text)
    except (TypeError, ValueError):
        raise _Disagreement(None, f"the revealed seed {seed_text!r} is not hex") from None
    if revealed is not None and revealed != seed_text:
        raise _Disagreement(None, "the export's seed differs from the one revealed in the log")
    if len(seed) != 32 or not isinstance(committed["commitment"], str) \
            or not verify_seed(seed, committed["commitment"]):
        raise _Disagreement(committed.seq, "the revealed seed does not match the commitment "
                                           f"{committed['commitment']}")
    if not isinstance(committed["salt"], str):
        raise _Disagreement(committed.seq, "the salt is not text")
    drbg = Drbg(seed, committed["salt"])
    state = MatchState.empty(match_id)
    rerun = Rerun(match_id, seed, inputs)
    try:
        for group in split_actions(events):
            # Each action (one command): the rules run it anew on the match as it stood,
            # and every recorded event must be theirs (so the match stays as sound as the
            # rules keep it); randomness is checked first for a precise word on a card or a
            # shuffle.
            produced, refused = [], None
            try:
                produced = rerun.action(state, group)
            except Mismatch as found:
                refused = found
            if refused is not None and not _random_first(group):
                raise refused
            for index, event in enumerate(group):
                _check_event(drbg, state, event, events)
                if refused is not None:
                    raise refused
                rerun.same(event, produced, index)
            rerun.end_of_action(group, produced, events)
        _sound(state)
        rerun.finish()
    except Mismatch as found:
        raise _Disagreement(found.seq, found.problem, found.kind) from None
    return len(events)


def _random_first(group: list[Event]) -> bool:
    """An action whose first event is itself a random one (the first deck, a stacked pile):
    its own check speaks more precisely than the command's refusal."""
    return group[0].type in ("match_started", "pile_stacked")


def _sound(state: MatchState) -> None:
    try:
        check_invariants(state)
    except InvariantViolation as error:
        raise _Disagreement(state.seq, f"the match does not end sound: {error}") from None


def _check_event(drbg: Drbg, state: MatchState, event: Event, events: list[Event]) -> None:
    try:
        _check_randomness(drbg, state, event, events)
        state.apply(event)
    except InvariantViolation as error:
        raise _Disagreement(event.seq, f"{event.type} does not replay: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise _Disagreement(event.seq, f"{event.type} cannot be read: {error!r}") from None


def _check_randomness(drbg: Drbg, state: MatchState, event: Event,
                      events: list[Event]) -> None:
    seq, data = event.seq, event.data
    if event.type == "match_started":
        _same_order(seq, "the first deck", data["pile"],
                    drbg.stream("deck", seq).shuffled([str(card) for card in FULL_DECK]))
    elif event.type == "pile_shuffled" and str(data["why"]).startswith("undo:"):
        _check_undo_order(state, event, events)
    elif event.type == "pile_shuffled":
        _same_order(seq, "the reshuffled pile", data["order"],
                    drbg.stream("reshuffle", seq).shuffled(state.pile))
    elif event.type == "pile_stacked":
        raise _Disagreement(seq, "the pile was stacked by hand (a test-mode facility): this "
                                 "deal is not from the seed")
    elif event.type == "card_drawn":
        top = state.pile[0] if state.pile else None
        if data["card"] != top:
            raise _Disagreement(seq, f"{data['bowler']} is recorded drawing {data['card']}, but "
                                     f"the top of the pile was {top}")
    elif event.type == "card_taken" and data["via"] == "courtesy":
        victim, card = _courtesy(drbg, state, seq, data["bowler"])
        if (data["from_bowler"], data["card"]) != (victim, card):
            raise _Disagreement(seq, f"the courtesy draw took {data['card']} from "
                                     f"{data['from_bowler']}; the seed takes {card} from {victim}")


def _check_undo_order(state: MatchState, event: Event, events: list[Event]) -> None:
    """An undo's re-ordering (§5.4): only within an undo, and only cards that the actions
    after the undone one drew, moved to the top in the order drawn; the rest keeps its order.
    (Which of those cards, and when, re-execution checks exactly.)"""
    seq, order, pile = event.seq, list(event.data["order"]), state.pile
    action = next((e for e in events if e.seq == event.data["action"]), None)
    if action is None or action.type != "action_undone":
        raise _Disagreement(seq, "a re-ordering marked as an undo's, but no undo made it "
                                 "(every undo re-ordering follows an action_undone in the "
                                 "same action)")
    if sorted(order) != sorted(pile):
        raise _Disagreement(seq, "the undo's re-ordering does not hold exactly the cards of "
                                 "the pile")
    later = [e.data["card"] for e in events
             if action.data["undone_to"] < e.seq < action.seq and e.type == "card_drawn"]
    moved = next(k for k in range(len(order) + 1)
                 if order[k:] == [card for card in pile if card not in order[:k]])
    if moved == 0 or any(card not in later for card in order[:moved]):
        raise _Disagreement(seq, f"the undo puts {' '.join(order[:moved]) or 'nothing'} on "
                                 "top, which are not cards that the later actions drew")


def _courtesy(drbg: Drbg, state: MatchState, seq: int, bowler: str) -> tuple[str, str]:
    counts = {b: len(state.hands[b]) for b in state.bowlers}
    most = max(counts.values())
    candidates = [b for b in state.bowlers if b != bowler and counts[b] == most and most > 0]
    if not candidates:
        raise _Disagreement(seq, "a courtesy draw where the rules allow none")
    stream = drbg.stream("courtesy", seq)
    victim = candidates[0] if len(candidates) == 1 else stream.pick(candidates)
    return victim, stream.pick(state.hands[victim])


def _same_order(seq: int, what: str, recorded: list, derived: list[str]) -> None:
    if list(recorded) == derived:
        return
    position = next((i for i, (a, b) in enumerate(zip(recorded, derived, strict=False))
                     if a != b), min(len(recorded), len(derived)))
    got = recorded[position] if position < len(recorded) else "nothing"
    raise _Disagreement(seq, f"{what} has {got} at position {position + 1}; the seed puts "
                             f"{derived[position] if position < len(derived) else 'nothing'} "
                             "there")
