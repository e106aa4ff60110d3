"""The commissioner's undo: take back the last thing the desk did, keep everything the scorer did.

Only the commissioner's actions are undone (a ruling, a manual-entry ball, a decision made on a
bowler's behalf; :func:`~alley_poker.ledger.state.is_commissioner_action`). What came after the
desk action — the scorer's balls, the bowlers' own choices, deadlines that passed — is the
record of the night: the undo restores the match as it was before the desk action and then
re-applies every later action, in order, through the same rules, dealing the same cards where
they are still in the pile. If a later action no longer applies (a bowler lost a card that the
undone ruling had given them), the undo is refused and nothing changes.

One ``action_undone`` event restores the state (``undone_from``..``undone_to`` are the undone
action's own events); the re-applied actions follow it as ordinary events of the undo.
"""

from __future__ import annotations

from collections.abc import Callable

from alley_poker.cards import card_text
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, iso, refuse
from alley_poker.ledger.events import Event
from alley_poker.ledger.fold import core_to_json
from alley_poker.ledger.ledger_errors import CommandRefused
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.state import MatchState

#: Runs one re-applied command on the undo's context (the handler's dispatch).
Dispatch = Callable[[Context, c.Command], None]

_DECISION_WORDS = {"DecideLoseCard": "the card to lose", "DecideGuess": "the ball-return guess",
                   "RecordGuessOutcome": "the ball-return outcome", "DecideSteal": "the steal",
                   "DecideEndDraw": "the end-of-game draw", "DecideBuy": "the buy"}


def undoable_action(state: MatchState) -> dict | None:
    """What an undo would take back now, in the desk's words; None when nothing can be.

    Keys: ``action`` (its id: the seq of its first event), ``command``, ``actor``, ``at``,
    ``bowler``, ``what`` (what the desk did), ``undo`` (what undoing it changes) and
    ``later`` (how many later actions an undo re-applies).
    """
    point = state.undo_point
    if point is None or not point["own"]:
        return None
    own: list[Event] = point["own"]
    first = own[0].data
    what, effect = _describe(state, first["command"], own)
    later = len(point["later"])
    if later:
        effect += (f"; the {later} later action{'s' if later != 1 else ''} (scorer's balls, "
                   f"bowlers' choices) {'are' if later != 1 else 'is'} kept and re-applied")
    return {"action": point["action"], "command": first["command"], "actor": first["actor"],
            "at": iso(own[0].at), "bowler": _bowler_of(own), "what": what, "undo": effect,
            "later": later}


def undo_last_action(ctx: Context, cmd: c.CommissionerUndoLastAction, dispatch: Dispatch) -> None:
    """Restore the match from before the last desk action and re-apply what came after."""
    if not cmd.actor.startswith("commissioner:"):
        refuse("only the desk may undo", "actor")
    state = ctx.state
    if state.status in FINISHED:
        refuse(f"the match is {state.status}: undo the result first" if state.status ==
               "settled" else "the match is void: nothing in it can be undone", "status")
    last = undoable_action(state)
    if last is None:
        refuse("there is nothing the desk did that can be undone (the scorer's balls and the "
               "bowlers' own choices are never undone; a later void, undo or confirmed "
               "result ends the chance)", "status")
    if cmd.action is not None and cmd.action != last["action"]:
        refuse(f"the last action the desk can undo is now #{last['action']}: {last['what']} "
               f"(not #{cmd.action}); nothing was undone", "action")
    point = state.undo_point
    own, later = point["own"], point["later"]
    kinds = _decision_kinds(point)
    ctx.emit("action_undone", undone_from=point["action"], undone_to=own[-1].seq,
             restored=core_to_json(state.restorable()), reason=cmd.reason)
    for events in later:
        _reapply(ctx, events, kinds, last, dispatch)


