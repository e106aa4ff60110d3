"""The held balls' side of the audit log: what the desk (or the router, when a gap filled)
did with the balls held for it, read from the held-ball log itself — that log is the record,
so nothing is copied into the matches' event logs.

One command resolves many items with one time, actor, outcome and reason (``resolve_many``),
so the items sharing all four are one line: a bulk discard of 142 balls reads
"discarded 142 held balls on lanes 1-2: cable test", not 142 lines.

>>> from datetime import UTC, datetime
>>> at = datetime(2026, 3, 3, 22, 15, tzinfo=UTC)
>>> item = {"id": 1, "lane": 1, "match_id": None, "bowler": None, "outcome": "discarded",
...         "resolved_by": "commissioner:pat", "resolved_reason": "cable test",
...         "resolved_at": at, "ball": {"game": 1, "frame": 2, "ball": 1}}
>>> items = [item, {**item, "id": 2, "lane": 2}, {**item, "id": 3, "lane": 2}]
>>> [line["description"] for line in held_resolution_lines(items)]
['discarded 3 held balls on lanes 1-2: cable test']
>>> one = {**item, "bowler": "Ann", "outcome": "applied", "resolved_reason": ""}
>>> held_resolution_lines([one])[0]["description"]
'applied the held ball of Ann (game 1, frame 2, ball 1) on lane 1'
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import tzinfo
from itertools import groupby
from typing import Any

from alley_poker.service.held import HeldBalls

#: What each outcome did, as the desk reads it.
_DONE = {"discarded": "discarded", "applied": "applied", "resynced": "re-synced from the scorer",
         "placed": "placed (its gap filled)"}


def lanes_words(lanes: Iterable[int]) -> str:
    """Lanes as a person writes them: "lane 3", "lanes 1-2", "lanes 1-2, 5".

    >>> lanes_words([2, 1, 1]), lanes_words([3]), lanes_words([1, 2, 3, 5])
    ('lanes 1-2', 'lane 3', 'lanes 1-3, 5')
    """
    numbers = sorted(set(lanes))
    runs: list[list[int]] = []
    for lane in numbers:
        if runs and lane == runs[-1][-1] + 1:
            runs[-1].append(lane)
        else:
            runs.append([lane])
    text = ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
    return ("lane " if len(numbers) == 1 else "lanes ") + text


def _key(item: dict[str, Any]) -> tuple[Any, ...]:
    return (item["resolved_at"], item["resolved_by"], item["outcome"], item["resolved_reason"])


def _what(items: list[dict[str, Any]]) -> str:
    done = _DONE.get(items[0]["outcome"], items[0]["outcome"])
    if len(items) == 1 and items[0]["bowler"]:
        ball = items[0]["ball"]
        what = (f"{done} the held ball of {items[0]['bowler']} (game {ball['game']}, "
                f"frame {ball['frame']}, ball {ball['ball']})")
    else:
        what = f"{done} {len(items)} held ball{'' if len(items) == 1 else 's'}"
    what += " on " + lanes_words(item["lane"] for item in items)
    reason = (items[0]["resolved_reason"] or "").strip()
    return what + (f": {reason}" if reason else "")


def held_resolution_lines(items: Iterable[dict[str, Any]], *,
                          zone: tzinfo | None = None) -> list[dict[str, Any]]:
    """Resolved held items (the log's ``resolved_items``, latest first) as audit lines, one
    per command: ``time`` (UTC) and ``local_time`` (``zone``'s), ``actor``, ``outcome``,
    ``count``, ``lanes``, ``match_ids`` (the matches the balls were held for), ``reason``,
    ``item_ids`` and ``description``."""
    ordered = sorted(items, key=lambda item: (item["resolved_at"], item["id"]), reverse=True)
    lines = []
    for _key_value, grouped in groupby(ordered, key=_key):
        group = sorted(grouped, key=lambda item: item["id"])
        at = group[0]["resolved_at"]
        lines.append({
            "time": at.isoformat(timespec="seconds"),
            "local_time": at.astimezone(zone).isoformat(timespec="seconds"),
            "actor": group[0]["resolved_by"] or "", "outcome": group[0]["outcome"],
            "count": len(group), "lanes": sorted({item["lane"] for item in group}),
            "match_ids": sorted({item["match_id"] for item in group if item["match_id"]}),
            "reason": group[0]["resolved_reason"] or "",
            "item_ids": [item["id"] for item in group], "description": _what(group)})
    return lines


def held_resolutions(held: HeldBalls, *, match_id: str | None = None,
                     zone: tzinfo | None = None, limit: int = 5000) -> list[dict[str, Any]]:
    """:func:`held_resolution_lines` of the latest ``limit`` resolved items (of one match)."""
    return held_resolution_lines(held.resolved_items(match_id, limit=limit), zone=zone)
