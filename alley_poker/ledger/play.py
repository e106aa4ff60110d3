"""Setting a match up and playing it: creation, consent, start, bowlers added or removed,
balls (dealing for marks, gutter losses, split steals), Holland-daze, and the test stack."""

from __future__ import annotations

from alley_poker.bowling import BowlingError
from alley_poker.cards import FULL_DECK, CardParseError, parse_card
from alley_poker.ledger import commands as c
from alley_poker.ledger.context import Context, refuse
from alley_poker.ledger.dealing import cards_for_mark, draw_cards
from alley_poker.ledger.endgame import all_games_complete, begin_end
from alley_poker.ledger.fair_deal import commit_deal
from alley_poker.ledger.league_tags import handicap_table, league_tag
from alley_poker.ledger.losing import is_gutter_ball, lose_card, return_cards
from alley_poker.ledger.pending_decisions import (
    close_decision,
    open_decision,
    require_bowler,
    require_commissioner,
)
from alley_poker.ledger.rules import RuleBook, RuleBookError

MAX_GAMES = 10
MAX_NAME = 40


def _check_name(name: object, field: str = "bowler") -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        refuse(f"a bowler's name must be 1-{MAX_NAME} characters of text, not {name!r}", field)
    if name != name.strip():
        refuse(f"a bowler's name may not start or end with a space: {name!r}", field)
    return name


def create_match(ctx: Context, cmd: c.CreateMatch) -> None:
    state = ctx.state
    if state.status != "new":
        refuse(f"match {state.match_id} already exists", "match_id")
    if cmd.match_id != state.match_id:
        refuse(f"command is for match {cmd.match_id!r}, not {state.match_id!r}", "match_id")
    try:
        rules = RuleBook.default().with_overrides(cmd.rules)
    except RuleBookError as exc:
        refuse(str(exc), "rules")
    bowlers = list(cmd.bowlers) if isinstance(cmd.bowlers, (list, tuple)) else None
    if bowlers is None:
        refuse("bowlers must be a list of names", "bowlers")
    for name in bowlers:
        _check_name(name, "bowlers")
    if len(set(bowlers)) != len(bowlers):
        refuse("a bowler is listed twice", "bowlers")
    if not rules.min_bowlers <= len(bowlers) <= rules.max_bowlers:
        refuse(f"a match has {rules.min_bowlers}-{rules.max_bowlers} bowlers, "
               f"not {len(bowlers)}", "bowlers")
    if not isinstance(cmd.games, int) or isinstance(cmd.games, bool) or not (
            1 <= cmd.games <= MAX_GAMES):
        refuse(f"games must be a whole number from 1 to {MAX_GAMES}, not {cmd.games!r}", "games")
    ante = rules.ante_cents if cmd.ante_cents is None else cmd.ante_cents
    if not isinstance(ante, int) or isinstance(ante, bool) or ante <= 0:
        refuse(f"ante_cents must be a positive whole number of cents, not {ante!r}",
               "ante_cents")
    if ante < rules.ante_cents:
        refuse(f"the ante may not be below the house ante of {rules.ante_cents} cents",
               "ante_cents")
    # A match outside a league records neither tag, so its log reads exactly as before.
    tags = {}
    if cmd.league is not None:
        tags["league"] = league_tag(cmd.league, bowlers)
    if cmd.handicaps is not None:
        tags["handicaps"] = handicap_table(cmd.handicaps, bowlers)
    ctx.emit("match_created", bowlers=bowlers, games=cmd.games, ante_cents=ante,
             rules=rules.recorded(), test_mode=bool(cmd.test_mode), **tags)
    commit_deal(ctx)


def consent(ctx: Context, cmd: c.ConsentToAnte) -> None:
    state = ctx.state
    if state.status != "open":
        refuse(f"consent is taken while the match is open, not {state.status}", "status")
    require_bowler(ctx, cmd.bowler)
    actor = cmd.actor
    if actor != f"bowler:{cmd.bowler}" and not actor.startswith("commissioner:"):
        refuse(f"only {cmd.bowler} or the desk may consent for {cmd.bowler}", "actor")
    if cmd.bowler in state.consents:
        refuse(f"{cmd.bowler} already consented", "bowler")
    ctx.emit("consent_recorded", bowler=cmd.bowler, ante_cents=state.ante_cents)


