"""``alley-poker serve`` with a wall-clock stack sampler, for profiling under the benchmark's load.

py-spy cannot attach to processes in every container (it needs ptrace), so this samples from
inside: every ``interval`` seconds it takes every thread's stack (``sys._current_frames``) and,
when the service stops, writes collapsed stacks (``thread;outer;...;inner count``) — the
format flame-graph tools read.  Wall-clock, not CPU: a thread waiting on a lock shows where
it waits, which is what a latency profile needs.  Garbage-collector pauses are summed per
generation on ``#gc`` lines at the top.

``python -m benchmarks._sampled_serve OUTPUT serve --config ...``
"""

from __future__ import annotations

import atexit
import collections
import gc
import sys
import threading
import time


def sample(output: str, interval: float = 0.005) -> None:
    counts: collections.Counter[str] = collections.Counter()
    me = threading.get_ident()

    def loop() -> None:
        while True:
            names = {thread.ident: thread.name for thread in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                stack = []
                while frame is not None:
                    code = frame.f_code
                    stack.append(f"{code.co_name} ({code.co_filename.rsplit('/', 2)[-1]}"
                                 f":{frame.f_lineno})")
                    frame = frame.f_back
                name = names.get(ident, "?").split("-")[0].split(" ")[0]
                counts[";".join([name, *reversed(stack)])] += 1
            time.sleep(interval)

    pauses: list[tuple[int, float]] = []
    began = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - began[0]))

    gc.callbacks.append(on_gc)

    def write() -> None:
        with open(output, "w", encoding="utf-8") as out:
            for generation in (0, 1, 2):
                times = sorted(t for g, t in pauses if g == generation)
                if times:
                    out.write(f"#gc gen{generation}: {len(times)} collections, "
                              f"max {times[-1] * 1000:.1f} ms, "
                              f"total {sum(times) * 1000:.0f} ms\n")
            for stack, count in counts.most_common():
                out.write(f"{stack} {count}\n")

    thread = threading.Thread(target=loop, name="stack-sampler", daemon=True)
    thread.start()
    me = thread.ident
    atexit.register(write)


if __name__ == "__main__":
    sample(sys.argv[1])
    from alley_poker.cli import main

    main(sys.argv[2:], prog_name="alley-poker")
