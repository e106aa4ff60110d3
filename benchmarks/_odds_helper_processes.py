"""``alley-poker odds-helper`` processes for the odds benchmark's league night
(``benchmarks.odds --helpers N``): started as a deployment starts them, on a centre id of
their own on the given Redis, and stopped (SIGTERM, then SIGKILL) when the night is over."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


class HelperProcesses:
    """``count`` helpers for a centre of their own; ``shared`` is the owner's side."""

    def __init__(self, count: int, redis_url: str) -> None:
        from alley_poker.service.odds_helpers import SharedChunks

        self.centre = f"bench-odds-{os.getpid()}"
        self._dir = tempfile.TemporaryDirectory(prefix="odds-helpers-")
        config = Path(self._dir.name) / "alley.toml"
        config.write_text(f'[centre]\nid = "{self.centre}"\nname = "Odds benchmark"\n'
                          "lanes = 2\n", encoding="utf-8")
        env = {**os.environ, "ALLEY_POKER_REDIS_URL": redis_url}
        self.processes = [subprocess.Popen(
            [sys.executable, "-m", "alley_poker.cli", "odds-helper", "--config", str(config)],
            cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL,
            stderr=open(Path(self._dir.name) / f"helper-{n}.log", "w"))  # noqa: SIM115
            for n in range(count)]
        self.shared = SharedChunks(redis_url, self.centre)
        deadline = time.monotonic() + 120
        while self.shared.live_helpers() < count:
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                self.stop()
                raise RuntimeError(f"{count} odds helper(s) did not start within 120 s")
            time.sleep(0.2)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        self._dir.cleanup()
