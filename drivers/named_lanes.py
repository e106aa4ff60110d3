"""Lanes bowled by named bowlers: ``alley-poker simulate --names`` / ``--roster FILE``, so a
league secretary can rehearse a night with the roster's own scorer names.

The scorer types each bowler's name into the lane; a league match is seated from those names
(:mod:`alley_poker.service.seating`).  Given once, the names are laid out as a league night
lays out its check-in (:mod:`alley_poker.league.night_plan`): spread evenly over the lane
pairs in order (as many as matches of two or more bowlers need), the first pairs taking one
more, alternating the two lanes of a pair.  Give ``--lanes`` the lanes the league uses.  Given
once per lane, each list is that lane's, in slot order.

>>> [(s.lane, [b.name for b in s.bowlers]) for s in named_lanes([1, 2, 3, 4],
...     [["ANN", "BOB", "CY", "DEE", "ED", "FAY"]], seed=1)]
[(1, ['ANN', 'CY']), (2, ['BOB']), (3, ['DEE', 'FAY']), (4, ['ED'])]
>>> [(s.lane, [b.name for b in s.bowlers]) for s in named_lanes([3, 4], [["ANN"], ["BOB"]])]
[(3, ['ANN']), (4, ['BOB'])]
>>> named_lanes([1, 2], [["ANN", "B;B"]])
Traceback (most recent call last):
...
ValueError: --names: 'B;B' cannot be a scorer's name: the scorer's name is plain letters, \
digits and punctuation without $ * , ; = < >; ';' cannot be in it
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from alley_poker.league.league_errors import LeagueError, RosterImportError
from alley_poker.league.roster import BowlerDraft, parse_roster_csv
from alley_poker.odds.ball_model import BowlerProfile
from drivers.simulator import LaneSetup

#: The most bowlers the simulator puts on one lane.
MAX_PER_LANE = 8
#: The averages the ball model is calibrated for; a roster average outside is bowled at the edge.
MODEL_AVERAGES = (100, 240)


def names_from(option: Sequence[str]) -> list[list[str]]:
    """``--names`` values (``ANN,BOB,CY``, repeated per lane) as lists of names."""
    return [[name.strip() for name in value.split(",") if name.strip()] for value in option]


def roster_names(path: Path) -> list[tuple[str, int | None]]:
    """The active bowlers of a roster file as (scorer's name, average), in file order."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as problem:
        raise ValueError(f"--roster: cannot read {path}: {problem}") from None
    try:
        drafts = parse_roster_csv(text)
    except RosterImportError as bad:
        raise ValueError(f"--roster {path}: {bad}") from None
    return [(d.scorer_name, d.average) for d in drafts if d.active]


def named_lanes(lanes: Sequence[int], groups: Sequence[Sequence[str | tuple[str, int | None]]],
                *, seed: int | None = None) -> list[LaneSetup]:
    """The simulator's lanes for ``groups`` of names (one group: spread like a league night;
    one per lane: each lane's own).  A name may carry an average, ``(name, average)``; one
    without is given an average from ``seed``."""
    rng = random.Random(seed)
    people = [[_profile(item, rng) for item in group] for group in groups]
    if not any(people):
        raise ValueError("--names: name at least one bowler")
    if len(people) == 1:
        layout = _spread(list(lanes), people[0])
    elif len(people) == len(lanes):
        layout = dict(zip(lanes, people, strict=True))
    else:
        raise ValueError(f"--names: give the names once (spread over the lanes) or once per "
                         f"lane ({len(lanes)} lanes), not {len(people)} times")
    seen: set[str] = set()
    for bowlers in layout.values():
        for profile in bowlers:
            if profile.name.casefold() in seen:
                raise ValueError(f"--names: {profile.name!r} is named twice")
            seen.add(profile.name.casefold())
    for lane, bowlers in layout.items():
        if len(bowlers) > MAX_PER_LANE:
            raise ValueError(f"--names: lane {lane} would have {len(bowlers)} bowlers; the "
                             f"simulator bowls at most {MAX_PER_LANE} a lane (give more lanes)")
    return [LaneSetup(lane, tuple(bowlers)) for lane, bowlers in layout.items() if bowlers]


def _profile(item: str | tuple[str, int | None], rng: random.Random) -> BowlerProfile:
    name, average = (item, None) if isinstance(item, str) else item
    try:
        name = BowlerDraft(name, name).scorer_name
    except LeagueError as bad:
        reason = str(bad).removeprefix("name: ").removeprefix("scorer_name: ")
        raise ValueError(f"--names: {name!r} cannot be a scorer's name: {reason}") from None
    low, high = MODEL_AVERAGES
    bowled = rng.randint(120, 210) if average is None else min(max(average, low), high)
    return BowlerProfile.for_average(name, bowled)


def _spread(lanes: list[int], people: list[BowlerProfile]) -> dict[int, list[BowlerProfile]]:
    """As a league night lays out its check-in: over as many lane pairs as matches of two or
    more need, evenly (first pairs one more), alternating the lanes of a pair."""
    pairs: list[list[int]] = []
    for lane in lanes:
        if lane % 2 == 0 and pairs and pairs[-1] == [lane - 1]:
            pairs[-1].append(lane)
        else:
            pairs.append([lane])
    # As many pairs as matches of at least two bowlers need (the rule book's least).
    pairs = pairs[:max(1, min(len(pairs), len(people) // 2))]
    base, extra = divmod(len(people), len(pairs))
    layout: dict[int, list[BowlerProfile]] = {lane: [] for lane in lanes}
    start = 0
    for index, pair in enumerate(pairs):
        share = people[start:start + base + (1 if index < extra else 0)]
        start += len(share)
        for turn, profile in enumerate(share):
            layout[pair[turn % len(pair)]].append(profile)
    return layout
