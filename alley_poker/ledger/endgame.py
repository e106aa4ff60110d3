"""The end of a match: the lowest-score draw, buys, the showdown, settlement, and void.

Sequence (see docs/rules.md): when every bowler has finished the last game the match is
``ending`` and each bowler with the lowest scratch series is offered a draw.  Once no draw
offer is open, every bowler is offered one buy (while the pile is not empty).  Once no
decision at all is open (buys, and any card loss or steal still pending from play), the
showdown names the winners.  The commissioner's confirmation pays them and settles.
"""

from __future__ import annotations

from collections.abc import Callable

from alley_poker.bowling import Game
from alley_poker.ledger.context import Context, refuse
from alley_poker.ledger.games import rebuild_game
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.pending_decisions import close_decision, decision_words, open_decision
from alley_poker.ledger.state import MatchState
from alley_poker.ledger.values import hand_value, is_morgan


def all_games_complete(state: MatchState) -> bool:
    """Every bowler still bowling has finished the last game (a bowler who left never will,
    and the match does not wait for them)."""
    return all(state.game_complete(b, state.games) for b in state.bowlers if state.in_play(b))


def scratch_series(state: MatchState,
                   game_of: Callable[[list[dict]], Game] = rebuild_game) -> dict[str, int]:
    """Each bowler's natural (scratch) series over the match's games (a bowler who left:
    the running total of the games as they left them)."""
    return {b: sum(game_of(games).score() if state.in_play(b) else
                   game_of(games).score_so_far() for games in state.balls[b])
            for b in state.bowlers}


def handicap_series(state: MatchState, series: dict[str, int]) -> dict[str, int]:
    """Each bowler's series plus their handicap for every game of the match."""
    return {b: total + state.handicaps.get(b, 0) * state.games for b, total in series.items()}


def begin_end(ctx: Context) -> None:
    """Every bowler finished the last game: the match is ending; offer the lowest-score draws.

    ``match_ending`` records the scratch series either way; with ``lowest_score_draw_by =
    "handicap"`` the lowest is judged on the handicapped series (the offer's reason says so).
    """
    state = ctx.state
    series = scratch_series(state, ctx.game_of)
    by_handicap = state.rules.lowest_score_draw_by == "handicap"
    judged = handicap_series(state, series) if by_handicap else series
    # A bowler who left has an unfinished series: no fair lowest, and nobody there to draw.
    judged = {b: total for b, total in judged.items() if state.in_play(b)}
    low = min(judged.values())
    lowest = [b for b in state.bowlers if judged.get(b) == low]
    ctx.emit("match_ending", series=series, lowest=lowest)
    if state.rules.lowest_score_draw:
        kind = "handicapped" if by_handicap else "scratch"
        for bowler in lowest:
            open_decision(ctx, bowler, "end_draw", choices=["draw", "decline"],
                          reason=f"lowest {kind} series ({low})")


def advance_end(ctx: Context) -> None:
    """Move the end of the match on as far as the open decisions allow."""
    state = ctx.state
    if state.status != "ending" or state.result is not None:
        return
    kinds = {d["kind"] for d in state.decisions.values()}
    if state.end_stage == "draws" and "end_draw" not in kinds:
        ctx.emit("end_phase", stage="buys")
        if state.rules.buy_in and state.pile:
            for bowler in filter(state.in_play, state.bowlers):
                open_decision(ctx, bowler, "buy", choices=["buy", "decline"],
                              reason=f"pay {state.ante_cents} cents to draw one card")
        kinds = {d["kind"] for d in state.decisions.values()}
    if state.end_stage == "buys" and not kinds:
        ctx.emit("end_phase", stage="showdown")
        showdown(ctx)


def lapse_buys_if_pile_empty(ctx: Context) -> None:
    """Buys are only offered while the pile holds a card."""
    if ctx.state.pile:
        return
    for decision in list(ctx.state.decisions.values()):
        if decision["kind"] == "buy":
            close_decision(ctx, decision, "lapsed", "the draw pile is empty")


def automatic_win(ctx: Context, bowler: str, card: str) -> None:
    """A good joker drawn on a buy: the match ends at once and the buyer takes the pot."""
    for decision in list(ctx.state.decisions.values()):
        close_decision(ctx, decision, "lapsed", "automatic win")
    ctx.emit("automatic_win", bowler=bowler, card=card)
    ctx.emit("end_phase", stage="showdown")
    showdown(ctx)


