"""A screen's update as a patch of the public view it already holds.

A kiosk gets a match's whole public view once (``state``, on joining) and after that only
what each change changed: the top-level fields that differ and the panels of the bowlers
whose panel differs.  A ball changes one or two panels of a dozen, so a patch is a fraction
of the view — and the view is sent to every kiosk of the lane pair on every ball, where
decoding it was most of a kiosk's work and a good share of the server's.

A patch is applied only to the view it was made from (``base_seq``, the view's ``seq``); a
screen holding anything else asks for the whole view again (it re-joins).

>>> before = {"seq": 4, "pot_cents": 600, "bowlers": {"Ann": {"hand": []}, "Bob": {"hand": []}}}
>>> after = {"seq": 6, "pot_cents": 600, "bowlers": {"Ann": {"hand": ["AS"]},
...                                                  "Bob": {"hand": []}}}
>>> patch = view_patch(before, after)
>>> patch
{'seq': 6, 'bowlers': {'Ann': {'hand': ['AS']}}}
>>> apply_patch(before, patch) == after
True
"""

from __future__ import annotations

from typing import Any

View = dict[str, Any]

#: A field the earlier view did not have (so any value in the later one is a change).
_MISSING = object()


def view_patch(before: View, after: View) -> View:
    """What turns ``before`` into ``after``: changed fields, changed bowler panels, and the
    names of bowlers no longer in the match (``bowlers_removed``)."""
    patch = {key: value for key, value in after.items()
             if key != "bowlers" and before.get(key, _MISSING) != value}
    old_panels, new_panels = before.get("bowlers", {}), after.get("bowlers", {})
    changed = {name: panel for name, panel in new_panels.items()
               if old_panels.get(name) != panel}
    if changed:
        patch["bowlers"] = changed
    removed = [name for name in old_panels if name not in new_panels]
    if removed:
        patch["bowlers_removed"] = removed
    return patch


def apply_patch(view: View, patch: View) -> View:
    """``view`` with ``patch`` applied, as a new dict (``view`` is left as it was).

    >>> apply_patch({"seq": 1, "bowlers": {"Ann": {}, "Bob": {}}},
    ...             {"seq": 2, "bowlers_removed": ["Bob"]})
    {'seq': 2, 'bowlers': {'Ann': {}}}
    """
    result = {**view, **{key: value for key, value in patch.items()
                         if key not in ("bowlers", "bowlers_removed")}}
    bowlers = {**view.get("bowlers", {}), **patch.get("bowlers", {})}
    for name in patch.get("bowlers_removed", ()):
        bowlers.pop(name, None)
    result["bowlers"] = bowlers
    return result


class MissedUpdate(LookupError):
    """A patch for a state other than the one held: ask for the whole state again."""


def take_update(held: View | None, message: dict[str, Any]) -> View | None:
    """The state a client holds after a ``state`` or ``match_update`` message.

    ``held`` comes back unchanged for an older copy arriving late; :class:`MissedUpdate`
    is raised when the message patches a state the client does not hold (the kiosk page
    does the same in ``shared_match_updates.js``).

    >>> held = take_update(None, {"match_id": "m1", "state": {"seq": 4, "bowlers": {}}})
    >>> take_update(held, {"match_id": "m1", "base_seq": 4, "seq": 5, "patch": {"seq": 5}})
    {'seq': 5, 'bowlers': {}}
    >>> take_update(held, {"match_id": "m1", "base_seq": 3, "seq": 5, "patch": {"seq": 5}})
    Traceback (most recent call last):
    ...
    alley_poker.web.view_patch.MissedUpdate: m1: a patch of seq 3, but seq 4 is held
    """
    if "state" in message:
        state = message["state"]
        return held if held is not None and held["seq"] > state["seq"] else state
    if held is not None and held["seq"] >= message["seq"]:
        return held
    if held is None or held["seq"] != message["base_seq"]:
        holding = "no state" if held is None else f"seq {held['seq']}"
        raise MissedUpdate(f"{message.get('match_id')}: a patch of seq {message['base_seq']}, "
                           f"but {holding} is held")
    return apply_patch(held, message["patch"])

