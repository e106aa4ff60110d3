"""A service stand-in for the crash test: runs a league night through the store, says ACK.

    python -m tests.store.crash_worker URL SEED MATCHES STEPS START

plans the seeded night (``tests.store.league_night``), opens the store at ``URL`` (migrating
it if new), prints ``READY``, then executes steps ``START``, ``START + 1``, ... through a
:class:`MatchRepository` and, after each one is committed, prints
``ACK <match_id> <seq> <step index>`` (flushed): the promise the crash test holds it to.
``DONE`` after the last step.  It is meant to be killed with SIGKILL at any moment.
"""

from __future__ import annotations

import sys

from alley_poker.store import EventStore, MatchRepository
from tests.store.league_night import clock_for, league_night, rng_for


def main(argv: list[str]) -> int:
    url, seed, matches, steps, start = argv[0], *map(int, argv[1:5])
    night = league_night(seed, matches=matches, steps=steps)
    current = start
    store = EventStore.open(url)
    repo = MatchRepository(
        store,
        rng_factory=lambda: rng_for(seed, current),
        clock=lambda: clock_for(current),
    )
    print("READY", flush=True)
    for step in night[start:]:
        current = step.index
        events = repo.execute(step.match_id, step.command)
        last_seq = events[-1].seq if events else repo.state(step.match_id).seq
        print(f"ACK {step.match_id} {last_seq} {step.index}", flush=True)
    print("DONE", flush=True)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
