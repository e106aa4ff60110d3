"""The latency benchmark's figures, from what the load wrote and what the kiosks received.

A ball counts at the **last** kiosk of its lane pair: its latency is the line's last byte
written → the ``match_update`` carrying it at the kiosk that got it last.  Its odds latency
is the same line → the first ``match_odds`` at the pair's last kiosk whose ``seq`` is at
least the ball's event ``seq`` (odds that include the ball, its own or a later ball's).  Its
own odds were *superseded* when no ``match_odds`` describing the match between this ball and
the next arrived: the odds pool keeps only the latest request per match, so a ball that
comes before the previous one's odds started replaces them.

>>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5)
3.0
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate

from benchmarks._kiosk_clients import Arrivals, BallKey


@dataclass
class Written:
    at: float
    pair: str
    measured: bool


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` of 1)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


def spread(values: list[float], prefix: str = "") -> dict[str, float | None]:
    """p50, p95, p99, max and mean of ``values`` (ms), rounded; None for each if empty."""
    names = ("p50_ms", "p95_ms", "p99_ms", "max_ms", "mean_ms")
    if not values:
        return {prefix + name: None for name in names}
    figures = [percentile(values, 0.50), percentile(values, 0.95), percentile(values, 0.99),
               max(values), statistics.fmean(values)]
    return {prefix + name: round(value, 2) for name, value in zip(names, figures, strict=True)}


def ball_figures(written: Mapping[BallKey, Written], arrivals: Arrivals,
                 kiosks_on_pair: Mapping[str, set[int]], start: float
                 ) -> tuple[dict, list[tuple[float, float]]]:
    """The balls' latency figures, lost and unwatched counts, and the timeline."""
    latencies_ms, lost, unwatched = [], 0, 0
    timeline: list[tuple[float, float]] = []
    for key, entry in written.items():
        if not entry.measured:
            continue
        kiosks = kiosks_on_pair[entry.pair]
        seen = arrivals.times.get(key, {})
        if not kiosks:
            unwatched += 1
        elif kiosks <= seen.keys():
            latencies_ms.append((max(seen[kiosk] for kiosk in kiosks) - entry.at) * 1000)
            timeline.append((entry.at - start, latencies_ms[-1]))
        else:
            lost += 1
    return {"balls_measured": len(latencies_ms) + lost, **spread(latencies_ms), "lost": lost,
            "unwatched": unwatched}, timeline


class _OddsSeen:
    """One kiosk's ``match_odds`` of one match: the first that covers a seq, and whether one
    in a range of seqs arrived."""

    def __init__(self, received: list[tuple[float, int, int]]):
        self.times = [at for at, _, _ in received]
        self.covered = list(accumulate((seq for _, seq, _ in received), max))
        self.seqs = sorted({seq for _, seq, _ in received})

    def first_covering(self, seq: int) -> float | None:
        index = bisect.bisect_left(self.covered, seq)
        return self.times[index] if index < len(self.times) else None

    def any_between(self, low: int, high: float) -> bool:
        index = bisect.bisect_left(self.seqs, low)
        return index < len(self.seqs) and self.seqs[index] < high


def odds_figures(written: Mapping[BallKey, Written], arrivals: Arrivals,
                 kiosks_on_pair: Mapping[str, set[int]]) -> dict:
    """The odds' latency figures (``odds_`` keys) over the measured, watched balls."""
    seen = {key: _OddsSeen(received) for key, received in arrivals.odds.items()}
    nobody = _OddsSeen([])
    ball_seqs: dict[str, list[int]] = {}
    for key, seq in arrivals.seqs.items():
        if seq is not None:
            ball_seqs.setdefault(key[0], []).append(seq)
    for seqs in ball_seqs.values():
        seqs.sort()

    latencies_ms, superseded, missing = [], 0, 0
    for key, entry in written.items():
        kiosks = kiosks_on_pair[entry.pair]
        seq = arrivals.seqs.get(key)
        if not entry.measured or not kiosks or seq is None:
            continue
        match_id = key[0]
        later = ball_seqs[match_id]
        index = bisect.bisect_right(later, seq)
        next_seq = later[index] if index < len(later) else float("inf")
        views = [seen.get((kiosk, match_id), nobody) for kiosk in kiosks]
        firsts = [view.first_covering(seq) for view in views]
        if any(first is None for first in firsts):
            missing += 1
            continue
        latencies_ms.append((max(firsts) - entry.at) * 1000)
        if not all(view.any_between(seq, next_seq) for view in views):
            superseded += 1
    counted = len(latencies_ms) + missing
    iterations = [its for received in arrivals.odds.values() for _, _, its in received]
    return {
        "odds_balls": counted,
        **spread(latencies_ms, "odds_"),
        "odds_superseded_share": round(superseded / counted, 4) if counted else None,
        "odds_never_arrived": missing,
        "odds_messages_received": len(iterations),
        "odds_mean_iterations": round(statistics.fmean(iterations), 1) if iterations else None,
    }
