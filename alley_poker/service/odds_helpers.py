"""The odds pool's work shared through the centre's Redis: helpers on any machine that
reaches it (docs/odds.md, "Where one box is not enough"; docs/deployment.md).

A chunk of runs (:func:`~alley_poker.service.odds_pool.odds_chunk`: pure, seeded by the
state's event number and the chunk's number) is the unit of work.  With ``[odds] shared =
true`` the active worker's :class:`~alley_poker.service.live_odds.LiveOdds` hands chunks to
:class:`SharedChunks` beside its own pool, one chunk in flight per live helper, and an
``alley-poker odds-helper`` process (:func:`run_helper`) anywhere takes them, runs them
(``nice``, as the pool does) and sends the runs back.  Plain Redis lists through redis-py,
the library the bus already uses, and no job framework: a chunk is 10-30 ms of CPU, and a
round trip here is four commands (a pipelined push, the helper's blocking pop and its check
that the state is still wanted, a pipelined reply): about a millisecond on a LAN
(``benchmarks.odds --helpers`` reports it), where a job queue's per-job bookkeeping (a job
hash, registries, status updates) would cost several times that.

Keys, all under the centre's prefix (:func:`~alley_poker.service.redis_bus.
centre_channel_prefix`), so two centres on one Redis never take each other's work:

- ``<prefix>:odds:chunks``: the queue (a list: pushed left, popped right);
- ``<prefix>:odds:latest:<owner>``: per match, the event number the owner (one
  ``LiveOdds``) computes now; a helper drops a chunk of an older state unrun (superseded
  while it waited);
- ``<prefix>:odds:result:<task>``: one chunk's runs, as JSON, for the owner's waiting thread;
- ``<prefix>:odds:running:<task>``: the helper running the chunk (expires unless renewed);
- ``<prefix>:odds:helpers``: the live helpers (a sorted set of heartbeats) and
  ``<prefix>:odds:helper-chunks``: the chunks each helper ran (for operators and tests).

What holds: a helper killed mid-chunk costs a timeout, not the odds (the owner takes its
chunk back from the queue when no helper took it; a helper holds the chunk it runs under
``<prefix>:odds:running:<task>``, renewed by its heartbeat thread, so the owner waits on for
a live helper however busy its machine, and runs the chunk in its own pool once the hold
lapses: :data:`TIMEOUT_S` plus at most :data:`HELPER_GONE_S`; a late reply is ignored);
results are the same as the local pool's for the same seed (JSON carries a float exactly);
a centre without the setting opens no connection at all.

Tasks are pickled (a match state, as the local pool sends it) and unpickled by the helper
with only the project's own classes and a few of the standard library's allowed
(:func:`_load_task`): Redis must still be reachable only from the centre's machines
(docs/deployment.md), since whoever can write to it can already forge the bus's messages.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import logging
import os
import pickle
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis

from alley_poker.service.odds_pool import POOL_NICENESS, odds_chunk
from alley_poker.service.redis_bus import centre_channel_prefix

log = logging.getLogger(__name__)

#: How long the owner waits for a chunk at least before it asks what became of it: taken
#: back from the queue when no helper took it, run in the owner's pool when the helper that
#: took it stopped beating (killed: its hold on the chunk lapses within HELPER_GONE_S), and
#: waited for, a beat at a time, while that helper lives (a niced helper on a busy machine).
TIMEOUT_S = 2.0
#: A helper's heartbeat, and how long one silent counts as gone.
HEARTBEAT_S = 1.0
HELPER_GONE_S = 5.0
#: How long a reply or an owner's "latest" entries are kept when nobody reads them.
_REPLY_KEPT_S = 60
#: The longest an owner waits for a chunk a live helper holds (a machine so busy that its
#: helper cannot finish a chunk in a minute is no help).
_LONGEST_WAIT_S = 60.0
#: The longest a single blocking read of Redis waits (well under redis-py's socket timeout).
_LONGEST_BLOCK_S = 1.0
_LATEST_KEPT_S = 6 * 3600
#: How long a centre's helper list and chunk counts outlive its last helper.
_COUNTS_KEPT_S = 7 * 24 * 3600


class SharedChunkLost(RuntimeError):
    """No reply in time: ``taken`` when a helper had taken the chunk (killed or stalled)."""

    def __init__(self, taken: bool) -> None:
        super().__init__("a helper took the chunk and sent nothing back in time" if taken
                         else "no helper took the chunk in time")
        self.taken = taken


def queue_keys(centre: str) -> dict[str, str]:
    """The centre's odds keys.

    >>> queue_keys("north")["chunks"]
    'alley:north:odds:chunks'
    """
    prefix = f"{centre_channel_prefix(centre)}:odds"
    return {"prefix": prefix, "chunks": f"{prefix}:chunks", "helpers": f"{prefix}:helpers",
            "helper_chunks": f"{prefix}:helper-chunks"}


def _client(url: str, name: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_keepalive=True,
                                health_check_interval=10, client_name=name)


class SharedChunks:
    """The owner's side (one per :class:`~alley_poker.service.live_odds.LiveOdds`): hands a chunk
    to the helpers and waits for its runs.  Thread-safe: each of the owner's shared threads
    waits for its own chunk."""

    def __init__(self, redis_url: str, centre: str, *, timeout_s: float = TIMEOUT_S) -> None:
        self.keys = queue_keys(centre)
        self.centre = centre
        self.timeout_s = timeout_s
        self.owner = f"{socket.gethostname()}-{os.getpid()}-{os.urandom(4).hex()}"
        self._latest = f"{self.keys['prefix']}:latest:{self.owner}"
        self._redis = _client(redis_url, f"alley-odds-owner-{self.owner}")
        self._redis.ping()  # a wrong URL is said now, not at the first ball
        self._numbers = itertools.count()
        self.outstanding = 0  # chunks handed out and not answered yet (tests, benchmarks)
        self._outstanding_lock = threading.Lock()
        #: Each answered chunk's wait beyond the helper's own time on it (pickling, Redis,
        #: the helper's pop): what sharing costs a chunk, in seconds (benchmarks report it).
        self.overheads: deque[float] = deque(maxlen=5000)
        # The live helpers, counted by a thread of its own once a second: the owner's
        # threads read the count holding their lock, and must never wait on Redis for it.
        self.helpers = 0
        self._closed = threading.Event()
        self._count_helpers()
        self._watcher = threading.Thread(target=self._watch_helpers, daemon=True,
                                         name=f"odds helpers {centre}")
        self._watcher.start()

    def live_helpers(self) -> int:
        """Helpers heard from within :data:`HELPER_GONE_S` (as counted a second ago)."""
        return self.helpers

    def _count_helpers(self) -> None:
        try:
            self.helpers = int(self._redis.zcount(self.keys["helpers"],
                                                  time.time() - HELPER_GONE_S, "+inf"))
        except (redis.RedisError, OSError) as error:
            if not self._closed.is_set():
                log.warning("odds: cannot count the helpers (%s); the pool goes on alone",
                            error)
            self.helpers = 0

    def _watch_helpers(self) -> None:
        while not self._closed.wait(HEARTBEAT_S):
            self._count_helpers()

    def run(self, match_id: str, state: Any, iterations: int, chunk: int,
            centre_average: int, averages: Any, engine: str, known: Any,
            expected_s: float = 0.0) -> dict | None:
        """The chunk's runs (as :func:`odds_chunk` returns them), ``{"dropped": True}``
        when a helper found the state superseded, or :class:`SharedChunkLost`."""
        task = f"{self.owner}:{next(self._numbers)}"
        reply_key = f"{self.keys['prefix']}:result:{task}"
        payload = pickle.dumps((task, self._latest, match_id, state.seq,
                                (state, iterations, chunk, centre_average, averages, engine,
                                 known)), protocol=pickle.HIGHEST_PROTOCOL)
        timeout = max(self.timeout_s, 10 * expected_s)
        started = time.perf_counter()
        with self._outstanding_lock:
            self.outstanding += 1
        try:
            return self._hand_out(match_id, state.seq, payload, reply_key, task, timeout,
                                  started)
        finally:
            with self._outstanding_lock:
                self.outstanding -= 1

    def _hand_out(self, match_id: str, seq: int, payload: bytes, reply_key: str,
                  task: str, timeout: float, started: float) -> dict:
        pipe = self._redis.pipeline(transaction=False)
        pipe.hset(self._latest, match_id, seq)
        pipe.expire(self._latest, _LATEST_KEPT_S)
        pipe.lpush(self.keys["chunks"], payload)
        pipe.execute()
        deadline = started + timeout
        while True:
            # Each wait shorter than the client's socket timeout (redis-py's default is 5 s):
            # a longer BLPOP ends in the client's TimeoutError, not in Redis's empty answer
            # (a loaded CI host waited 30 s for a chunk and lost it so).
            reply = self._redis.blpop([reply_key], timeout=min(
                _LONGEST_BLOCK_S, max(0.05, deadline - time.perf_counter())))
            if reply is not None:
                break
            if time.perf_counter() < deadline:
                continue  # still within its time
            if self._redis.lrem(self.keys["chunks"], 1, payload):
                raise SharedChunkLost(taken=False)  # no helper took it: taken back
            if not self._redis.exists(_running_key(self.keys, task)):
                # The helper that took it stopped beating (killed), unless it answered
                # just now.
                reply = self._redis.lpop(reply_key)
                if reply is None:
                    raise SharedChunkLost(taken=True)
                reply = (reply_key, reply)
                break
            if time.perf_counter() - started > _LONGEST_WAIT_S or self._closed.is_set():
                raise SharedChunkLost(taken=True)  # starved for a minute, or stopping
            deadline = time.perf_counter() + HEARTBEAT_S  # live and on it: wait a beat more
        answer = json.loads(reply[1])
        if "seconds" in answer:
            self.overheads.append(time.perf_counter() - started - answer["seconds"])
        return answer

    def forget(self, match_id: str) -> None:
        with contextlib.suppress(redis.RedisError):  # else it expires by itself
            self._redis.hdel(self._latest, match_id)

    def stop_waiting(self) -> None:
        """No chunk is waited for beyond the beat in progress (the owner stops)."""
        self._closed.set()

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(redis.RedisError):
            self._redis.delete(self._latest)
        self._redis.close()


# --- the helper's side ------------------------------------------------------------------------

#: What a task may be made of: the project's classes and these (a match state's dates,
#: ordered dicts, frozen sets).  Anything else in a task stops it unrun.
_ALLOWED = {("builtins", name) for name in ("set", "frozenset", "dict", "list", "tuple",
                                            "bytearray", "complex", "slice", "range")} | {
    ("datetime", "datetime"), ("datetime", "date"), ("datetime", "timedelta"),
    ("datetime", "timezone"), ("datetime", "time"), ("collections", "OrderedDict"),
    ("collections", "defaultdict"), ("collections", "deque"), ("copyreg", "_reconstructor"),
    ("zoneinfo", "ZoneInfo"), ("zoneinfo._zoneinfo", "ZoneInfo"), ("decimal", "Decimal"),
    ("array", "array"), ("array", "_array_reconstructor"), ("types", "MappingProxyType")}


class _TaskUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "alley_poker" or module.startswith("alley_poker.") or (
                (module, name) in _ALLOWED):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a task may not hold {module}.{name}")


def _load_task(payload: bytes) -> tuple:
    return _TaskUnpickler(io.BytesIO(payload)).load()


@dataclass
class HelperCounts:
    """What a helper did (its exit line, and tests)."""

    ran: int = 0
    dropped: int = 0
    refused: int = 0
    cpu: float = 0.0


def run_helper(redis_url: str, centre: str, stop: threading.Event, *,
               say: Callable[[str], None] = log.warning, nice: bool = True) -> HelperCounts:
    """Take the centre's chunks and send their runs back until ``stop`` is set (a helper
    process's life: ``alley-poker odds-helper``).  Runs below the balls (``nice``), as the
    pool does, so a helper on the centre's own box never slows the screens."""
    if nice:
        os.nice(POOL_NICENESS)
    helper = _Helper(redis_url, centre)
    _warm_up()  # announced only once its first chunk will not pay for the engine's start
    beating = threading.Thread(target=helper.beat, args=(stop,), daemon=True,
                               name="odds helper heartbeat")
    beating.start()
    say(f"odds helper {helper.me} taking chunks for centre {centre} from "
        f"{helper.keys['chunks']}")
    counts = helper.counts
    try:
        while not stop.is_set():
            try:
                popped = helper.client.brpop([helper.keys["chunks"]], timeout=HEARTBEAT_S)
            except (redis.ConnectionError, redis.TimeoutError) as error:
                say(f"odds helper {helper.me}: lost Redis ({error}); trying again")
                stop.wait(1.0)
                continue
            if popped is not None:
                helper.serve(popped[1])
    finally:
        stop.set()
        beating.join(timeout=5)
        helper.close()
        say(f"odds helper {helper.me} stopped: {counts.ran} chunks run ({counts.cpu:.1f} s "
            f"of CPU), {counts.dropped} dropped unrun (superseded, or their owner gone), "
            f"{counts.refused} refused")
    return counts