def start_match(ctx: Context, cmd: c.StartMatch) -> None:
    state = ctx.state
    if state.status != "open":
        refuse(f"only an open match can start (this one is {state.status})", "status")
    waiting = [b for b in state.bowlers if b not in state.consents]
    if waiting:
        refuse(f"waiting for consent to the {state.ante_cents}-cent ante from "
               + ", ".join(waiting), "consents")
    pile = ctx.draws("deck").shuffled([str(card) for card in FULL_DECK])
    good = state.rules.good_joker
    powers = {"JOKER-A": "good" if good == "JOKER-A" else "bad",
              "JOKER-B": "good" if good == "JOKER-B" else "bad"}
    ctx.emit("match_started", pile=pile, powers=powers,
             antes={b: state.ante_cents for b in state.bowlers})


def add_bowler(ctx: Context, cmd: c.CommissionerAddBowler) -> None:
    require_commissioner(ctx)
    state = ctx.state
    _check_name(cmd.bowler)
    _before_first_ball(ctx, "add a bowler")
    if cmd.bowler in state.hands:
        refuse(f"{cmd.bowler} is already in the match", "bowler")
    if len(state.bowlers) >= state.rules.max_bowlers:
        refuse(f"a match has at most {state.rules.max_bowlers} bowlers", "bowler")
    ante = state.ante_cents if state.status == "playing" else 0
    ctx.emit("bowler_added", bowler=cmd.bowler, ante_paid=ante)


def remove_bowler(ctx: Context, cmd: c.CommissionerRemoveBowler) -> None:
    require_commissioner(ctx)
    state = ctx.state
    require_bowler(ctx, cmd.bowler)
    _before_first_ball(ctx, "remove a bowler")
    if len(state.bowlers) <= state.rules.min_bowlers:
        refuse(f"a match needs at least {state.rules.min_bowlers} bowlers (void it instead)",
               "bowler")
    for decision in state.pending_for(cmd.bowler):
        close_decision(ctx, decision, "lapsed", "bowler removed")
    return_cards(ctx, cmd.bowler, list(state.hands[cmd.bowler]), "bowler removed")
    ctx.emit("bowler_removed", bowler=cmd.bowler, refund_cents=state.paid[cmd.bowler])


def _before_first_ball(ctx: Context, what: str) -> None:
    state = ctx.state
    if state.status not in ("open", "playing") or state.balls_recorded:
        instead = ("; a bowler who is not there is marked not here instead (any time)"
                   if what == "remove a bowler" else "")
        refuse(f"the commissioner may {what} only before the first ball{instead}", "status")


def stack_pile(ctx: Context, cmd: c.StackPile) -> None:
    state = ctx.state
    if not state.test_mode:
        refuse("stacking the pile is a test facility; this match was not created in test mode",
               "test_mode")
    if state.status not in ("playing", "ending"):
        refuse(f"the pile can be stacked only during play (match is {state.status})", "status")
    named = []
    for text in cmd.cards:
        try:
            parse_card(text)
        except (CardParseError, AttributeError) as exc:
            refuse(str(exc), "cards")
        card = state.physical_card(text)
        if card is None or card not in state.pile:
            holder = state.holder_of(card) if card else None
            refuse(f"{text} is not in the draw pile"
                   + (f" ({holder} holds it)" if holder else ""), "cards")
        if card in named:
            refuse(f"{text} is named twice", "cards")
        named.append(card)
    ctx.emit("pile_stacked", order=named + [card for card in state.pile if card not in named])


