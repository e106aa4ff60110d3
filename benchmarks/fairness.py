"""What fair dealing and the hash chain cost per ball, against the ball→kiosk latency.

``python -m benchmarks.fairness --json [--quick]``

Bowls whole 6-bowler matches through the ledger with a fair source (committed seeds), then
times, over the very records and shuffles those matches produced:

- ``chain_us_per_ball``: sealing every stored record into its match's chain
  (``store.chain.seal``: canonical JSON + SHA-256), per ball;
- ``derivation_us_per_ball``: every shuffle and courtesy draw from the HMAC-SHA256 DRBG
  (the first deck and each reshuffle, as dealt), per ball;
- ``commitment_us_per_ball``: drawing a seed and its SHA-256 commitment, once per match,
  spread over the match's balls;
- ``share_of_p50`` / ``share_of_cpu``: their sum as a share of the latency benchmark's p50
  (feed line → kiosk, 2.18 ms in docs/performance.md) and of the CPU a ball costs in
  ``serve`` under that benchmark (≈ 4.3 ms).
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, datetime

from benchmarks._output import print_result

LATENCY_P50_MS = 2.18   # docs/performance.md, benchmarks.latency (100 lanes, 200 balls/s)
CPU_PER_BALL_MS = 4.3   # docs/performance.md: serve's CPU per ball at 200 balls/s


def bowl_matches(count: int, rng: random.Random) -> tuple[list[list[dict]], int, list]:
    from alley_poker.fairness.deal import SeededDeal, new_seed
    from alley_poker.ledger import MatchState, commands, decide, event_to_record

    now = datetime(2026, 3, 6, 19, 0, tzinfo=UTC)
    logs, balls, shuffles = [], 0, []
    for index in range(count):
        source = SeededDeal(new_seed())
        state = MatchState.empty(f"m{index}")
        bowlers = [f"B{n}" for n in range(6)]
        records = []

        def run(command, state, source=source, records=records):
            events, after = decide(state, command, rng=source, now=now)
            records.extend(event_to_record(e) for e in events)
            for event in events:
                if event.type in ("match_started", "pile_shuffled"):
                    cards = event.data["pile" if event.type == "match_started" else "order"]
                    shuffles.append((source, after.fairness["salt"], event.seq, cards))
            return after

        state = run(commands.CreateMatch(f"m{index}", bowlers, actor="commissioner:b"), state)
        for bowler in bowlers:
            state = run(commands.ConsentToAnte(bowler, actor=f"bowler:{bowler}"), state)
        state = run(commands.StartMatch(actor="commissioner:b"), state)
        for _frame in range(10):
            for bowler in bowlers:
                if state.status != "playing" or state.decisions:
                    break
                first = rng.choice([10, 10, 9, 8, 7, 0])
                try:
                    state = run(commands.RecordBall(bowler, 1, first, actor="feed:b"), state)
                    balls += 1
                except Exception:  # a ball the game does not allow here: skip it
                    continue
        logs.append(records)
    return logs, balls, shuffles


def measure(matches: int, repeat: int) -> dict:
    from alley_poker.fairness.deal import commitment, new_seed
    from alley_poker.store.chain import seal

    logs, balls, shuffles = bowl_matches(matches, random.Random(7))
    rows = [[{"match_id": r["match_id"], "seq": r["seq"], "type": r["type"],
              "data": {"at": r["at"], "data": r["data"]}} for r in log] for log in logs]
    best_chain = best_derive = best_commit = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for log in rows:
            seal(log, "0" * 64)
        best_chain = min(best_chain, time.perf_counter() - started)
        started = time.perf_counter()
        for source, salt, seq, cards in shuffles:
            source.stream(salt, "deck", seq).shuffled(cards)
        best_derive = min(best_derive, time.perf_counter() - started)
        started = time.perf_counter()
        for _match in logs:
            commitment(new_seed())
        best_commit = min(best_commit, time.perf_counter() - started)
    chain_us, derive_us, commit_us = (best * 1e6 / balls
                                      for best in (best_chain, best_derive, best_commit))
    total_us = chain_us + derive_us + commit_us
    return {"matches": matches, "balls": balls,
            "events_per_ball": round(sum(map(len, logs)) / balls, 2),
            "shuffles": len(shuffles),
            "chain_us_per_ball": round(chain_us, 1),
            "derivation_us_per_ball": round(derive_us, 1),
            "commitment_us_per_ball": round(commit_us, 2),
            "total_us_per_ball": round(total_us, 1),
            "share_of_p50": round(total_us / (LATENCY_P50_MS * 1000), 4),
            "share_of_cpu": round(total_us / (CPU_PER_BALL_MS * 1000), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a few matches, for a smoke run")
    options = parser.parse_args()
    result = measure(4 if options.quick else 40, 3 if options.quick else 7)
    print_result(result, as_json=options.json)


if __name__ == "__main__":
    main()
