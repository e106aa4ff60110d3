"""The forgeries issue 24 found passing ``verify``, each re-chained as an insider would: every
one is now refused, naming the forged event; the honest exports still pass.  Exports come from
tests/fairness_corpus.py (matches played through the ledger with fair dealing)."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.verifier.verify import verify_export
from tests.fairness_corpus import rechain, varied_exports

UNDO_WHY = "undo: later cards dealt as before"


@pytest.fixture(scope="module")
def exports():
    found = varied_exports(16, seed=7)
    assert all(verify_export(export).ok for export in found)
    return found


def events_of(export, kind, **where):
    return [e for e in export["events"] if e["type"] == kind
            and all(e["data"].get(k) == v for k, v in where.items())]


def refused(export, forged_seq):
    verdict = verify_export(rechain(export))
    assert not verdict.ok, "the forgery passed verify"
    assert verdict.seq == forged_seq, str(verdict)
    return str(verdict)


def to_forge(exports, kind, **where):
    """A copy of the first export with a ``kind`` event (matching ``where``) to forge: the
    copy, the event as it was, and the copy's data of that event."""
    export = next(e for e in exports if events_of(e, kind, **where))
    event = events_of(export, kind, **where)[0]
    forged = copy.deepcopy(export)
    return forged, event, forged["events"][event["seq"] - 1]["data"]


def an_undo_reordering(exports):
    for export in exports:
        for event in events_of(export, "pile_shuffled", why=UNDO_WHY):
            return copy.deepcopy(export), event["seq"]
    raise AssertionError("the corpus holds no undo re-ordering")


def test_a_stacked_undo_reordering_with_the_next_draw_changed_is_refused(exports):
    export, seq = an_undo_reordering(exports)
    event = export["events"][seq - 1]
    order = event["data"]["order"]
    ace = order[-1]  # the bottom card, stacked on top
    event["data"]["order"] = [ace, *order[:-1]]
    following = next(e for e in export["events"][seq:] if e["type"] == "card_drawn")
    following["data"]["card"] = ace
    text = refused(export, seq)
    assert f"event #{seq} (pile_shuffled)" in text and ace in text


def test_a_stacked_reordering_of_cards_the_later_actions_drew_is_refused(exports):
    """Only the exact order of §5.4: the same later cards, in another order, are refused."""
    export, seq = an_undo_reordering(exports)
    event = export["events"][seq - 1]
    order = event["data"]["order"]
    event["data"]["order"] = order[1:2] + order[:1] + order[2:]
    text = refused(export, seq)
    assert "recorded order" in text and "the rules give" in text


def test_a_reshuffle_relabelled_as_an_undo_is_refused(exports):
    for export in exports:
        undo_actions = {e["seq"] for e in events_of(export, "action_undone")}
        inside = [e for e in export["events"] if e["type"] == "pile_shuffled"
                  and e["data"]["action"] in undo_actions and e["data"]["why"] != UNDO_WHY]
        outside = [e for e in export["events"] if e["type"] == "pile_shuffled"
                   and e["data"]["action"] not in undo_actions]
        for event in inside[:1] + outside[:1]:
            forged = copy.deepcopy(export)
            target = forged["events"][event["seq"] - 1]["data"]
            target["why"] = UNDO_WHY
            target["order"] = sorted(target["order"])  # stacked
            refused(forged, event["seq"])
        if inside and outside:
            return
    raise AssertionError("no undo with a re-applied reshuffle in the corpus")


def test_an_undo_reordering_where_no_undo_happened_is_refused(exports):
    export = next(e for e in exports if not events_of(e, "action_undone")
                  and events_of(e, "pile_shuffled"))
    event = events_of(export, "pile_shuffled")[0]
    forged = copy.deepcopy(export)
    target = forged["events"][event["seq"] - 1]["data"]
    target["why"] = UNDO_WHY
    text = refused(forged, event["seq"])
    assert "no undo made it" in text


def test_a_joker_swap_that_swaps_nothing_is_refused(exports):
    forged, event, target = to_forge(exports, "jokers_swapped")
    target["powers"] = {joker: "good" if power == "bad" else "bad"
                        for joker, power in target["powers"].items()}  # as before the swap
    text = refused(forged, event["seq"])
    assert "(jokers_swapped): recorded powers" in text


def test_a_changed_payout_is_refused(exports):
    forged, event, target = to_forge(exports, "payout")
    target["cents"] += 100
    text = refused(forged, event["seq"])
    assert f"recorded cents {event['data']['cents'] + 100}, the rules give " \
           f"{event['data']['cents']}" in text


def test_a_balls_changed_pins_are_refused(exports):
    forged, event, target = to_forge(exports, "ball_recorded", mark="strike", standing=None)
    target["pins"] = 9
    text = refused(forged, event["seq"])
    assert "(ball_recorded)" in text


def test_the_cli_names_a_forgery_in_the_issues_words(exports, tmp_path):
    forged, event, target = to_forge(exports, "payout")
    target["cents"] += 100
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(rechain(forged)), encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit | None)
    assert result.output.startswith(
        f"FAILED: match {forged['match_id']} event #{event['seq']} (payout): recorded cents ")


def test_an_export_whose_inputs_disagree_with_its_events_is_refused(exports):
    export = copy.deepcopy(exports[0])
    ball = next(i for i in export["inputs"] if i["command"] == "RecordBall")
    ball["params"]["pins"] = 0 if ball["params"]["pins"] else 1
    verdict = verify_export(export)  # not re-chained: the inputs are not hashed
    assert not verdict.ok and verdict.seq == ball["action"]
    assert "the export's inputs list" in verdict.problem


def test_a_version_1_export_is_still_verified(exports):
    export = copy.deepcopy(exports[0])
    export["version"] = 1
    del export["inputs"]
    assert verify_export(export).ok


def test_garbage_in_any_field_gives_a_sentence_not_a_traceback(exports):
    """An export is untrusted input: a field of the wrong type anywhere (re-chained or not)
    is named, never a crash."""
    export = min(exports, key=lambda e: len(e["events"]))
    tried = 0
    for index, record in enumerate(export["events"]):
        if index % 5:
            continue
        for key in [*record["data"], "at", "seq", "type", "match_id"]:
            for value in (None, -1, [], {}):
                forged = copy.deepcopy(export)
                target = forged["events"][index]
                (target if key in ("at", "seq", "type", "match_id") else target["data"])[
                    key] = value
                for candidate in (forged, rechain(copy.deepcopy(forged))):
                    verdict = verify_export(candidate)
                    tried += 1
                    assert str(verdict).startswith(("OK: ", "FAILED: "))
    assert tried > 100
