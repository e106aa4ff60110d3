"""What the odds engines answer: each bowler's chance and expected cents after an event."""

from __future__ import annotations

from dataclasses import dataclass

from alley_poker.ledger import MatchState

#: States the odds describe: a match in play or at its end.  Before the start there are no
#: cards yet; a void match has no winner.
LIVE = ("playing", "ending")


@dataclass(frozen=True)
class BowlerOdds:
    """One bowler's chance of taking the pot (ties as the share) and expected cents."""

    win: float
    expected_cents: float


@dataclass(frozen=True)
class MatchOdds:
    """The odds of every bowler of a match after its event ``seq``.

    ``exact``: the match's result is known, the odds are that result.  ``enumerated``: every
    way the rest can go was counted with its probability (only the cards were left), so the
    odds are exact too, with ``iterations`` the ways counted.
    """

    match_id: str
    seq: int
    iterations: int
    bowlers: dict[str, BowlerOdds]
    exact: bool
    enumerated: bool = False

    def as_json(self) -> dict:
        """The odds as the API and the kiosk carry them."""
        return {
            "seq": self.seq,
            "iterations": self.iterations,
            "exact": self.exact,
            "bowlers": {name: {"win": round(odds.win, 4),
                               "expected_cents": round(odds.expected_cents)}
                        for name, odds in self.bowlers.items()},
        }


def from_result(state: MatchState) -> MatchOdds:
    """The odds of a match whose showdown has named its winners: the result itself."""
    winners = state.result["winners"]
    shares = state.result["shares"]
    return MatchOdds(state.match_id, state.seq, 0, {
        bowler: BowlerOdds(1 / len(winners) if bowler in winners else 0.0,
                           float(shares.get(bowler, 0)))
        for bowler in state.bowlers}, exact=True)


def known_without_running(state: MatchState, iterations: int) -> tuple[bool, MatchOdds | None]:
    """What every engine answers before it runs anything: ``(True, odds)`` when the odds are
    known already (the result's once the showdown named winners; None for a match that is
    not live), ``(False, None)`` when the match must be run.  Fewer than one run is refused."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    if state.result is not None:
        return True, from_result(state)
    if state.status not in LIVE:
        return True, None
    return False, None
