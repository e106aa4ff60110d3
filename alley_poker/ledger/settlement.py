"""The settlement at the ledger layer: what each bowler paid, won, is up or down in a night.

Pure arithmetic over match states (``paid`` holds antes and bought cards less refunds,
``won`` the shares of pots confirmed; both in cents).  A bowler is known by name across the
night's matches.  Money still in the pot of an unfinished match is ``held``: only once every
match is settled or void do the bowlers' nets sum to zero.

>>> from alley_poker.ledger.state import MatchState
>>> one = MatchState.empty("m1")
>>> one.status, one.bowlers, one.pot_cents = "settled", ["Ann", "Bob"], 0
>>> one.paid, one.won = {"Ann": 100, "Bob": 100}, {"Ann": 200, "Bob": 0}
>>> night = settle([one])
>>> [(b.bowler, b.paid_cents, b.won_cents, b.net_cents) for b in night.bowlers]
[('Ann', 100, 200, 100), ('Bob', 100, 0, -100)]
>>> night.held_cents
0
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.state import MatchState


@dataclass
class BowlerMoney:
    """One bowler's money over the night (cents)."""

    bowler: str
    paid_cents: int = 0
    won_cents: int = 0
    matches: list[str] = field(default_factory=list)

    @property
    def net_cents(self) -> int:
        return self.won_cents - self.paid_cents

    def as_dict(self) -> dict[str, Any]:
        return {"bowler": self.bowler, "paid_cents": self.paid_cents,
                "won_cents": self.won_cents, "net_cents": self.net_cents,
                "matches": list(self.matches)}


@dataclass(frozen=True)
class MatchMoney:
    """One match's pot and where it stands."""

    match_id: str
    status: str
    pot_cents: int
    paid_cents: int
    won_cents: int


@dataclass(frozen=True)
class Settlement:
    """The night: every bowler (by name) and every match counted."""

    bowlers: list[BowlerMoney]
    matches: list[MatchMoney]

    @property
    def paid_cents(self) -> int:
        return sum(bowler.paid_cents for bowler in self.bowlers)

    @property
    def won_cents(self) -> int:
        return sum(bowler.won_cents for bowler in self.bowlers)

    @property
    def held_cents(self) -> int:
        """Paid in but not yet paid out (pots of matches still being bowled or confirmed)."""
        return self.paid_cents - self.won_cents

    @property
    def complete(self) -> bool:
        """True when every match is settled or void, so the nets sum to zero."""
        return all(match.status in FINISHED for match in self.matches)

    @property
    def unsettled(self) -> list[MatchMoney]:
        """The matches neither settled nor void (the night is not over while there is one)."""
        return [match for match in self.matches if match.status not in FINISHED]

    def as_dict(self) -> dict[str, Any]:
        return {"bowlers": [bowler.as_dict() for bowler in self.bowlers],
                "matches": [asdict(match) for match in self.matches],
                "unsettled": [{"match_id": match.match_id, "status": match.status,
                               "pot_cents": match.pot_cents} for match in self.unsettled],
                "totals": {"paid_cents": self.paid_cents, "won_cents": self.won_cents,
                           "held_cents": self.held_cents, "complete": self.complete}}


def settle(states: Iterable[MatchState]) -> Settlement:
    """Add up ``states`` (matches never created are skipped); bowlers sorted by name."""
    bowlers: dict[str, BowlerMoney] = {}
    matches: list[MatchMoney] = []
    for state in states:
        if state.status == "new":
            continue
        # A removed bowler was refunded and left ``paid``/``won``: nothing to count.
        for name in sorted(set(state.paid) | set(state.won)):
            money = bowlers.setdefault(name, BowlerMoney(name))
            money.paid_cents += state.paid.get(name, 0)
            money.won_cents += state.won.get(name, 0)
            money.matches.append(state.match_id)
        matches.append(MatchMoney(state.match_id, state.status, state.pot_cents,
                                  sum(state.paid.values()), sum(state.won.values())))
    return Settlement([bowlers[name] for name in sorted(bowlers)], matches)
