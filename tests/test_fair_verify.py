"""``alley-poker verify`` on a whole demo night: OK for every match, and the first changed
card or a wrong seed is named.  Matches dealt before fair dealing still replay unchanged."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys

import pytest

from alley_poker.cli.demo_alley import MATCH_LANES, run_demo
from alley_poker.ledger import commands as c
from alley_poker.service import open_service
from alley_poker.service.fair_export import ExportRefused, match_export
from alley_poker.verifier.verify import verify_export


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    database = tmp_path_factory.mktemp("night") / "demo.sqlite3"
    result = run_demo(speed=0, seed=11, database=database, echo=lambda line: None)
    assert not result.unsettled
    return database


@pytest.fixture(scope="module")
def exports(night):
    service = open_service(f"sqlite:///{night}")
    try:
        yield {match_id: match_export(service, match_id) for match_id in MATCH_LANES}
    finally:
        service.repository.store.close()


def verify_command(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "alley_poker.cli", "verify", *arguments],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_every_match_of_a_demo_night_verifies_by_id_and_by_export(night, exports, tmp_path):
    for match_id, export in exports.items():
        assert export["fairness"]["seed"] and export["events"][1]["type"] == "deal_committed"
        by_id = verify_command(match_id, "--database", f"sqlite:///{night}")
        assert by_id.returncode == 0, by_id.stdout + by_id.stderr
        assert by_id.stdout.startswith(f"OK: match {match_id}:")
        path = tmp_path / f"{match_id}.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        by_file = verify_command(str(path))
        assert by_file.returncode == 0 and by_file.stdout == by_id.stdout


def test_a_changed_card_is_named(exports, tmp_path):
    export = copy.deepcopy(exports["lanes-1-2"])
    drawn = [e for e in export["events"] if e["type"] == "card_drawn"]
    target = drawn[len(drawn) // 2]
    target["data"]["card"] = next(e["data"]["card"] for e in drawn
                                  if e["data"]["card"] != target["data"]["card"])
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    outcome = verify_command(str(path))
    assert outcome.returncode == 1
    assert outcome.stdout.startswith(
        f"FAILED: match lanes-1-2 event #{target['seq']} (card_drawn):")


def test_a_changed_first_deck_or_reshuffle_is_named(exports):
    export = copy.deepcopy(exports["lanes-3-4"])
    started = next(e for e in export["events"] if e["type"] == "match_started")
    pile = started["data"]["pile"]
    pile[0], pile[1] = pile[1], pile[0]
    verdict = verify_export(export)
    assert (verdict.ok, verdict.seq) == (False, started["seq"])
    assert "first deck" in verdict.problem


def test_a_seed_that_does_not_match_the_commitment_fails(exports):
    export = copy.deepcopy(exports["lanes-1-2"])
    seed = export["fairness"]["seed"]
    export["fairness"]["seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    for event in export["events"]:
        if event["type"] == "seed_revealed":
            event["data"]["seed"] = export["fairness"]["seed"]
    verdict = verify_export(export)
    assert not verdict.ok and "does not match the commitment" in verdict.problem


def test_an_unfinished_match_has_no_export_yet(tmp_path):
    service = open_service(f"sqlite:///{tmp_path / 'ledger.sqlite3'}")
    service.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor="commissioner:x")
    assert service.state("m1").fairness["seed"] is None  # committed, not revealed
    with pytest.raises(ExportRefused, match="published when it is settled or voided"):
        match_export(service, "m1")
    service.execute("m1", c.CommissionerVoidMatch(reason="rain", actor="commissioner:x"))
    assert verify_export(match_export(service, "m1")).ok
    service.repository.store.close()


def test_a_match_dealt_before_fair_dealing_replays_unchanged(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    old = open_service(url, rng_factory=lambda: random.Random(3))  # no seed, no commitment
    old.create_match("m1", {(1, 1): "Ann", (2, 1): "Bob"}, games=1, actor="commissioner:x")
    for bowler in ("Ann", "Bob"):
        old.execute("m1", c.ConsentToAnte(bowler, actor=f"bowler:{bowler}"))
    old.execute("m1", c.StartMatch(actor="commissioner:x"))
    before = old.state("m1")
    old.repository.store.close()
    upgraded = open_service(url)  # fair dealing on: the old match keeps its recorded deck
    assert upgraded.state("m1") == before and before.fairness is None
    upgraded.execute("m1", c.RecordBall("Ann", 1, 10, actor="feed:lane-1"))
    dealt = upgraded.state("m1").hands["Ann"]
    assert len(dealt) >= 2 and dealt == before.pile[:len(dealt)]  # from the recorded pile
    upgraded.execute("m1", c.CommissionerVoidMatch(reason="test", actor="commissioner:x"))
    verdict = verify_export(match_export(upgraded, "m1"))
    assert not verdict.ok and "committed to no seed" in verdict.problem
    upgraded.repository.store.close()