def showdown(ctx: Context) -> None:
    """Judge every hand and split the pot between the best (odd cents by the rule book)."""
    state = ctx.state
    hands = {}
    values = {}
    # A bowler who left and folded has no hand in it; one who kept their hand does.
    for bowler in filter(state.contends, state.bowlers):
        value = hand_value(state, bowler)
        values[bowler] = value
        hands[bowler] = {
            "hand": [state.display_card(c) for c in state.hands[bowler]],
            "category": value.category,
            "describe": value.describe(),
            "unbeatable": value.category == "unbeatable",
            "morgan": is_morgan(state, bowler),
        }
    if state.automatic_winner is not None:
        winners = [state.automatic_winner]
    else:
        best = max(values.values())
        winners = [b for b in values if values[b] == best]
    ctx.emit("showdown", winners=winners, shares=split_pot(state, winners), hands=hands)


def split_pot(state: MatchState, winners: list[str]) -> dict[str, int]:
    """Equal shares in cents; the odd cents to the first-seated winner (or the house)."""
    share, odd = divmod(state.pot_cents, len(winners))
    shares = {b: share for b in winners}
    if odd and state.rules.odd_cents == "first_seated":
        shares[winners[0]] += odd
    return shares


def confirm_result(ctx: Context) -> None:
    state = ctx.state
    if state.status != "ending":
        refuse(f"there is no result to confirm (match is {state.status})", "status")
    if state.result is None:
        if state.decisions:
            refuse("the end-of-match choices are still open: "
                   + ", ".join(decision_words(d) for d in state.decisions.values()))
        if state.end_stage not in ("showdown", "buys"):
            refuse("the end-of-match draws have not finished")
    _pay_and_settle(ctx, getattr(ctx.command, "reason", ""))


def _pay_and_settle(ctx: Context, reason: str) -> None:
    """The showdown (unless the result is known already), each winner's payout, the seed
    revealed and the match settled: how every match that is paid ends."""
    state = ctx.state
    if state.result is None:
        ctx.emit("end_phase", stage="showdown")
        showdown(ctx)
    for bowler, cents in state.result["shares"].items():
        if cents:
            ctx.emit("payout", bowler=bowler, cents=cents)
    ctx.reveal_seed()
    ctx.emit("match_settled", reason=reason)


def settle_as_hands_stand(ctx: Context) -> None:
    """End an unfinished match here, whenever the desk needs to, and pay the best hand as it
    stands.

    Rev 1.2 decides a match by "standard 5 card poker hand rankings" at its end (III.3); the
    end-of-match extras (III.1 lowest-score draw, III.2 buys) belong to a match bowled to the
    end, and a series cut short names no fair lowest score.  So: every open decision is closed
    by the desk with its reason (a card loss or steal still pending is not taken), no draw or
    buy is offered, the showdown judges the hands as they are, and the winners are paid at
    once (docs/rules.md, "Settling as the hands stand").
    """
    state = ctx.state
    reason = getattr(ctx.command, "reason", "") or "settled as the hands stand"
    if state.status not in ("playing", "ending"):
        advice = "; void it instead" if state.status == "open" else ""
        refuse(f"only a match in play can be settled as the hands stand (match is "
               f"{state.status}{advice})", "status")
    for decision in list(state.decisions.values()):
        close_decision(ctx, decision, "closed_by_desk", None, reason=reason)
    if state.status == "playing":
        # The series so far, for the record (unfinished games count their running total).
        series = {b: sum(rebuild_game(games).score_so_far() for games in state.balls[b])
                  for b in state.bowlers}
        ctx.emit("match_ending", series=series, lowest=[])
    _pay_and_settle(ctx, reason)


def undo_result(ctx: Context) -> None:
    """Reverse a confirmed (or announced) result with compensating events."""
    state = ctx.state
    reason = getattr(ctx.command, "reason", "")
    if state.status == "settled":
        reversed_ = {b: state.result["shares"][b] for b in state.result["winners"]
                     if state.result["shares"][b]}
        ctx.emit("result_undone", reversed=reversed_, reason=reason)
    elif state.status == "ending" and state.result is not None:
        ctx.emit("result_undone", reversed={}, reason=reason)
    else:
        refuse(f"there is no result to undo (match is {state.status})", "status")


def void_match(ctx: Context) -> None:
    state = ctx.state
    if state.status in FINISHED:
        refuse(f"a {state.status} match cannot be voided"
               + (" (undo the result first)" if state.status == "settled" else ""), "status")
    refunds = {b: cents for b, cents in state.paid.items() if cents}
    ctx.reveal_seed()
    ctx.emit("match_voided", refunds=refunds, reason=getattr(ctx.command, "reason", ""))
