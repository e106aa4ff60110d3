"""A failed field in the desk's words: what is wrong, named as the tablet names it.

Pydantic says ``slots.0.lane: Input should be greater than or equal to 1`` or
``String should match pattern '^[A-Za-z0-9_.-]+$'``; the person at the desk should read "The
lane in row 1 of the lane slots must be at least 1." and "The match name may use only
letters, digits, dots, dashes and underscores (no spaces).".  The error JSON keeps the dotted
``field`` for programs; only its ``message`` is written here.

>>> plain_message({"type": "greater_than_equal", "loc": ("slots", 0, "lane"),
...                "msg": "Input should be greater than or equal to 1", "ctx": {"ge": 1}})
'The lane in row 1 of the lane slots must be at least 1.'
>>> plain_message({"type": "string_pattern_mismatch", "loc": ("match_id",), "msg": "",
...                "ctx": {"pattern": "^[A-Za-z0-9_.-]+$"}})
'The match name may use only letters, digits, dots, dashes and underscores (no spaces).'
>>> plain_message({"type": "less_than_equal", "loc": ("ante_cents",), "msg": "",
...                "ctx": {"le": 1_000_000}})
'The ante must be at most $10000.00.'
>>> plain_message({"type": "value_error", "loc": ("date",),
...                "msg": "Value error, must be a day as YYYY-MM-DD"})
'The date must be a day as YYYY-MM-DD.'
>>> plain_message({"type": "string_pattern_mismatch", "loc": ("league_id",), "msg": "",
...                "ctx": {"pattern": "^[a-z0-9][a-z0-9-]*$"}})
'The league id may use only lower-case letters, digits and dashes, and must start with a \
letter or digit (no spaces).'
>>> plain_message({"type": "extra_forbidden", "loc": ("colour",), "msg": ""})
'"colour" is not something this request takes.'
"""

from __future__ import annotations

from typing import Any

#: Field names as the desk knows them (the tablet's labels), by the API's field name.
FIELD_WORDS = {
    "match_id": "the match name", "slots": "the lane slots", "lane": "the lane",
    "slot": "the slot", "bowler": "the bowler's name", "seat_order": "the seat order",
    "games": "the number of games", "ante_cents": "the ante", "rules": "the rule changes",
    "pins": "the pins knocked down", "standing": "the pins left standing",
    "frame": "the frame", "ball": "the ball", "game": "the game", "reason": "the reason",
    "name": "the name", "card": "the card", "side": "the side", "from_bowler": "the bowler "
    "to take from", "decision_id": "the decision", "review_id": "the review",
    "action": "the action to undo", "expected_seq": "the match version (expected_seq)",
    "accept": "the yes-or-no answer", "foul": "foul", "gutter": "gutter", "split": "split",
    "date": "the date", "since": "the cursor (since)", "before": "the cursor (before)",
    "limit": "the page size (limit)", "order": "the order", "actor": "the actor",
    "type": "the event type",
    # The league pages' fields, as their forms label them.
    "league_id": "the league id", "rule_book": "the rule book", "weekday": "the night of the week",
    "start_time": "the start time", "time_zone": "the time zone", "lane_pairs": "the lane pairs",
    "handicap_percent": "the handicap percent", "handicap_basis": "the handicap basis",
    "lowest_draw_by": "the lowest-score draw", "scorer_name": "the name the scorer shows",
    "average": "the average", "team": "the team", "active": "retired or active",
    "csv": "the roster file", "night_date": "the night", "checked_in": "the bowlers checked in",
    "code": "the code", "request_id": "the request", "kind": "the kind of decision",
    "full_rack": "the full rack", "include_retired": "show retired bowlers",
    "ids": "the chosen held balls", "state": "open or resolved",
}
#: Fields counted in cents: their limits are shown as money.
MONEY_FIELDS = frozenset({"ante_cents", "cents"})
#: What a pattern means, for the patterns the schemas use.
PATTERN_WORDS = {
    "^[A-Za-z0-9_.-]+$": "may use only letters, digits, dots, dashes and underscores "
                         "(no spaces)",
    "^[a-z0-9][a-z0-9-]*$": "may use only lower-case letters, digits and dashes, and must "
                            "start with a letter or digit (no spaces)",
    "^([01]?[0-9]|2[0-3]):[0-5][0-9]$": "must be a time of day as HH:MM (24-hour), e.g. 19:00",
    "^[A-Za-z0-9 -]+$": "may use only letters, digits, spaces and dashes",
    "^[A-Za-z0-9_-]+$": "may use only letters, digits, dashes and underscores",
    r"\S": "must not be blank",
}


def subject(loc: tuple[Any, ...] | list[Any]) -> str:
    """The field at ``loc`` in words: ``("slots", 0, "lane")`` is "the lane in row 1 of the
    lane slots"."""
    parts = [part for part in loc if part not in ("body", "query")]
    if not parts:
        return "the request"
    words = FIELD_WORDS.get(str(parts[-1]), f'"{parts[-1]}"')
    rest = parts[:-1]
    if rest and isinstance(parts[-1], int):  # an item of a list: "item 2 of the seat order"
        return f"item {parts[-1] + 1} of {subject(rest)}"
    if len(rest) >= 2 and isinstance(rest[-1], int):
        return f"{words} in row {rest[-1] + 1} of {subject(rest[:-1])}"
    if rest:
        return f"{words} of {subject(rest)}"
    return words


def _amount(field: str, value: Any) -> str:
    if field in MONEY_FIELDS and isinstance(value, int):
        return f"${value // 100}.{value % 100:02d}"
    return str(value)


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def plain_message(error: dict[str, Any]) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as a desk sentence."""
    loc = tuple(error.get("loc") or ())
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    who = subject(loc)
    field = str(loc[-1]) if loc else ""
    limit_words = {"greater_than_equal": ("at least", "ge"), "less_than_equal": ("at most", "le"),
                   "greater_than": ("more than", "gt"), "less_than": ("less than", "lt")}
    if kind in limit_words:
        words, key = limit_words[kind]
        return _sentence(f"{who} must be {words} {_amount(field, ctx.get(key))}")
    if kind == "missing":
        return _sentence(f"{who} must be given")
    if kind == "extra_forbidden":
        return _sentence(f'"{field}" is not something this request takes')
    if kind == "string_pattern_mismatch":
        meaning = PATTERN_WORDS.get(str(ctx.get("pattern")), "has characters it may not have")
        return _sentence(f"{who} {meaning}")
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return _sentence(f"{who} must not be empty" if least == 1
                         else f"{who} must be at least {least} characters")
    if kind == "string_too_long":
        return _sentence(f"{who} is too long: at most {ctx.get('max_length')} characters")
    if kind == "too_short":
        return _sentence(f"{who} needs at least {ctx.get('min_length')}")
    if kind == "too_long":
        return _sentence(f"{who} may have at most {ctx.get('max_length')}")
    if kind.startswith("int_"):
        return _sentence(f"{who} must be a whole number")
    if kind.startswith("bool_"):
        return _sentence(f"{who} must be yes or no (true or false)")
    if kind.startswith("string_") or kind == "string_type":
        return _sentence(f"{who} must be text")
    if kind == "literal_error":
        return _sentence(f"{who} must be {ctx.get('expected', 'one of the listed choices')}")
    if kind in ("list_type", "dict_type", "model_type", "model_attributes_type"):
        return _sentence(f"{who} has the wrong shape")
    # A validator's own ValueError already says what is wrong, in words.
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    if message.startswith(("must ", "is ", "may ")):
        return _sentence(f"{who} {message}")
    return _sentence(message)