def record_ball(ctx: Context, cmd: c.RecordBall) -> None:
    state = ctx.state
    rules = state.rules
    if state.status != "playing":
        refuse(f"balls are recorded while the match is playing (it is {state.status})",
               "status")
    require_bowler(ctx, cmd.bowler)
    bowler = cmd.bowler
    if not state.in_play(bowler):
        refuse(f"{bowler} has left the match: no more of their balls are taken", "bowler")
    current = state.current_game(bowler)
    if cmd.game is None and current > state.games:
        refuse(f"{bowler} has finished all {state.games} game(s) of the match", "game")
    game = current if cmd.game is None else cmd.game
    if not isinstance(game, int) or isinstance(game, bool) or not 1 <= game <= state.games:
        refuse(f"game must be 1 to {state.games}, not {game!r}", "game")
    if game < current:
        refuse(f"{bowler}'s game {game} is already complete", "game")
    if game > current:
        refuse(f"{bowler} has not finished game {current}", "game")
    balls = state.balls[bowler][game - 1]
    standing = None if cmd.standing is None else list(cmd.standing)
    try:
        bowling_game = ctx.game_of(balls)
        # A frozenset of pins (a simulation's ball) is rolled as it is: the game checks it
        # without building a new one from the list the event records.
        given = cmd.standing if type(cmd.standing) is frozenset else standing
        ball = bowling_game.roll(cmd.pins, standing=given, foul=cmd.foul,
                                 gutter=bool(cmd.gutter), split=cmd.split)
    except (BowlingError, TypeError) as exc:
        refuse(f"{bowler} game {game}: {exc}", "pins")
    mark = "strike" if ball.is_strike else "spare" if ball.is_spare else None
    previous = state.streak[bowler]
    if not balls and not rules.streak_spans_games:
        previous = None  # streaks reset at the start of each game
    if mark:
        due, streak_after = cards_for_mark(rules, previous, mark)
    else:
        due, streak_after = 0, (None if ball.ends_frame else previous)
    bonus = (rules.first_strike_bonus
             if mark == "strike" and game not in state.first_strike else 0)
    gutter_ball = is_gutter_ball(rules, ball, cmd.gutter)
    split_pickup = bool(mark == "spare" and ball.is_split_conversion and rules.split_steal)
    index = len(balls)
    ctx.emit("ball_recorded", bowler=bowler, game=game, frame=ball.frame, ball=ball.ball,
             pins=cmd.pins, standing=standing, foul=cmd.foul, gutter=cmd.gutter,
             split=cmd.split, mark=mark, gutter_ball=gutter_ball, split_pickup=split_pickup,
             cards_due=due, bonus=bonus, completes_game=bowling_game.is_complete,
             streak_before=previous, streak_after=streak_after)
    for_ball = [game, index]
    if due:
        draw_cards(ctx, bowler, due, mark, for_ball)
    if bonus:
        draw_cards(ctx, bowler, bonus, "first strike of the game", for_ball)
    if gutter_ball:
        lose_card(ctx, bowler, "gutter")
    if split_pickup:
        victims = {b: [state.display_card(card) for card in hand]
                   for b, hand in state.hands.items() if b != bowler and hand}
        if victims:
            open_decision(ctx, bowler, "steal", choices=victims, reason="split pickup")
    if bowling_game.is_complete and game == state.games and all_games_complete(state):
        begin_end(ctx)


def holland_daze(ctx: Context, cmd: c.HollandDaze) -> None:
    state = ctx.state
    if not (cmd.actor.startswith("commissioner:") or cmd.actor.startswith("feed:")):
        refuse("a Holland-daze is ruled by the desk or reported by the scorer's feed",
               "actor")
    require_bowler(ctx, cmd.bowler)
    if state.status not in ("playing", "ending") or state.result is not None:
        refuse("a Holland-daze applies during play, before the result", "status")
    for decision in state.pending_for(cmd.bowler):
        if decision["kind"] in ("lose_card", "steal"):
            close_decision(ctx, decision, "lapsed", "Holland-daze")
    return_cards(ctx, cmd.bowler, list(state.hands[cmd.bowler]), "holland_daze")
    ctx.emit("holland_daze", bowler=cmd.bowler, reason=cmd.reason)
