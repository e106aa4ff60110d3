"""What an odds helper will unpickle from the centre's Redis: a match state's chunk, and
nothing that names a class outside the project and a few of the standard library's
(:func:`alley_poker.service.odds_helpers._load_task`)."""

from __future__ import annotations

import os
import pickle
import subprocess

import pytest

from alley_poker.odds import CentreAverages
from alley_poker.service.odds_helpers import _load_task
from benchmarks._practice_match import PracticeMatch


def test_a_chunk_task_with_a_match_state_and_the_centres_knowledge_loads():
    match = PracticeMatch(("Ann", "Bob"), seed=3, match_id="m1", averages={"Ann": 180})
    match.play(12)
    known = (CentreAverages(average=160), {"Ann": [[7, 2, 10]]}, {"Bob": 155})
    task = ("owner:1", "alley:x:odds:latest:owner", "m1", match.state.seq,
            (match.state, 400, 0, 150, {"Ann": 180}, "fast", known))
    loaded = _load_task(pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL))
    assert loaded[4][0].balls == match.state.balls and loaded[4][6][0] == known[0]


@pytest.mark.parametrize("payload", [os.system, subprocess.Popen, eval])
def test_a_task_naming_anything_else_is_refused(payload):
    with pytest.raises(pickle.UnpicklingError, match="a task may not hold"):
        _load_task(pickle.dumps(("t", "k", "m", 1, (payload, "echo owned"))))
