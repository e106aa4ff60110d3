"""Mutation testing of the verifier: every card-, power-, money-, seat- and pins-bearing field
of every event of a varied night, changed and re-chained as an insider would, must either be
refused by ``verify`` or leave what the match paid exactly as it was — and nothing may give a
traceback, from ``verify``, ``export`` or ``audit verify``.

A changed *consequence* (a card drawn, a payout, a swap, who a card went to) must be named at
its own event.  A changed *input* (the scorer's pins, the card a bowler chose: docs/fairness.md
§6) is a different match the rules can run: it is refused where its consequences first differ
from the recorded ones, which may be a later event, or it changes nothing recorded.
"""

from __future__ import annotations

from collections import Counter

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.ledger import MatchState, event_from_record
from alley_poker.ledger.inputs import actions, input_of
from alley_poker.store.event_store import EventStore
from alley_poker.verifier.verify import verify_export
from tests.fair_verify_page import browser_verdicts, verify_page  # noqa: F401  (a fixture)
from tests.fairness_corpus import FIELD_KINDS, mutant_seq, mutants, outcome, varied_exports

#: One match of each plan of the corpus (undo, drain, void, correct, drain, undo, plain, early).
NIGHT = dict(n=8, seed=0)


@pytest.fixture(scope="module")
def night():
    exports = varied_exports(**NIGHT)
    kinds = Counter(e["type"] for export in exports for e in export["events"])
    whys = Counter(e["data"].get("why") for export in exports for e in export["events"])
    vias = Counter(e["data"].get("via") for export in exports for e in export["events"])
    for needed in ("jokers_swapped", "match_voided", "action_undone", "ball_corrected",
                   "buy_paid", "review_raised", "decision_opened", "payout"):
        assert kinds[needed], f"the varied night has no {needed}"
    assert whys["undo: later cards dealt as before"] and vias["courtesy"] and vias["steal"]
    assert all(verify_export(export).ok for export in exports)
    return exports


class Inputs:
    """Tells whether a mutant changed what its action's command was asked (an input)."""

    def __init__(self, export: dict) -> None:
        self.events = [event_from_record(record) for record in export["events"]]
        self.before: dict[int, tuple[MatchState, list[int]]] = {}
        state = MatchState.empty(export["match_id"])
        for group in actions(self.events):
            snapshot, seqs = state.clone(), [event.seq for event in group]
            for event in group:
                self.before[event.seq] = (snapshot, seqs)
                state.apply(event)

    def changed(self, mutant: dict, seq: int) -> bool:
        state, seqs = self.before[seq]
        try:
            mutated = [event_from_record(mutant["events"][s - 1]) for s in seqs]
            return input_of(state, mutated) != input_of(state, [self.events[s - 1]
                                                                for s in seqs])
        except Exception:  # an input that cannot even be read is a changed one
            return True


@pytest.fixture(scope="module")
def verdicts(night):
    """``(export, description, kind, mutant, verify's verdict)`` for every mutant of the
    night, in order."""
    return [(export, description, kind, mutant, verify_export(mutant))
            for export in night for description, kind, mutant in mutants(export)]


@pytest.mark.slow  # ~20-30 s: some 2,000 mutants, each verified whole
def test_every_mutant_is_refused_or_changes_nothing_paid(night, verdicts, report):
    tried, named, later, unchanged = Counter(), Counter(), Counter(), Counter()
    wrong: list[str] = []
    paid = {export["match_id"]: (outcome(export), Inputs(export)) for export in night}
    for export, description, kind, mutant, verdict in verdicts:  # a traceback failed above
        tried[kind] += 1
        outcome_paid, inputs = paid[export["match_id"]]
        is_input = inputs.changed(mutant, mutant_seq(description))
        if verdict.ok:
            unchanged[kind] += 1
            if outcome(mutant) != outcome_paid:
                wrong.append(f"{description}: passed verify with a changed outcome")
            if not is_input:
                wrong.append(f"{description}: a changed consequence passed verify")
        elif verdict.seq == mutant_seq(description):
            named[kind] += 1
        elif is_input and (verdict.seq or 0) > mutant_seq(description):
            later[kind] += 1
        else:
            wrong.append(f"{description}: {verdict}")
    lines = [f"{sum(tried.values())} mutants of {len(night)} matches "
             "(tried / refused naming the event / refused at a later event (inputs) / "
             "passed with nothing paid changed):"]
    for kind in FIELD_KINDS:
        lines.append(f"  {kind:6} {tried[kind]:5} / {named[kind]:5} / {later[kind]:4} / "
                     f"{unchanged[kind]:3}")
    report("\n".join(lines))
    assert set(tried) == set(FIELD_KINDS)
    assert not wrong, "\n".join(wrong[:20])