def _reapply(ctx: Context, events: list[Event], kinds: dict[str, str], undone: dict,
             dispatch: Dispatch) -> None:
    first = events[0]
    command = _command_of(ctx.state, events, kinds)
    _deal_as_before(ctx, [e.data["card"] for e in events if e.type == "card_drawn"])
    now = ctx.now
    ctx.now = first.at  # deadlines and expiries as they were when it happened
    try:
        dispatch(ctx, command)
        if isinstance(command, c.RecordBall):
            _same_place(ctx.state, events[0].data if events[0].type == "ball_recorded" else
                        next(e.data for e in events if e.type == "ball_recorded"))
    except CommandRefused as refused:
        refuse(f"cannot undo {undone['what']}: {_later_words(first)} at "
               f"{iso(first.at)} would no longer apply ({refused.reason}). Nothing was "
               "undone; rule on it directly.", "action")
    finally:
        ctx.now = now


def _same_place(state: MatchState, original: dict) -> None:
    """A re-applied ball must land where the scorer put it, or the sheets would part."""
    placed = state.balls[original["bowler"]][original["game"] - 1][-1]
    if (placed["frame"], placed["ball"]) != (original["frame"], original["ball"]):
        refuse(f"it would move to frame {placed['frame']} ball {placed['ball']} instead of "
               f"frame {original['frame']} ball {original['ball']}; correct the ball instead",
               "action")


def _deal_as_before(ctx: Context, drawn: list[str]) -> None:
    """Put the cards a later action drew back on top of the pile, in the order drawn, so
    the bowlers keep the cards they were shown (those still in the pile)."""
    pile = ctx.state.pile
    wanted = [card for card in dict.fromkeys(drawn) if card in pile]
    if not wanted or pile[:len(wanted)] == wanted:
        return
    order = wanted + [card for card in pile if card not in wanted]
    ctx.emit("pile_shuffled", order=order, why="undo: later cards dealt as before")


def _command_of(state: MatchState, events: list[Event], kinds: dict[str, str]) -> c.Command:
    """The command a later action ran, rebuilt from its events."""
    name, actor = events[0].data["command"], events[0].data["actor"]
    found = {}
    for event in events:
        found.setdefault(event.type, event.data)
    closed = found.get("decision_closed")

    def decision_id(original: str) -> str | None:
        if original in state.decisions:
            return original
        bowler = closed["bowler"] if closed else None
        kind = kinds.get(original)
        return next((i for i, d in state.decisions.items()
                     if d["bowler"] == bowler and d["kind"] == kind), original)

    if name == "RecordBall":
        b = found["ball_recorded"]
        return c.RecordBall(b["bowler"], b["game"], b["pins"], standing=b["standing"],
                            foul=b["foul"], gutter=b["gutter"], split=b["split"], actor=actor)
    if name == "HollandDaze":
        d = found["holland_daze"]
        return c.HollandDaze(d["bowler"], reason=d["reason"], actor=actor)
    if name == "DecideGuess":
        d = found["guess_made"]
        return c.DecideGuess(d["bowler"], d["side"], decision_id=decision_id(d["decision_id"]),
                             actor=actor)
    if name == "RecordGuessOutcome":
        d = found["guess_resolved"]
        return c.RecordGuessOutcome(d["bowler"], d["side"],
                                    decision_id=decision_id(d["decision_id"]), actor=actor)
    if name == "DecideSteal":
        d = found["card_taken"]
        return c.DecideSteal(d["bowler"], d["from_bowler"], state.display_card(d["card"]),
                             decision_id=decision_id(closed["decision_id"]), actor=actor)
    if name == "DecideLoseCard":
        card = found["card_returned"]["card"]
        return c.DecideLoseCard(closed["bowler"], state.display_card(card),
                                decision_id=decision_id(closed["decision_id"]), actor=actor)
    if name in ("DecideEndDraw", "DecideBuy"):
        command = c.DecideEndDraw if name == "DecideEndDraw" else c.DecideBuy
        return command(closed["bowler"], closed["outcome"] == "accepted",
                       decision_id=decision_id(closed["decision_id"]), actor=actor)
    if name == "ExpireDecision":
        return c.ExpireDecision(decision_id=decision_id(closed["decision_id"]), actor=actor)
    raise AssertionError(f"{name} is not re-applied by an undo")  # REPLAYABLE says which


