"""The public view of a match: what every screen may show, and nothing more.

Every client — kiosk, tablet, a centre's own system — receives the same public state.  Cards
are dealt face up in Bowling Poker, so hands are public; the order of the draw pile is not,
and it never appears here (only how many cards it holds).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from alley_poker.bowling import BowlingError
from alley_poker.ledger.dealing import cards_for_mark
from alley_poker.ledger.endgame import rebuild_game
from alley_poker.ledger.state import MatchState
from alley_poker.ledger.story_words import money
from alley_poker.ledger.values import hand_value


def pending_view(state: MatchState, decision: dict) -> dict[str, Any]:
    """One open decision as the kiosk shows it (choices as they stand now)."""
    bowler, kind = decision["bowler"], decision["kind"]
    if kind == "lose_card":
        choices: Any = [state.display_card(card) for card in state.hands[bowler]]
    elif kind == "steal":
        choices = {other: [state.display_card(card) for card in hand]
                   for other, hand in state.hands.items() if other != bowler and hand}
    else:
        choices = decision["choices"]
    view = {"id": decision["id"], "kind": kind, "reason": _reason_words(state, decision),
            "created_at": decision["created_at"], "deadline": decision["deadline"],
            "choices": choices}
    if kind == "lose_card":
        view["guess_allowed"] = decision["guess_allowed"]
        view["guess"] = decision["guess"]
    return view


def _reason_words(state: MatchState, decision: dict) -> str:
    """Why the decision is asked, in the words a person reads: a buy's price in dollars.

    The stored reason of a buy says "pay 200 cents to draw one card" (the ledger's words since
    the first buy; a re-run must give it again, so the log keeps it); screens say the price.
    """
    if decision["kind"] == "buy":
        return f"pay {money(state.ante_cents)} to draw one card"
    return decision["reason"]


def bowler_view(state: MatchState, bowler: str, *, value: Any = None) -> dict[str, Any]:
    """One bowler's panel: hand in the order drawn, hole, hand in words, decisions, money.

    ``value`` is the bowler's ``hand_value`` when the caller has it already.
    """
    entry: dict[str, Any] = {
        "hand": [state.display_card(card) for card in state.hands[bowler]],
        "hole": state.hole[bowler],
    }
    if state.status not in ("new", "open"):
        if value is None:
            value = hand_value(state, bowler)
        entry.update(category=value.category, describe=value.describe(),
                     unbeatable=value.category == "unbeatable")
    else:
        entry.update(category="no_hand", describe="no cards", unbeatable=False)
    entry.update(
        pending=[pending_view(state, decision) for decision in state.pending_for(bowler)],
        paid_cents=state.paid[bowler],
        won_cents=state.won[bowler],
    )
    if bowler in state.gone:   # only for a bowler who left: every other view is as it was
        entry["gone"] = state.gone[bowler]
    return entry


def _progress(state: MatchState, bowler: str) -> dict[str, Any]:
    """Where the bowler is in the match, the current game's marks, what a strike pays next."""
    game_number = min(state.current_game(bowler), state.games) if state.games else 0
    marks, frame = _scoresheet(state.balls[bowler][game_number - 1]) if game_number else ("", 1)
    view: dict[str, Any] = {"game": game_number, "frame": frame, "scoresheet": marks}
    if state.rules is not None:
        view["next_strike_cards"] = cards_for_mark(state.rules, state.streak[bowler], "strike")[0]
        view["next_spare_cards"] = cards_for_mark(state.rules, state.streak[bowler], "spare")[0]
    return view


def handicap_view(state: MatchState, bowler: str) -> dict[str, Any]:
    """A handicap match's figures beside the natural score: the handicap (pins per game), the
    scratch series so far and the series with the handicap added for every game begun
    (None while a game is under correction review)."""
    handicap = state.handicaps.get(bowler, 0)
    begun = [balls for balls in state.balls[bowler] if balls]
    try:
        scratch = sum(rebuild_game(balls).score_so_far() for balls in begun)
    except BowlingError:
        return {"handicap": handicap, "scratch_series": None, "handicap_series": None}
    return {"handicap": handicap, "scratch_series": scratch,
            "handicap_series": scratch + handicap * len(begun)}


def _scoresheet(balls: list[dict]) -> tuple[str, int | None]:
    """The marks of one game so far ("" for a game under correction review), and the frame
    the bowler is in (None once the game is complete).

    Every screen update shows every bowler's sheet, and re-bowling each game ball by ball
    was most of the cost of an update; a sheet depends only on its balls, so it is kept.
    """
    return _scoresheet_of(tuple(
        (ball["pins"], None if ball["standing"] is None else tuple(ball["standing"]),
         ball["foul"], ball["gutter"], ball["split"]) for ball in balls))


@lru_cache(maxsize=2048)
def _scoresheet_of(balls: tuple[tuple[Any, ...], ...]) -> tuple[str, int | None]:
    fields = ("pins", "standing", "foul", "gutter", "split")
    try:
        game = rebuild_game([dict(zip(fields, ball, strict=True)) for ball in balls])
    except BowlingError:  # a game under correction review still shows its hand
        return "", None
    return game.scoresheet(), None if game.is_complete else game.current_frame


def public_match_view(state: MatchState) -> dict[str, Any]:
    """The whole public state of a match (JSON-safe); never the draw pile's order."""
    result = state.result or {}
    values = ({bowler: hand_value(state, bowler) for bowler in state.bowlers}
              if state.status not in ("new", "open") else {})
    bowlers = {}
    for bowler in state.bowlers:
        bowlers[bowler] = (bowler_view(state, bowler, value=values.get(bowler))
                           | _progress(state, bowler))
        if state.handicaps:
            bowlers[bowler] |= handicap_view(state, bowler)
    view = {
        "match_id": state.match_id,
        "seq": state.seq,
        "status": state.status,
        "games": state.games,
        "ante_cents": state.ante_cents,
        "pot_cents": state.pot_cents,
        "pile_count": len(state.pile),
        "jokers": {joker: state.powers[joker] for joker in sorted(state.powers)},
        "seat_order": list(state.bowlers),
        "bowlers": bowlers,
        "places": _places(state, values),
        "winners": list(result.get("winners", [])),
        "shares": dict(result.get("shares", {})),
        "reviews": [dict(review) for review in state.reviews.values()],
        # The commitment to the deal's seed (docs/fairness.md); the seed once revealed.
        "fairness": dict(state.fairness) if state.fairness is not None else None,
    }
    return view | league_view(state)


def league_view(state: MatchState) -> dict[str, Any]:
    """A league match's top-level keys: ``league`` (its league and night; the roster ids stay
    out) and ``handicaps``, each only when the match has it, so every other match's view is
    as it always was."""
    view: dict[str, Any] = {}
    if state.league is not None:
        view["league"] = {key: state.league[key]
                          for key in ("league_id", "night_id", "night_date")}
    if state.handicaps:
        view["handicaps"] = dict(state.handicaps)
    return view


def _places(state: MatchState, values: dict[str, Any]) -> list[list[str]]:
    """Bowlers grouped best to worst as if the match ended now (ties share a place)."""
    if state.status in ("new", "open") or not state.bowlers:
        return [list(state.bowlers)] if state.bowlers else []
    # A folded hand is out of the showdown: it takes no place.
    values = {b: value for b, value in values.items() if state.contends(b)}
    ordered = sorted(set(values.values()), reverse=True)
    return [[b for b in state.bowlers if values.get(b) == value] for value in ordered]
