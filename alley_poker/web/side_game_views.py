"""A night's side games as JSON: the desk's whole night, a bowler's brackets, the kiosk's
still-alive list.  Everything is read off the folded night
(:class:`~alley_poker.side_games.SideNight`), never kept apart.

Who sees what: the desk (commissioner) everything, money included; a bowler's phone their own
brackets, who they face next and what they won; a lane's kiosk (public, like its other reads)
only who on its lanes is still alive where, by their seat names: no money, no roster ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alley_poker.side_games import BracketOutcome, Match, SideNight
from alley_poker.side_games.settings import BracketSettings

Names = Mapping[int, str]


def _name(names: Names, bowler: int | None) -> str | None:
    return None if bowler is None else names.get(bowler, f"bowler {bowler}")


def match_view(match: Match, names: Names) -> dict[str, Any]:
    return {"round": match.round, "match": match.key[2] + 1, "game": match.game,
            "sides": list(match.sides), "names": [_name(names, s) for s in match.sides],
            "status": match.status, "winner": match.winner,
            "winner_name": _name(names, match.winner), "how": match.how}


def bracket_view(outcome: BracketOutcome, names: Names, paid: bool) -> dict[str, Any]:
    return {"bracket": outcome.number, "size": outcome.size, "finished": outcome.finished,
            "paid": paid, "alive": list(outcome.alive()),
            "matches": [match_view(m, names) for m in outcome.matches],
            "payouts": [{"bowler": b, "name": _name(names, b), "cents": c}
                        for b, c in sorted(outcome.payouts.items())]}


def with_scores(bracket: dict[str, Any], night: SideNight, scoring: str) -> dict[str, Any]:
    """Each match's two sides' counted scores on its game (None: not in yet, or a bye), as
    the desk's tree shows them beside the names."""
    for match in bracket["matches"]:
        match["scores"] = [
            None if side is None or (side, match["game"]) not in night.scores
            else night.scores[side, match["game"]].counted(scoring)
            for side in match["sides"]]
    return bracket


def money_view(night: SideNight, names: Names) -> dict[str, Any]:
    money = night.money()
    return {"entries_cents": money.entries_cents, "payouts_cents": money.payouts_cents,
            "refunds_cents": money.refunds_cents, "organiser_cents": money.organiser_cents,
            "in_play_cents": money.in_play_cents, "balanced": money.balanced,
            "bowlers": [{"bowler": line.bowler, "name": _name(names, line.bowler),
                         "paid_cents": line.paid_cents, "won_cents": line.won_cents,
                         "refunded_cents": line.refunded_cents, "net_cents": line.net_cents}
                        for line in money.bowlers]}


def result_view(result: Any) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"payouts": [[b, c] for b, c in sorted(result.payouts.items())],
            "organiser_cents": result.organiser_cents,
            "refunds": [[b, c] for b, c in sorted(result.refunds.items())]}


def game_view(night: SideNight, game: str, names: Names) -> dict[str, Any]:
    book = night.books[game]
    view: dict[str, Any] = {
        "game": game, "settings": book.settings.to_data(),
        "entries": [{"bowler": b, "name": _name(names, b), "entries": n,
                     "rolled_in": book.rolled_in.get(b, 0)}
                    for b, n in sorted(book.entries.items())]}
    if isinstance(book.settings, BracketSettings):
        preview = night.draw_preview(game) if book.drawn is None else None
        view["preview"] = None if preview is None else {
            "brackets": preview.brackets, "sevens": preview.sevens,
            "left_over": preview.left_over, "to_fill_next": preview.to_fill_next}
        view["brackets"] = [with_scores(bracket_view(o, names, o.number in book.paid),
                                        night, book.settings.scoring)
                            for o in night.brackets(game)]
    else:
        pot = night.pot(game)
        view["pot"] = {"standings": [{"bowler": b, "name": _name(names, b), "number": n}
                                     for b, n in pot.standings],
                       "waiting_on": list(pot.waiting_on), "finished": pot.finished,
                       "paid": None in book.paid,
                       "payouts": [[b, c] for b, c in sorted(pot.payouts.items())],
                       "organiser_cents": pot.organiser_cents,
                       "refunds": [[b, c] for b, c in sorted(pot.refunds.items())]}
    return view


def commissioner_view(night: SideNight, names: Names) -> dict[str, Any]:
    """The desk's night: every game (entries, the preview before the draw, the trees, the
    pots), the draw's seal, the money, and the paid results the games now change."""
    return {
        "night_id": night.night_id, "league_id": night.league_id,
        "night_date": night.night_date, "games_a_night": night.games, "seq": night.seq,
        "scores_in": len(night.scores),     # a game in closes the pots' entries
        "draw": {"sealed": night.drawn, "commitment": night.commitment, "salt": night.salt,
                 "committed_at": (night.committed_at.isoformat()
                                  if night.committed_at else None),
                 "seed": night.seed},
        "games": [game_view(night, game, names) for game in night.books],
        "money": money_view(night, names),
        "pending_changes": [{"game": c.game, "bracket": c.bracket,
                             "paid": result_view(c.paid), "now": result_view(c.now)}
                            for c in night.pending_changes()],
    }


def bowler_view(night: SideNight, bowler: int, names: Names) -> dict[str, Any]:
    """A bowler's brackets (alive or out), who they face next and on which game, what they
    won; and the pots they entered."""
    outcomes = {(game, o.number): o for game in night.bracket_games()
                for o in night.brackets(game)}
    brackets = []
    for b in night.bowler_brackets(bowler):
        outcome = outcomes[b.game, b.bracket]
        lost = next((m for m in outcome.matches if m.loser == bowler), None)
        brackets.append({"game": b.game, "bracket": b.bracket, "alive": b.alive,
                         "next_game": b.next_match.game if b.next_match else None,
                         "next_round": b.next_match.round if b.next_match else None,
                         "opponent": _name(names, b.opponent), "won_cents": b.won_cents,
                         "out_round": lost.round if lost else None,
                         "finished": outcome.finished})
    pots = []
    for game, book in night.books.items():
        if not isinstance(book.settings, BracketSettings) and bowler in book.entries:
            pot = night.pot(game)
            place = next((i for i, (b, _n) in enumerate(pot.standings, 1) if b == bowler),
                         None)
            pots.append({"game": game, "kind": book.settings.kind, "place": place,
                         "won_cents": book.paid[None].payouts.get(bowler, 0)
                         if None in book.paid else 0})
    return {"night_id": night.night_id, "drawn": night.drawn, "brackets": brackets,
            "alive_in": sum(b["alive"] for b in brackets), "pots": pots}


def alive_view(night: SideNight, seats: Mapping[int, str]) -> list[dict[str, Any]]:
    """The kiosk's still-alive list for the bowlers of its lanes (``seats``: roster id to
    seat name): who is alive in which brackets not yet over."""
    alive = night.still_alive()
    return [{"name": seats[bowler],
             "brackets": [{"game": game, "bracket": number} for game, number in where]}
            for bowler, where in alive.items() if bowler in seats]