def _decision_kinds(point: dict) -> dict[str, str]:
    """Every decision id the undone and later actions touch, and its kind."""
    kinds = {i: d["kind"] for i, d in point["core"]["decisions"].items()}
    for events in [point["own"], *point["later"]]:
        for event in events:
            if event.type == "decision_opened":
                kinds[event.data["id"]] = event.data["kind"]
    return kinds


def _bowler_of(events: list[Event]) -> str | None:
    return next((e.data["bowler"] for e in events if "bowler" in e.data), None)


def _later_words(first: Event) -> str:
    name, actor = first.data["command"], first.data["actor"]
    who = first.data.get("bowler")
    if name == "RecordBall":
        return f"the scorer's ball for {who}" if actor.startswith("feed:") else f"{who}'s ball"
    if name == "HollandDaze":
        return f"the scorer's wrong-lane report for {who}"
    if name == "ExpireDecision":
        return "a deadline that passed"
    return _DECISION_WORDS.get(name, name) + (f" by {actor.split(':', 1)[-1]}" if actor else "")


def _cards(cards: list[str], state: MatchState) -> str:
    return " ".join(card_text(state.display_card(card)) for card in cards)


def _describe(state: MatchState, command: str, own: list[Event]) -> tuple[str, str]:
    """(what the desk did, what undoing it changes), in the desk's words."""
    found: dict[str, dict] = {}
    for event in own:
        found.setdefault(event.type, event.data)
    bowler = _bowler_of(own) or "the bowler"
    drawn = [e.data["card"] for e in own if e.type == "card_drawn"]
    if command == "HollandDaze":
        returned = [e.data["card"] for e in own if e.type == "card_returned"]
        effect = (f"{bowler}'s {len(returned)} card{'s' if len(returned) != 1 else ''} "
                  f"({_cards(returned, state)}) return to their hand" if returned
                  else f"{bowler} held no cards; their streak and hole are restored")
        return f"the Holland-daze ruling on {bowler}", effect
    if command == "RecordBall":
        b = found["ball_recorded"]
        what = (f"the ball entered at the desk for {bowler} (game {b['game']}, frame "
                f"{b['frame']}, ball {b['ball']}: {b['pins']} pin{'s' if b['pins'] != 1 else ''})")
        effect = "the ball comes off the sheet"
        if drawn:
            effect += f" and the cards dealt for it ({_cards(drawn, state)}) go back to the pile"
        return what, effect
    if command == "CorrectBall":
        b = found["ball_corrected"]
        return (f"the correction of {bowler}'s game {b['game']}",
                "the game reads as before the correction")
    if command == "CommissionerVoidGuess":
        return f"voiding {bowler}'s ball-return guess", "the guess stands again"
    if command in ("CommissionerApplyReview", "CommissionerDismissReview"):
        review = found["review_closed"]["id"]
        verb = "applying" if command == "CommissionerApplyReview" else "dismissing"
        return (f"{verb} review item {review}",
                "the review item is open again" + (" and its remedy is reversed"
                                                   if verb == "applying" else ""))
    if command == "CommissionerDeclineForEveryone":
        closed = [e.data for e in own if e.type == "decision_closed"]
        before = state.undo_point["core"]["decisions"] if state.undo_point else {}
        kind = next((before[d["decision_id"]]["kind"] for d in closed
                     if d["decision_id"] in before), "end_draw")
        offers = "end-of-match draw" if kind == "end_draw" else "buys"
        who = ", ".join(d["bowler"] for d in closed)
        return (f"the {offers} declined at the desk for everyone who had not answered ({who})",
                f"the {offers} {'is' if kind == 'end_draw' else 'are'} open again for {who}")
    words = _DECISION_WORDS.get(command, command)
    return (f"{words} decided at the desk for {bowler}",
            "the decision is open again for the bowler")

