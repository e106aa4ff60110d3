"""Matches kept in the event store: run ledger commands durably, serve their states.

:class:`MatchRepository` is the one place commands meet the database. For each command it
asks the ledger for the events and the state after them (``decide``, pure), appends the
events to the store in one transaction, and only then takes that state as the match's cached
one, so what the service shows is never ahead of what is stored. Commands for one match run
one at a time (a lock per match); different matches run in parallel. Another process
appending to the same match is caught by the store's optimistic concurrency: the repository
catches up with the log and decides the command once more against the fresh state; if it
loses the race again the command is refused. A command refused against a cached state that
another process has since moved on is likewise decided once more against the log. A caller
that names the seq it decided on (``expected_seq``, the API's stale-version check) gets no
second decision: a match that has moved on refuses the command with :class:`StaleVersion`.

Appends from different matches share commits (:class:`GroupCommit`): while one thread's
transaction is being written and fsynced, the appends that arrive queue up and then go to
the disk together in the next one.  An fsync costs milliseconds whatever it carries, so a
hundred lanes dealing at once wait for a few commits instead of queueing for one each.

>>> import random
>>> from alley_poker.ledger import commands
>>> repo = MatchRepository(EventStore.open("sqlite://"), rng_factory=lambda: random.Random(7))
>>> for command in [commands.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
...                 commands.ConsentToAnte("Ann", actor="bowler:Ann"),
...                 commands.ConsentToAnte("Bob", actor="bowler:Bob"),
...                 commands.StartMatch(actor="commissioner:pat")]:
...     _ = repo.execute("m1", command)
>>> [event.type for event in repo.execute("m1", commands.RecordBall("Ann", 1, 10,
...                                                                 actor="feed:lane-3"))][:2]
['ball_recorded', 'card_drawn']
>>> restarted = MatchRepository(repo.store)
>>> restarted.state("m1") == repo.state("m1"), restarted.state("m1").status
(True, 'playing')
>>> repo.execute("m1", commands.RecordBall("Zed", 1, 10, actor="feed:lane-3"))
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
alley_poker.ledger.ledger_errors.CommandRefused: bowler: ...'Zed'...
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from alley_poker import __version__
from alley_poker.fairness.deal import SeededDeal, new_seed
from alley_poker.ledger import (
    CommandRefused,
    Event,
    EventFormatError,
    InvariantViolation,
    MatchState,
    StaleVersion,
    check_invariants,
    decide,
    event_from_record,
    event_to_record,
    replay,
)
from alley_poker.ledger.commands import Command
from alley_poker.store.deal_seeds import SeedVault
from alley_poker.store.event_store import ConcurrencyConflict, EventStore, utcnow

log = logging.getLogger(__name__)


class MatchRepository:
    """Matches rebuilt from the store on first use, kept in memory, changed only by commands.

    Without ``rng_factory`` every new match is dealt fairly: a secret seed per match (kept in
    :class:`~alley_poker.store.deal_seeds.SeedVault`) committed in its log before any card
    and revealed at settlement (docs/fairness.md).  ``rng_factory`` is the explicit
    test-only alternative: a seeded ``random.Random`` per command, whose matches carry no
    commitment (tests, scenarios, simulations that need the same cards every run).
    ``clock`` gives the aware UTC time stamped on the events a command produces.
    ``snapshots`` keeps states on disk (by default beside a SQLite database file; ``None``:
    never) so that rebuilding a long log starts from its latest snapshot instead of its
    first event.
    """

    def __init__(
        self,
        store: EventStore,
        rng_factory: Callable[[], random.Random] | None = None,
        clock: Callable[[], datetime] = utcnow,
        snapshots: SnapshotFolder | str | None = "beside the database",
    ) -> None:
        self.store = store
        # A cache of states on disk so a restart does not fold every log from the start.
        self.snapshots = (SnapshotFolder.beside(store) if isinstance(snapshots, str)
                          else snapshots)
        self._rng_factory = rng_factory
        self._seeds = SeedVault(store) if rng_factory is None else None
        self._clock = clock
        self._states: dict[str, MatchState] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._commits = GroupCommit(store)

    # ------------------------------------------------------------------------------ commands

    def execute(self, match_id: str, command: Command, *,
                expected_seq: int | None = None) -> list[Event]:
        """Run ``command`` against the match; return the events it stored (in order).

        Raises :class:`CommandRefused` when the ledger refuses the command, or when another
        writer changed the match twice while this command was being decided; either way
        nothing was stored and the match is as it was.  With ``expected_seq`` (the seq the
        caller saw when it chose the command) the command runs only on the match at that
        seq, else :class:`StaleVersion`; it is never decided again on a newer log.
        """
        with self._lock_for(match_id):
            state = self._state_locked(match_id)
            if expected_seq is not None:
                return self._execute_at(match_id, state, command, expected_seq)
            try:
                return self._decide_and_store(match_id, state, command)
            except ConcurrencyConflict as conflict:
                log.info("%s; catching up and deciding %s again", conflict, type(command).__name__)
            except CommandRefused:
                # Refused against what this process knew.  If another process has moved the
                # match on meanwhile, that knowledge was stale: decide again on the real log.
                if self.store.last_seq(match_id) == state.seq:
                    raise
            state = self._catch_up(match_id, state)
            try:
                return self._decide_and_store(match_id, state, command)
            except ConcurrencyConflict as conflict:
                self._catch_up(match_id, state)  # so the caller's next try starts current
                raise CommandRefused(
                    "the match kept changing at another desk or lane while this was "
                    "decided; nothing was done, try again",
                    "match_id",
                ) from conflict

    def _execute_at(self, match_id: str, state: MatchState, command: Command,
                    expected_seq: int) -> list[Event]:
        # The cache may trail the log (another process appended): catch up before calling
        # the caller stale.  The append below carries ``state.seq`` as the store's expected
        # seq, so a writer that gets in between is caught there, atomically, by the store.
        if state.seq != expected_seq:
            state = self._catch_up(match_id, state)
        if state.seq != expected_seq:
            raise StaleVersion(expected_seq=expected_seq, actual_seq=state.seq)
        try:
            return self._decide_and_store(match_id, state, command)
        except ConcurrencyConflict:
            pass
        except CommandRefused:
            if self.store.last_seq(match_id) == state.seq:
                raise  # refused on the very match the caller saw
        state = self._catch_up(match_id, state)
        raise StaleVersion(expected_seq=expected_seq, actual_seq=state.seq) from None

    def _decide_and_store(self, match_id: str, state: MatchState, command: Command) -> list[Event]:
        source = self._source(match_id, state)
        events, after = decide(state, command, rng=source, now=self._clock())
        if not events:
            return []
        if state.status == "new" and isinstance(source, SeededDeal) and self._seeds:
            # The seed of a new match is stored only once the ledger accepts its creation
            # (a refused one leaves nothing behind); another process may have stored one
            # first, and then the match is dealt from that one.
            kept = self._seeds.seed_for(match_id, create=True, fresh=source.seed)
            if kept != source.seed:
                events, after = decide(state, command, rng=SeededDeal(kept), now=self._clock())
        self._commits.append(match_id, [event_to_record(e) for e in events], state.seq)
        # Stored: from here on the store is the truth, and ``after`` is the match with these
        # very events folded in and every invariant checked.  It replaces the cached state
        # (which is never changed in place, so a state handed out by :meth:`shared_state`
        # stays as it was).
        self._states[match_id] = after
        self._maybe_snapshot(after, event_to_record(events[-1]))
        return events

    def _source(self, match_id: str, state: MatchState) -> random.Random | SeededDeal:
        if self._seeds is None:
            return self._rng_factory()
        if state.status == "new":  # creating the match: find its seed, or draw one
            seed = self._seeds.seed_for(match_id) or new_seed()
        elif state.fairness is not None:
            seed = self._seeds.seed_for(match_id)
        else:  # a match from before fair dealing: the ledger deals it from SystemRandom
            return random.SystemRandom()
        if seed is None:
            raise CommandRefused(f"match {match_id} is dealt from a committed seed that is "
                                 "missing from this database; nothing was done", "match_id")
        return SeededDeal(seed)

    # -------------------------------------------------------------------------------- states

    def state(self, match_id: str) -> MatchState:
        """A copy of the match's current state (``status == "new"`` for an unknown match).

        The first call for a match rebuilds it from the store and checks every invariant;
        later calls answer from memory.  Raises :class:`InvariantViolation` (or
        ``EventFormatError``) for a log that does not rebuild into a sound match.
        """
        with self._lock_for(match_id):
            return self._state_locked(match_id).clone()

    def shared_state(self, match_id: str, *, refresh: bool = False) -> MatchState:
        """The match's current state itself, not a copy: for reading only, never to change.

        Cached states are replaced, never changed in place, so what this returns stays the
        state of one moment however the match moves on.  It saves a copy of the whole match
        on every read of the ball path (the router's and the screens').  ``refresh`` first
        catches up with events other processes appended.
        """
        with self._lock_for(match_id):
            state = self._state_locked(match_id)
            return self._catch_up(match_id, state) if refresh else state

    def refresh(self, match_id: str) -> MatchState:
        """Catch up with events other processes appended since this one last looked."""
        return self.shared_state(match_id, refresh=True).clone()

    def _catch_up(self, match_id: str, state: MatchState) -> MatchState:
        # The cached state is only ever replaced after a successful append, so it is always
        # a true prefix of the log: folding in the newer events brings it up to date.
        newer = self.store.load(match_id, after_seq=state.seq)
        if not newer:
            return state
        state = state.clone()  # the cached one may have been handed out (shared_state)
        try:
            for record in newer:
                state.apply(event_from_record(record))
            check_invariants(state)
        except BaseException as error:
            self._states.pop(match_id, None)
            if isinstance(error, InvariantViolation | EventFormatError):
                error.add_note(f"while catching match {match_id!r} up from {self.store!r}")
            raise
        self._states[match_id] = state
        return state

    def _state_locked(self, match_id: str) -> MatchState:
        state = self._states.get(match_id)
        return state if state is not None else self._rebuild(match_id)

    def _rebuild(self, match_id: str) -> MatchState:
        self._states.pop(match_id, None)
        state = self._from_snapshot(match_id)
        if state is not None:
            self._states[match_id] = state
            return state
        records = self.store.load(match_id)
        try:
            state = replay(match_id, (event_from_record(record) for record in records))
            check_invariants(state)
        except (InvariantViolation, EventFormatError) as error:
            error.add_note(f"while rebuilding match {match_id!r} from {self.store!r}")
            raise
        if records:  # an unknown id (a typo, a probe) must not take up memory for good
            self._states[match_id] = state
            self._maybe_snapshot(state, records[-1])
        return state

    def _from_snapshot(self, match_id: str) -> MatchState | None:
        """The match from its snapshot plus the events after it; None without a usable one.

        A snapshot is used only if the store still holds the very event it was taken at
        (same seq, type and time): a database restored from a backup, or replaced, is never
        mixed with another log's snapshot.  The result is checked like a full rebuild.
        """
        if self.snapshots is None:
            return None
        found = self.snapshots.load(match_id)
        if found is None:
            return None
        state, (seq, event_type, at) = found
        records = self.store.load(match_id, after_seq=seq - 1)
        if not records or (records[0]["seq"], records[0]["type"], records[0].get("at")) != (
                seq, event_type, at):
            log.info("snapshot of %s at seq %d does not match the store; folding the log",
                     match_id, seq)
            return None
        try:
            for record in records[1:]:
                state.apply(event_from_record(record))
            check_invariants(state)
        except Exception as error:  # any surprise in a cache means: fold the log instead
            log.warning("snapshot of %s at seq %d does not fold (%s); folding the log",
                        match_id, seq, error)
            return None
        if len(records) > 1:
            self._maybe_snapshot(state, records[-1])
        return state

    def _maybe_snapshot(self, state: MatchState, last_record: Mapping[str, Any]) -> None:
        if self.snapshots is not None:
            self.snapshots.maybe_save(state, last_record)

    def _lock_for(self, match_id: str) -> threading.Lock:
        with self._locks_guard:
            lock = self._locks.get(match_id)
            if lock is None:
                lock = self._locks[match_id] = threading.Lock()
            return lock


class SnapshotFolder:
    """Match states pickled to files, one per match: a cache that only ever saves time.

    A match is saved when its log has grown by ``every`` events since its last snapshot
    (about 1 ms, once every few dozen balls).  Files are written whole and renamed into
    place; a missing, unreadable, stale or foreign one is ignored and the log folded
    instead, so the folder may be deleted at any time and is never part of a backup.  The
    folder is private to the service's user (mode 0700): a pickle is only ever read from
    where this process wrote it.

    >>> import random, tempfile
    >>> from alley_poker.ledger import commands
    >>> folder = Path(tempfile.mkdtemp())
    >>> store = EventStore.open(f"sqlite:///{folder}/alley.sqlite3")
    >>> repo = MatchRepository(store, rng_factory=lambda: random.Random(3),
    ...                        snapshots=SnapshotFolder(folder / "snaps", every=1))
    >>> for command in [commands.CreateMatch("m1", ["Ann", "Bob"], actor="commissioner:pat"),
    ...                 commands.ConsentToAnte("Ann", actor="bowler:Ann"),
    ...                 commands.ConsentToAnte("Bob", actor="bowler:Bob"),
    ...                 commands.StartMatch(actor="commissioner:pat")]:
    ...     _ = repo.execute("m1", command)
    >>> snapped_at = repo.state("m1").seq
    >>> other_writer = MatchRepository(store, snapshots=None)  # moves the log on
    >>> _ = other_writer.execute("m1", commands.RecordBall("Ann", 1, 10, actor="feed:lane-1"))
    >>> restarted = MatchRepository(store, snapshots=SnapshotFolder(folder / "snaps"))
    >>> restarted._from_snapshot("m1").seq > snapped_at  # the snapshot, then the new events
    True
    >>> restarted.state("m1") == other_writer.state("m1")
    True
    >>> _ = (folder / "snaps" / "m1.pickle").write_bytes(b"torn")  # ignored: the log is folded
    >>> MatchRepository(store, snapshots=SnapshotFolder(folder / "snaps")).state("m1") \\
    ...     == other_writer.state("m1")
    True
    >>> store.close()
    """

    FORMAT = 1

    def __init__(self, folder: Path, *, every: int = 200) -> None:
        self.folder = folder
        self.every = every
        self._saved_at: dict[str, int] = {}
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)

    @classmethod
    def beside(cls, store: EventStore) -> SnapshotFolder | None:
        """``<database>.snapshots/`` next to a SQLite file; None for other databases."""
        engine = getattr(store, "engine", None)
        database = engine.url.database if engine is not None else None
        if engine is None or engine.dialect.name != "sqlite" or not database \
                or database == ":memory:":
            return None
        return cls(Path(database).with_name(Path(database).name + ".snapshots"))

    def _path(self, match_id: str) -> Path:
        return self.folder / f"{quote(match_id, safe='')}.pickle"

    def maybe_save(self, state: MatchState, last_record: Mapping[str, Any]) -> None:
        if state.seq - self._saved_at.get(state.match_id, 0) < self.every:
            return
        fingerprint = (last_record["seq"], last_record["type"], last_record.get("at"))
        if fingerprint[0] != state.seq:
            return
        path = self._path(state.match_id)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
        try:
            # Owner only, like the ledger it is folded from (the state holds the deal seeds).
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(pickle.dumps(
                    {"format": self.FORMAT, "version": __version__, "fingerprint": fingerprint,
                     "state": state}, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, path)
        except OSError as error:  # a full disk must not stop the dealing
            log.warning("cannot save the snapshot of %s: %s", state.match_id, error)
            return
        self._saved_at[state.match_id] = state.seq

    def load(self, match_id: str) -> tuple[MatchState, tuple[int, str, Any]] | None:
        try:
            saved = pickle.loads(self._path(match_id).read_bytes())
            if saved["format"] != self.FORMAT or saved["version"] != __version__:
                return None
            state, fingerprint = saved["state"], tuple(saved["fingerprint"])
        except FileNotFoundError:
            return None
        except Exception as error:  # a torn or foreign file: fold the log instead
            log.info("ignoring the snapshot of %s: %r", match_id, error)
            return None
        if not isinstance(state, MatchState) or state.match_id != match_id \
                or state.seq != fingerprint[0] \
                or vars(state).keys() != vars(MatchState.empty(match_id)).keys():
            return None  # another match's, or a state of another shape (code changed)
        self._saved_at[match_id] = state.seq
        return state, fingerprint


class GroupCommit:
    """Appends of different matches, written to the store together while it is busy.

    The first thread to append while no commit is under way writes alone; appends that
    arrive while it writes wait, and the first of them then writes them all in one
    transaction (``store.append_batch``), so one fsync carries every match that dealt in
    the meantime.  Each match's records are still all-or-nothing and checked against its
    expected seq; a conflict or a bad record fails only that append.  A store without
    ``append_batch`` gets one append at a time, queued here: SQLite's busy handler sleeps
    (up to 100 ms a try) when one process's connections race for its write lock.

    >>> class BatchingStore:  # answers like EventStore.append_batch
    ...     def append_batch(self, appends):
    ...         return [ConcurrencyConflict(match_id, seq, seq + 1) if match_id == "raced"
    ...                 else seq + len(records) for match_id, records, seq in appends]
    >>> commits = GroupCommit(BatchingStore())
    >>> commits.append("m1", [{"seq": 4}, {"seq": 5}], 3)
    5
    >>> commits.append("raced", [{"seq": 1}], 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    alley_poker.store.store_errors.ConcurrencyConflict: ...
    """

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._batched = callable(getattr(store, "append_batch", None))
        # PostgreSQL queues writers without sleeping; only SQLite needs the queue here.
        sqlite = getattr(store, "dialect", "sqlite") == "sqlite"
        self._one_at_a_time = threading.Lock() if sqlite else contextlib.nullcontext()
        self._changed = threading.Condition()
        self._waiting: list[_PendingAppend] = []
        self._writing = False

    def append(self, match_id: str, records: Sequence[Mapping[str, Any]],
               expected_seq: int) -> int:
        """Append like ``store.append``; returns the new last seq or raises its errors."""
        if not self._batched:
            with self._one_at_a_time:
                return self.store.append(match_id, records, expected_seq=expected_seq)
        mine = _PendingAppend(match_id, records, expected_seq)
        with self._changed:
            self._waiting.append(mine)
            while self._writing and not mine.done:
                self._changed.wait()
            if not mine.done:  # nobody is writing: write everything that is waiting
                self._writing = True
                batch, self._waiting = self._waiting, []
        if not mine.done:
            self._write(batch)
        if isinstance(mine.outcome, Exception):
            raise mine.outcome
        if mine.outcome is None:  # the batch failed as a whole: alone, for our own error
            return self.store.append(match_id, records, expected_seq=expected_seq)
        return mine.outcome

    def _write(self, batch: list[_PendingAppend]) -> None:
        outcomes: list[int | Exception | None] = [None] * len(batch)
        try:
            outcomes = list(self.store.append_batch(
                [(item.match_id, item.records, item.expected_seq) for item in batch]))
        except Exception:
            # The batch as a whole failed (the database went away, say): each append is
            # then tried on its own, so that each caller gets its own error.
            log.exception("group commit of %d appends failed; appending one by one", len(batch))
        finally:
            with self._changed:
                for item, outcome in zip(batch, outcomes, strict=True):
                    item.outcome, item.done = outcome, True
                self._writing = False
                self._changed.notify_all()


class _PendingAppend:
    def __init__(self, match_id: str, records: Sequence[Mapping[str, Any]], expected_seq: int):
        self.match_id = match_id
        self.records = records
        self.expected_seq = expected_seq
        self.done = False
        self.outcome: int | Exception | None = None
