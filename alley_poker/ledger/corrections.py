"""Corrections of recorded balls and review items.

A correction recomputes the bowler's game.  Cards are never silently re-dealt: if the
corrected balls would have dealt differently (a strike that was a 9, a gutter ball that was
not), the ledger raises a review item for the commissioner with the difference and a
suggested remedy, which the commissioner applies or dismisses.
"""

from __future__ import annotations

from alley_poker.bowling import BowlingError, Game
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, refuse
from alley_poker.ledger.dealing import cards_for_mark, draw_cards
from alley_poker.ledger.losing import is_gutter_ball, lose_card, return_cards
from alley_poker.ledger.pending_decisions import require_bowler, require_commissioner


def correct_ball(ctx: Context, cmd: c.CorrectBall) -> None:
    state = ctx.state
    if not (cmd.actor.startswith("commissioner:") or cmd.actor.startswith("feed:")):
        refuse("a correction comes from the scorer's feed or the desk", "actor")
    if state.status not in ("playing", "ending") or state.result is not None:
        refuse("balls can be corrected during play, before the result", "status")
    require_bowler(ctx, cmd.bowler)
    if not isinstance(cmd.game, int) or not 1 <= cmd.game <= state.games:
        refuse(f"game must be 1 to {state.games}, not {cmd.game!r}", "game")
    old = state.balls[cmd.bowler][cmd.game - 1]
    index = next((i for i, b in enumerate(old)
                  if b["frame"] == cmd.frame and b["ball"] == cmd.ball), None)
    if index is None:
        refuse(f"{cmd.bowler} has no recorded ball {cmd.ball} in frame {cmd.frame} "
               f"of game {cmd.game}", "frame")
    new = _recompute(ctx, cmd, old, index)
    if state.status == "ending" and not new[-1]["completes_game"]:
        refuse("the correction would reopen a finished game; the match is already ending",
               "pins")
    is_current = state.current_game(cmd.bowler) == cmd.game
    streak_end = new[-1]["streak_after"] if is_current else "unchanged"
    ctx.emit("ball_corrected", bowler=cmd.bowler, game=cmd.game, balls=new,
             streak_after=streak_end, reason=cmd.reason)
    _raise_review(ctx, cmd, old, new)


def _recompute(ctx: Context, cmd: c.CorrectBall, old: list[dict], index: int) -> list[dict]:
    state = ctx.state
    rules = state.rules
    raws = [{k: b[k] for k in ("pins", "standing", "foul", "gutter", "split")} for b in old]
    raws[index] = {"pins": cmd.pins,
                   "standing": None if cmd.standing is None else list(cmd.standing),
                   "foul": cmd.foul, "gutter": cmd.gutter, "split": cmd.split}
    someone_else_first = (cmd.game in state.first_strike
                          and state.first_strike[cmd.game] != cmd.bowler)
    bonus_given = False
    game = Game()
    new: list[dict] = []
    streak = old[index]["streak_before"]
    for i, raw in enumerate(raws):
        try:
            ball = game.roll(raw["pins"], standing=raw["standing"], foul=raw["foul"],
                             gutter=bool(raw["gutter"]), split=raw["split"])
        except (BowlingError, TypeError) as exc:
            refuse(f"after this correction, recorded ball {i + 1} of {cmd.bowler}'s game "
                   f"{cmd.game} is impossible: {exc}", "pins")
        if i < index:
            new.append(dict(old[i]))
            bonus_given = bonus_given or bool(old[i]["bonus"])
            continue
        mark = "strike" if ball.is_strike else "spare" if ball.is_spare else None
        before = streak
        if mark:
            due, streak = cards_for_mark(rules, before, mark)
        else:
            due, streak = 0, (None if ball.ends_frame else before)
        bonus = 0
        if mark == "strike" and not bonus_given and not someone_else_first:
            bonus = rules.first_strike_bonus
            bonus_given = bool(bonus)
        new.append({
            **raw, "frame": ball.frame, "ball": ball.ball, "mark": mark,
            "gutter_ball": is_gutter_ball(rules, ball, raw["gutter"]),
            "split_pickup": bool(mark == "spare" and ball.is_split_conversion
                                 and rules.split_steal),
            "cards_due": due, "bonus": bonus, "completes_game": game.is_complete,
            "streak_before": before, "streak_after": streak,
        })
    return new


