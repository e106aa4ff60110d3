"""Turning scenario steps (one JSON object per line) into ledger commands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alley_poker.ledger import commands as c

FEED = "feed:scenario"
COMMISSIONER = "commissioner:scenario"


class StepError(ValueError):
    """A step that is not valid scenario input (the runner adds the line number)."""


def table_of(step: Mapping[str, Any], key: str) -> dict[str, Any]:
    body = step[key]
    if not isinstance(body, Mapping):
        raise StepError(f"{key!r} must be an object, got {body!r}")
    return dict(body)


def take(body: dict[str, Any], key: str, kinds: type | tuple[type, ...],
          what: str, *, default: Any = ..., optional: bool = False) -> Any:
    if key not in body:
        if default is not ...:
            return default
        raise StepError(f"{what} needs {key!r}")
    value = body.pop(key)
    if value is None and optional:
        return None
    if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is not bool):
        raise StepError(f"{what}: {key!r} has the wrong type ({value!r})")
    return value


def no_more_keys(body: dict[str, Any], what: str) -> None:
    if body:
        raise StepError(f"{what}: unknown key(s) {', '.join(sorted(body))}")


def ball_command(step: Mapping[str, Any]) -> tuple[c.RecordBall, int | None]:
    """A ``ball`` step: the command, and the frame the step says it is (if it says)."""
    body = table_of(step, "ball")
    bowler = take(body, "bowler", str, "ball")
    pins = take(body, "pins", int, "ball")
    standing = take(body, "standing", list, "ball", default=None, optional=True)
    command = c.RecordBall(
        bowler, take(body, "game", int, "ball", default=None, optional=True), pins,
        standing=standing,
        foul=take(body, "foul", bool, "ball", default=False),
        gutter=take(body, "gutter", bool, "ball", default=None, optional=True),
        split=take(body, "split", bool, "ball", default=None, optional=True),
        actor=_ball_actor(take(body, "by", str, "ball", default="feed")),
    )
    frame = take(body, "frame", int, "ball", default=None, optional=True)
    no_more_keys(body, "ball")
    return command, frame


def _ball_actor(by: str) -> str:
    """Who bowled the ball into the ledger: the scorer's feed, or the desk's manual entry
    (a desk ball is one the commissioner may undo)."""
    if by not in ("feed", "desk"):
        raise StepError(f"ball: 'by' must be 'feed' or 'desk', not {by!r}")
    return FEED if by == "feed" else COMMISSIONER


def decide_command(body: dict[str, Any], actor: str | None = None) -> c.Command:
    """A ``decide`` step (or a commissioner ``resolve``, with the commissioner as actor)."""
    bowler = take(body, "bowler", str, "decide")
    kind = take(body, "kind", str, "decide")
    actor = actor or f"bowler:{bowler}"
    decision_id = take(body, "id", str, "decide", default=None, optional=True)
    if kind == "lose_card":
        command: c.Command = c.DecideLoseCard(bowler, take(body, "card", str, "decide"),
                                              decision_id, actor=actor)
    elif kind == "guess":
        command = c.DecideGuess(bowler, take(body, "side", str, "decide"), decision_id,
                                actor=actor)
    elif kind == "steal":
        command = c.DecideSteal(bowler, take(body, "from", str, "decide"),
                                take(body, "card", str, "decide"), decision_id, actor=actor)
    elif kind in ("end_draw", "buy"):
        accept = take(body, "accept", bool, "decide")
        kind_class = c.DecideEndDraw if kind == "end_draw" else c.DecideBuy
        command = kind_class(bowler, accept, decision_id, actor=actor)
    else:
        raise StepError(f"unknown decision kind {kind!r} "
                        "(lose_card, guess, steal, end_draw, buy)")
    no_more_keys(body, "decide")
    return command


def correct_command(body: dict[str, Any], actor: str) -> c.CorrectBall:
    what = "correction"
    command = c.CorrectBall(
        take(body, "bowler", str, what), take(body, "game", int, what, default=1),
        take(body, "frame", int, what), take(body, "ball", int, what),
        take(body, "pins", int, what),
        standing=take(body, "standing", list, what, default=None, optional=True),
        foul=take(body, "foul", bool, what, default=False),
        gutter=take(body, "gutter", bool, what, default=None, optional=True),
        split=take(body, "split", bool, what, default=None, optional=True),
        reason=take(body, "reason", str, what, default=""),
        actor=actor,
    )
    no_more_keys(body, what)
    return command


def commissioner_command(step: Mapping[str, Any]) -> c.Command:
    body = table_of(step, "commissioner")
    action = take(body, "action", str, "commissioner")
    what = f"commissioner {action}"
    actor = COMMISSIONER
    if action == "resolve":
        return decide_command(body, actor)
    if action == "correct":
        return correct_command(body, actor)
    reason = take(body, "reason", str, what, default="")
    if action in ("holland_daze", "void_guess", "add_bowler", "remove_bowler", "bowler_gone"):
        bowler = take(body, "bowler", str, what)
        command: c.Command = {
            "holland_daze": c.HollandDaze,
            "void_guess": c.CommissionerVoidGuess,
            "add_bowler": c.CommissionerAddBowler,
            "remove_bowler": c.CommissionerRemoveBowler,
            "bowler_gone": c.CommissionerBowlerGone,
        }[action](bowler, reason, actor=actor)
    elif action in ("apply_review", "dismiss_review"):
        review = take(body, "review", str, what)
        kind = c.CommissionerApplyReview if action == "apply_review" else (
            c.CommissionerDismissReview)
        command = kind(review, reason, actor=actor)
    elif action in ("confirm", "undo_result", "void", "undo", "settle_as_hands_stand"):
        command = {
            "confirm": c.CommissionerConfirmResult,
            "settle_as_hands_stand": c.CommissionerSettleAsHandsStand,
            "undo_result": c.CommissionerUndoResult,
            "void": c.CommissionerVoidMatch,
            "undo": c.CommissionerUndoLastAction,
        }[action](reason, actor=actor)
    else:
        raise StepError(
            f"unknown commissioner action {action!r} (holland_daze, void_guess, resolve, "
            "add_bowler, remove_bowler, bowler_gone, correct, apply_review, dismiss_review, "
            "undo, void, confirm, undo_result, settle_as_hands_stand)")
    no_more_keys(body, what)
    return command
