"""The odds benchmark's reference file: each recorded state's wins at many runs, and whether
it still describes the states and the simulation (:mod:`benchmarks.odds_reference` makes and
extends it, :mod:`benchmarks.odds` reads it).

The file records which engine made it (``engine``: ``"ledger"``, the ledger's own handlers,
when absent: the file of 2026-11-25 predates the fast engine), a fingerprint of each state,
and a probe: a short seeded run of the first state by that engine.  When the states, the
ball model or the rules change, the probe or a fingerprint does, and the reference is stale.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from benchmarks._odds_states import STATES, recorded_state

REFERENCE = Path(__file__).with_name("data") / "odds_reference.json"


def state_fingerprint(index: int) -> str:
    state, _ = recorded_state(index)
    snapshot = json.dumps(state.snapshot(), sort_keys=True, default=str)
    return hashlib.sha256(snapshot.encode()).hexdigest()[:16]


def simulation_probe(engine: str = "ledger") -> dict:
    """A short run of state 0 with a fixed seed: changes whenever the simulation does."""
    from alley_poker.odds import win_odds

    state, _ = recorded_state(0)
    return win_odds(state, iterations=25, seed=1, engine=engine).as_json()["bowlers"]


def load(path: Path = REFERENCE) -> dict | None:
    if not path.exists():
        return None
    return json.loads(path.read_text())


def engine_of(reference: dict) -> str:
    return reference.get("engine", "ledger")


def stale_reason(reference: dict) -> str | None:
    """Why ``reference`` no longer describes the recorded states (None: it does)."""
    if reference.get("probe") != simulation_probe(engine_of(reference)):
        return "the simulation has changed since the reference was computed"
    for entry in reference["states"]:
        if entry["fingerprint"] != state_fingerprint(entry["index"]):
            return f"recorded state {entry['index']} has changed"
    if len(reference["states"]) < STATES:
        return f"the reference has {len(reference['states'])} states, not {STATES}"
    return None