def _raise_review(ctx: Context, cmd: c.CorrectBall, old: list[dict], new: list[dict]) -> None:
    state = ctx.state
    dealt = sum(b["cards_due"] + b["bonus"] for b in old)
    owed = sum(b["cards_due"] + b["bonus"] for b in new)
    lost = sum(1 for b in old if b["gutter_ball"])
    owed_losses = sum(1 for b in new if b["gutter_ball"])
    steals = sum(1 for b in old if b["split_pickup"])
    owed_steals = sum(1 for b in new if b["split_pickup"])
    cards, losses = owed - dealt, owed_losses - lost
    if not cards and not losses and steals == owed_steals:
        return
    remedy: dict = {"take_back": [], "deal": 0, "lose": 0}
    parts = []
    if cards < 0:
        # A card can be dealt, lost and dealt again in one game: name each card once.
        held = [card for card in dict.fromkeys(reversed(state.mark_cards[cmd.bowler][cmd.game - 1]))
                if card in state.hands[cmd.bowler]]
        remedy["take_back"] = held[:-cards]
        parts.append(f"{cmd.bowler}'s marks in game {cmd.game} dealt {dealt} cards; "
                     f"the corrected balls earn {owed}")
    elif cards > 0:
        remedy["deal"] += cards
        parts.append(f"{cmd.bowler}'s marks in game {cmd.game} dealt {dealt} cards; "
                     f"the corrected balls earn {owed}")
    if losses > 0:
        remedy["lose"] = losses
        parts.append(f"{losses} more gutter ball(s) than were charged")
    elif losses < 0:
        remedy["deal"] += -losses
        parts.append(f"{-losses} card loss(es) charged for ball(s) that were not gutter balls")
    if steals != owed_steals:
        parts.append(f"split pickups changed from {steals} to {owed_steals} "
                     "(steals are not re-run; rule on it directly)")
    remedy_text = []
    if remedy["take_back"]:
        shown = [state.display_card(card) for card in remedy["take_back"]]
        remedy_text.append("take back " + " ".join(shown))
    if remedy["deal"]:
        remedy_text.append(f"deal {remedy['deal']} card(s)")
    if remedy["lose"]:
        remedy_text.append(f"charge {remedy['lose']} card loss(es)")
    description = "; ".join(parts) + (". Suggested: " + ", ".join(remedy_text) if remedy_text
                                       else ". No automatic remedy.")
    ctx.emit("review_raised", id=f"R{state.seq + 1}", bowler=cmd.bowler, game=cmd.game,
             description=description,
             difference={"cards": cards, "losses": losses, "steals": owed_steals - steals},
             remedy=remedy)


def _review(ctx: Context, review_id: str) -> dict:
    require_commissioner(ctx)
    review = ctx.state.reviews.get(review_id)
    if review is None:
        refuse(f"no open review item {review_id!r}", "review_id")
    return review


def apply_review(ctx: Context, cmd: c.CommissionerApplyReview) -> None:
    state = ctx.state
    review = _review(ctx, cmd.review_id)
    if state.status not in ("playing", "ending") or state.result is not None:
        refuse("review items are applied before the result (undo the result first)", "status")
    bowler, remedy = review["bowler"], review["remedy"]
    still_held = [card for card in dict.fromkeys(remedy["take_back"])
                  if card in state.hands[bowler]]
    return_cards(ctx, bowler, still_held, "review")
    if remedy["deal"]:
        draw_cards(ctx, bowler, remedy["deal"], "review")
    for _ in range(remedy["lose"]):
        lose_card(ctx, bowler, "review")
    ctx.emit("review_closed", id=review["id"], outcome="applied", reason=cmd.reason)


def dismiss_review(ctx: Context, cmd: c.CommissionerDismissReview) -> None:
    review = _review(ctx, cmd.review_id)
    ctx.emit("review_closed", id=review["id"], outcome="dismissed", reason=cmd.reason)

