"""Every example scenario runs through the real CLI and matches its expected outcome.

Each ``examples/scenarios/NAME.jsonl`` has a sibling ``NAME.expected.json`` with the asserted
subset of the ``--json`` output: top-level keys compared exactly; per bowler, keys compared
exactly except ``pending_kinds`` (the kinds of the open decisions) and ``hand_count``;
``event_counts`` (how many events of each type); ``exit`` and ``error`` (a bad line).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from alley_poker.cli import main
from alley_poker.ledger import MatchState, check_invariants, event_from_record, event_to_record
from alley_poker.ledger import replay as replay_events
from alley_poker.scenario import run_scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.jsonl"))


def test_there_is_a_scenario_per_rule():
    names = {f.stem for f in FILES}
    for rule in ("streaks_through_tenth_frame", "first_strike_each_game",
                 "hole_paid_off_by_strike", "guess_right_wrong_voided",
                 "both_jokers_armed_single_swap", "split_steal_joker_no_swap",
                 "morgan_made_and_broken", "holland_daze_resets_streak",
                 "empty_pile_courtesy_ties", "lowest_score_tie_draws", "buy_wins_automatically",
                 "split_pot_odd_cents", "correction_review_applied",
                 "lowest_score_draw_by_handicap"):
        assert rule in names
    for path in FILES:
        assert path.with_suffix(".expected.json").exists(), f"{path.name} has no expectation"


def _run_cli(path: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["scenario", "run", str(path), "--json"])
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_outcome(path: Path):
    expected = json.loads(path.with_suffix(".expected.json").read_text())
    code, out = _run_cli(path)
    assert code == expected.pop("exit", 0), out.get("error")
    if "error" in expected:
        assert out["error"] == expected.pop("error")
    else:
        assert "error" not in out
    for bowler, wanted in expected.pop("bowlers", {}).items():
        got = out["bowlers"][bowler]
        for key, value in wanted.items():
            if key == "pending_kinds":
                assert [p["kind"] for p in got["pending"]] == value, bowler
            elif key == "hand_count":
                assert len(got["hand"]) == value, bowler
            else:
                assert got[key] == value, f"{bowler}.{key}"
    counts = Counter(event["type"] for event in out["events"])
    for kind, count in expected.pop("event_counts", {}).items():
        assert counts[kind] == count, kind
    for key, value in expected.items():
        assert out[key] == value, key


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_log_replays_to_the_same_state(path: Path):
    """The log of every scenario, through its JSON records, folds back to the same state."""
    run = run_scenario(path.read_text().splitlines())
    records = json.loads(json.dumps([event_to_record(e) for e in run.events]))
    rebuilt = replay_events("scenario", [event_from_record(r) for r in records])
    check_invariants(rebuilt)
    assert rebuilt == run.state
    assert rebuilt.snapshot() == run.state.snapshot()
    assert MatchState.empty("scenario") != run.state


def test_json_output_contract():
    code, out = _run_cli(SCENARIOS / "both_jokers_armed_single_swap.jsonl")
    assert code == 0
    assert set(out) >= {"status", "pot_cents", "pile_count", "jokers", "bowlers", "winners",
                        "events"}
    bob = out["bowlers"]["Bob"]
    assert set(bob) >= {"hand", "hole", "category", "describe", "unbeatable", "pending",
                        "paid_cents", "won_cents"}
    assert out["events"][0]["seq"] == 1 and out["events"][0]["type"] == "match_created"


def test_pending_lists_the_decide_kind_and_deadline(tmp_path: Path):
    script = tmp_path / "pending.jsonl"
    script.write_text("\n".join([
        '{"setup": {"bowlers": ["Ann", "Bob"]}}',
        '{"stack": ["AS", "KS", "QS"]}',
        '{"ball": {"bowler": "Ann", "pins": 10}}',
        '{"ball": {"bowler": "Ann", "pins": 0, "gutter": true}}',
    ]))
    code, out = _run_cli(script)
    assert code == 0
    (pending,) = out["bowlers"]["Ann"]["pending"]
    assert pending["kind"] == "lose_card" and pending["guess_allowed"] is True
    assert pending["choices"] == ["AS", "KS", "QS"]
    assert pending["deadline"] > pending["created_at"]


def test_bad_line_exit_2_keeps_state_in_json(tmp_path: Path):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"setup": {"bowlers": ["Ann", "Bob"]}}\n'
                      '{"ball": {"bowler": "Zed", "pins": 3}}\n')
    result = CliRunner().invoke(main, ["scenario", "run", str(script), "--json"])
    assert result.exit_code == 2
    out = json.loads(result.stdout)
    assert out["status"] == "playing" and out["pot_cents"] == 200
    assert "line 2: bowler: no bowler 'Zed' in this match" in result.stderr


@pytest.mark.parametrize(("line", "reason"), [
    ('{"ball": {"bowler": "Ann", "pins": 11}}', "only 10 pins"),
    ('{"ball": {"bowler": "Ann", "pins": 3, "frame": 2}}', "frame 1, not frame 2"),
    ('{"bowl": {}}', "unknown step 'bowl'"),
    ('not json', "not valid JSON"),
    ('{"decide": {"bowler": "Ann", "kind": "juggle"}}', "unknown decision kind"),
    ('{"stack": ["ZZ"]}', "bad card 'ZZ'"),
    ('{"commissioner": {"action": "confirm"}}', "no result to confirm"),
])
def test_bad_lines_name_the_line_and_reason(line: str, reason: str):
    run = run_scenario(['{"setup": {"bowlers": ["Ann", "Bob"]}}', line])
    assert run.error is not None and run.error.line == 2
    assert reason in str(run.error)
    assert run.state.status == "playing"


def test_text_output_and_seed(tmp_path: Path):
    path = SCENARIOS / "split_pot_odd_cents.jsonl"
    result = CliRunner().invoke(main, ["scenario", "run", str(path), "--seed", "7"])
    assert result.exit_code == 0
    assert "winners: Ann ($1.52), Bob ($1.51)" in result.stdout


def test_the_handicap_scenario_draws_for_the_lowest_scratch_series_under_the_default_rule():
    """Without ``lowest_score_draw_by = "handicap"`` the same games offer Ann (lowest scratch
    series) the draw, not Bob: the rule, not the games, makes the example's difference."""
    lines = (SCENARIOS / "lowest_score_draw_by_handicap.jsonl").read_text().splitlines()
    setup = next(i for i, line in enumerate(lines) if line.startswith('{"setup"'))
    step = json.loads(lines[setup])
    del step["setup"]["rules"]
    lines[setup] = json.dumps(step)
    stack = next(i for i, line in enumerate(lines) if line.startswith('{"stack"'))
    run = run_scenario(lines[:stack])
    assert run.error is None
    assert [d["bowler"] for d in run.state.decisions.values()] == ["Ann"]
    assert run.state.handicaps == {"Ann": 30, "Bob": 0, "Cy": 10}


@pytest.mark.parametrize(("setup", "reason"), [
    ({"handicaps": {"Zed": 3}}, "handicaps: 'Zed' is not a bowler of this match"),
    ({"handicaps": {"Ann": 301}}, "Ann's handicap must be a whole number of pins from 0 to 300"),
    ({"handicaps": [3]}, "setup: 'handicaps' has the wrong type"),
    ({"league": {"league_id": "tue"}}, "league: missing night_id, night_date, people"),
    ({"league": "tue"}, "setup: 'league' has the wrong type"),
])
def test_a_bad_league_setup_names_the_problem_and_creates_nothing(setup, reason):
    run = run_scenario([json.dumps({"setup": {"bowlers": ["Ann", "Bob"], **setup}})])
    assert run.error is not None and run.error.line == 1
    assert reason in str(run.error)
    assert run.state.status == "new" and run.events == []