@pytest.mark.slow
def test_no_mutant_gives_a_traceback_from_export_or_audit(night, tmp_path):
    """A sample of mutants of each kind stored as an insider would (the rewritten log,
    re-sealed): ``verify`` by id, ``export`` and ``audit verify`` answer in sentences."""
    url = f"sqlite:///{tmp_path / 'mutants.sqlite3'}"
    runner = CliRunner()
    stored = 0
    with EventStore.open(url) as store:
        for export in night[:3]:
            picked: dict[str, int] = {}
            for index, (_, kind, mutant) in enumerate(mutants(export)):
                if picked.get(kind, 0) >= 3 or index % 7:
                    continue
                picked[kind] = picked.get(kind, 0) + 1
                stored += 1
                match_id = f"x{stored}"
                store.append(match_id, [{**r, "match_id": match_id} for r in mutant["events"]], 0)
    assert stored >= 10
    for number in range(1, stored + 1):
        for arguments in (["verify", f"x{number}"], ["export", f"x{number}"]):
            result = runner.invoke(main, [*arguments, "--database", url])
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                f"{arguments}: {result.exception!r}")
            assert result.exit_code in (0, 1), result.output
    result = runner.invoke(main, ["audit", "verify", "--database", url])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "the chain holds" in result.output


@pytest.mark.slow
def test_the_browser_verifier_agrees_on_every_mutant(verdicts, verify_page, report):  # noqa: F811
    browser = browser_verdicts(verify_page, [mutant for _, _, _, mutant, _ in verdicts])
    tally: Counter = Counter()
    wrong = []
    for (_, what, kind, _, py), js in zip(verdicts, browser, strict=True):
        tally[kind] += 1
        if py.ok == js["ok"]:
            tally["agree"] += 1
            tally[f"{kind} agree"] += 1
            same = py.ok or py.seq == js["seq"]
            tally["same event" if same else "other event"] += 1
            if not same and kind in ("card", "power"):  # randomness and cards: to the event
                wrong.append((what, str(py), js["text"]))
        else:
            wrong.append((what, str(py), js["text"]))
    report(f"mutants: {len(verdicts)} tried; the browser's verdict agrees with Python's on "
           f"{tally['agree']} ({tally['same event']} of them naming the same event or both OK, "
           f"{tally['other event']} another event)")
    report("  by field kind, agreeing/tried: " + ", ".join(
        f"{kind} {tally[kind + ' agree']}/{tally[kind]}" for kind in sorted(
            {kind for _, _, kind, _, _ in verdicts})))
    assert not wrong, wrong[:5]


#: Events of other nights whose mutants once split the two verifiers (found 2026-12-03 on
#: seeds 2-5): the browser passed a hole paid off by a bowler in none and a gutter ball
#: recorded as none, refused a correction to the reading the scorer had already sent, and
#: named a later event for a lost card the rules choose (a gutter ball's joker, an expired
#: decision's) or a card moved against the decision's choice.
ONCE_SPLIT = {2: {("m2-7", 48)},
              3: {("m3-1", 85), ("m3-2", 128), ("m3-4", 22), ("m3-5", 106), ("m3-5", 135)},
              4: {("m4-3", 16), ("m4-4", 17), ("m4-4", 19), ("m4-4", 78), ("m4-5", 141)},
              5: {("m5-2", 65), ("m5-5", 88)}}


@pytest.mark.slow
def test_the_browser_agrees_on_mutants_that_once_split_the_verifiers(verify_page, report):  # noqa: F811
    picked = [(description, kind, mutant, verify_export(mutant))
              for seed, places in ONCE_SPLIT.items()
              for export in varied_exports(n=8, seed=seed)
              for description, kind, mutant in mutants(export)
              if (export["match_id"], mutant_seq(description)) in places]
    assert len(picked) >= 2 * sum(len(places) for places in ONCE_SPLIT.values())
    browser = browser_verdicts(verify_page, [mutant for _, _, mutant, _ in picked])
    # As on the test night: the same verdict, and a card or power named at the same event.
    split = [(description, str(py), js["text"])
             for (description, kind, _, py), js in zip(picked, browser, strict=True)
             if py.ok != js["ok"] or (kind in ("card", "power") and py.seq != js["seq"])]
    report(f"{len(picked)} mutants of events that once split the verifiers: "
           f"{len(picked) - len(split)} judged alike")
    assert not split, "\n".join(map(str, split))