def _warm_up() -> None:
    """A few runs of a practice match: the engine's first chunk in a process costs a few
    tenths of a second more than the next (its tables, the compiled card play)."""
    import random
    from datetime import UTC, datetime

    from alley_poker.ledger import MatchState, handle
    from alley_poker.ledger import commands as c

    state, deal, now = MatchState.empty("odds-helper-warm-up"), random.Random(1), datetime(
        2026, 1, 1, 19, 0, tzinfo=UTC)
    for command in [c.CreateMatch(state.match_id, ["Ann", "Bob"], actor="system:warm-up"),
                    c.ConsentToAnte("Ann", actor="bowler:Ann"),
                    c.ConsentToAnte("Bob", actor="bowler:Bob"),
                    c.StartMatch(actor="system:warm-up"),
                    c.RecordBall("Ann", None, 9, standing=[10], actor="system:warm-up"),
                    c.RecordBall("Ann", None, 1, standing=[], actor="system:warm-up")]:
        for event in handle(state, command, rng=deal, now=now):
            state.apply(event)
    odds_chunk(state, 50, 0, 150)


class _Helper:
    """One helper's connection, heartbeat and the chunk it runs now."""

    def __init__(self, redis_url: str, centre: str) -> None:
        self.keys = queue_keys(centre)
        self.me = f"{socket.gethostname()}-{os.getpid()}"
        self.client = _client(redis_url, f"alley-odds-helper-{self.me}")
        self.client.ping()
        self.counts = HelperCounts()
        self.running: str | None = None  # the running-chunk key of the chunk in hand

    def beat(self, stop: threading.Event) -> None:
        """Every second, even mid-chunk (a thread of its own): the helper is live, and so
        is its hold on the chunk it runs, however slowly a busy machine lets it."""
        while True:
            now = time.time()
            try:
                pipe = self.client.pipeline(transaction=False)
                pipe.zadd(self.keys["helpers"], {self.me: now})
                pipe.expire(self.keys["helpers"], _COUNTS_KEPT_S)
                pipe.zremrangebyscore(self.keys["helpers"], "-inf", now - 60 * HELPER_GONE_S)
                if (running := self.running) is not None:
                    pipe.expire(running, int(HELPER_GONE_S))
                pipe.execute()
            except (redis.RedisError, OSError) as error:
                log.warning("odds helper %s: no heartbeat (%s)", self.me, error)
            if stop.wait(HEARTBEAT_S):
                return

    def serve(self, payload: bytes) -> None:
        counts = self.counts
        try:
            task, latest_key, match_id, seq, arguments = _load_task(payload)
        except Exception as error:  # not a task of ours: nobody can be waiting for it
            counts.refused += 1
            log.warning("odds helper: refused a task it cannot read (%s)", error)
            return
        reply_key = f"{self.keys['prefix']}:result:{task}"
        # Held while it runs (the heartbeat renews it): the owner waits on while it is.
        self.running = running = _running_key(self.keys, task)
        pipe = self.client.pipeline(transaction=False)
        pipe.set(running, self.me, ex=int(HELPER_GONE_S))
        pipe.hget(latest_key, match_id)
        latest = pipe.execute()[1]
        # None: the owner is gone (it stopped, or a killed worker's chunks were left queued),
        # and nobody will read the runs.
        if latest is None or int(latest) > seq:
            counts.dropped += 1
            reply: dict | None = {"dropped": True}
        else:
            try:
                reply = odds_chunk(*arguments)
            except Exception:
                log.exception("odds helper: the chunk of match %s at #%s failed", match_id,
                              seq)
                reply = {"failed": True}
            else:
                counts.ran += 1
                counts.cpu += (reply or {}).get("cpu", 0.0)
            if reply is None:
                reply = {"not_live": True}
        self.running = None
        pipe = self.client.pipeline(transaction=False)
        pipe.lpush(reply_key, json.dumps({**reply, "helper": self.me}))
        pipe.expire(reply_key, _REPLY_KEPT_S)
        pipe.delete(running)
        if "wins" in reply:
            pipe.hincrby(self.keys["helper_chunks"], self.me, 1)
            pipe.expire(self.keys["helper_chunks"], _COUNTS_KEPT_S)  # a centre gone: gone too
        pipe.execute()

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError):
            self.client.zrem(self.keys["helpers"], self.me)
        self.client.close()


def _running_key(keys: dict[str, str], task: str) -> str:
    return f"{keys['prefix']}:running:{task}"
