"""Shared helpers for the ``bench`` tier: run a benchmark as a real subprocess.

The tier checks that each benchmark runs and that its answers agree; it never
asserts speed, because a shared CI machine may be slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_benchmark(name: str, *args: str, timeout: float = 300.0) -> dict:
    """Run ``python -m benchmarks.NAME --json ARGS`` from the repository root and
    return the JSON object it printed; fail with its stderr when it does not."""
    env = dict(os.environ)
    # The benchmarks folder is top-level and not installed; from a fresh clone it is
    # importable because the subprocess runs in the repository root.
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p
    )
    completed = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--json", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        pytest.fail(
            f"benchmarks.{name} exited {completed.returncode}\n"
            f"stdout:\n{completed.stdout}\nstderr:\n{completed.stderr}"
        )
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as error:
        pytest.fail(f"benchmarks.{name} printed no JSON object ({error}):\n{completed.stdout}")


@pytest.fixture
def benchmark_runner():
    """The :func:`run_benchmark` helper, for tests that prefer a fixture."""
    return run_benchmark
