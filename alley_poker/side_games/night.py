"""A league night's side games folded from its events: the games set, the entries and what
was paid for them, the sealed draw, the scores, and the money paid out.

The state is only ever changed by :meth:`SideNight.apply`; everything a screen or a sheet
needs is read off it: each bracket's rounds as the games now stand, each pot, what a bowler
is still alive in and who they face next, the results that changed after they were paid
(:meth:`SideNight.pending_changes`, for the desk to confirm), and the money to the cent.
The commands that produce the events are in :mod:`.night_commands`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from alley_poker.side_games.draw import Bracket, DrawPreview, preview
from alley_poker.side_games.money import NightMoney, night_money
from alley_poker.side_games.night_events import SideEvent, table
from alley_poker.side_games.pots import PotOutcome, pot_outcome
from alley_poker.side_games.rounds import BracketOutcome, GameScore, Match, decide_bracket
from alley_poker.side_games.settings import (
    BracketSettings,
    PotSettings,
    SideGameSettings,
    settings_from_data,
)
from alley_poker.side_games.side_game_errors import SideGameError

T = TypeVar("T", BracketSettings, PotSettings)

#: Which payment of a game: a bracket's number, or None for a pot.
PaidKey = tuple[str, int | None]


@dataclass(frozen=True)
class Result:
    """Money a bracket or a pot pays: to bowlers, to the organiser, back as refunds."""

    payouts: dict[int, int]
    organiser_cents: int = 0
    refunds: dict[int, int] = field(default_factory=dict)

    @property
    def total_cents(self) -> int:
        return sum(self.payouts.values()) + self.organiser_cents + sum(self.refunds.values())


@dataclass(frozen=True)
class PendingChange:
    """A paid bracket or pot whose games now say something else: ``now`` is what they say
    (None: undecided again, e.g. a tie waiting on a roll-off).  The desk confirms the change
    or keeps what was paid (:class:`~alley_poker.side_games.night_commands.ResolveChange`)."""

    game: str
    bracket: int | None
    paid: Result
    now: Result | None


@dataclass(frozen=True)
class BowlerBracket:
    """One of a bowler's brackets as it stands, for their phone and the kiosk."""

    game: str
    bracket: int
    alive: bool
    next_match: Match | None        # their next undecided match (None: out, or it is over)
    opponent: int | None            # who they face in it (None: not known yet)
    won_cents: int                  # once the bracket is decided


@dataclass
class GameBook:
    """One side game of the night."""

    settings: SideGameSettings
    entries: dict[int, int] = field(default_factory=dict)     # rolled-in entries included
    rolled_in: dict[int, int] = field(default_factory=dict)
    drawn: tuple[Bracket, ...] | None = None
    paid: dict[int | None, Result] = field(default_factory=dict)
    kept: dict[int | None, Result | None] = field(default_factory=dict)


@dataclass
class SideNight:
    """The side games of one league night (``night_id`` as the league names nights)."""

    night_id: str
    league_id: str = ""
    night_date: str = ""
    games: int = 0                      # games the league bowls a night
    seq: int = 0
    opened_at: datetime | None = None
    books: dict[str, GameBook] = field(default_factory=dict)   # in the order they were set
    commitment: str | None = None
    salt: str | None = None
    committed_at: datetime | None = None
    seed: str | None = None             # hex, once revealed
    scores: dict[tuple[int, int], GameScore] = field(default_factory=dict)
    roll_offs: dict[tuple[str, int, int, int], int] = field(default_factory=dict)
    paid_in: dict[int, int] = field(default_factory=dict)
    refunded: dict[int, int] = field(default_factory=dict)

    # ------------------------------------------------------------------------ folding
    def apply(self, event: SideEvent) -> None:
        """Fold one event (the next in seq order) into the night."""
        if event.seq != self.seq + 1:
            raise ValueError(f"night {self.night_id}: event #{event.seq} does not follow "
                             f"#{self.seq}")
        getattr(self, f"_on_{event.type}")(event.data, event.at)
        self.seq = event.seq

    def _on_side_night_opened(self, d: dict[str, Any], at: datetime) -> None:
        self.league_id, self.night_date, self.games = d["league_id"], d["night_date"], d["games"]
        self.opened_at = at

    def _on_side_game_set(self, d: dict[str, Any], at: datetime) -> None:
        self.books[d["game"]] = GameBook(settings_from_data(d["settings"]))

    def _on_entry_recorded(self, d: dict[str, Any], at: datetime) -> None:
        book = self.books[d["game"]]
        book.entries[d["bowler"]] = book.entries.get(d["bowler"], 0) + d["entries"]
        _add(self.paid_in, d["bowler"], d["paid_cents"])

    def _on_entry_withdrawn(self, d: dict[str, Any], at: datetime) -> None:
        book = self.books[d["game"]]
        book.entries[d["bowler"]] -= d["entries"]
        if not book.entries[d["bowler"]]:
            del book.entries[d["bowler"]]
        _add(self.refunded, d["bowler"], d["refund_cents"])

    def _on_draw_committed(self, d: dict[str, Any], at: datetime) -> None:
        self.commitment, self.salt, self.committed_at = d["commitment"], d["salt"], at

    def _on_draw_made(self, d: dict[str, Any], at: datetime) -> None:
        book = self.books[d["game"]]
        book.drawn = tuple(Bracket(number, tuple(slots))
                           for number, slots in enumerate(d["brackets"], start=1))
        for bowler, count in table(d["rolled"]).items():
            target = self.books[d["rolled_to"]]
            target.entries[bowler] = target.entries.get(bowler, 0) + count
            target.rolled_in[bowler] = target.rolled_in.get(bowler, 0) + count
        for bowler, count in table(d["refunded"]).items():
            _add(self.refunded, bowler, count * book.settings.entry_cents)

    def _on_seed_revealed(self, d: dict[str, Any], at: datetime) -> None:
        self.seed = d["seed"]

    def _on_score_recorded(self, d: dict[str, Any], at: datetime) -> None:
        self.scores[d["bowler"], d["game"]] = GameScore(d["scratch"], d["handicap"],
                                                        d["strikes"], d["absent"])

    def _on_roll_off_recorded(self, d: dict[str, Any], at: datetime) -> None:
        self.roll_offs[d["game"], d["bracket"], d["round"], d["match"]] = d["winner"]

    def _on_bracket_paid(self, d: dict[str, Any], at: datetime) -> None:
        self.books[d["game"]].paid[d["bracket"]] = Result(table(d["payouts"]),
                                                          d["organiser_cents"])

    def _on_pot_paid(self, d: dict[str, Any], at: datetime) -> None:
        self.books[d["game"]].paid[None] = Result(table(d["payouts"]), d["organiser_cents"],
                                                  table(d["refunds"]))

    def _on_paid_result_changed(self, d: dict[str, Any], at: datetime) -> None:
        book = self.books[d["game"]]
        book.paid[d["bracket"]] = Result(table(d["payouts"]), d["organiser_cents"],
                                         table(d["refunds"]))
        book.kept.pop(d["bracket"], None)

    def _on_paid_result_kept(self, d: dict[str, Any], at: datetime) -> None:
        against = d["against"]
        self.books[d["game"]].kept[d["bracket"]] = None if against is None else Result(
            table(against["payouts"]), against["organiser_cents"], table(against["refunds"]))

    # ------------------------------------------------------------------------ reading
    @property
    def drawn(self) -> bool:
        return self.commitment is not None

    def book(self, game: str) -> GameBook:
        return self.books[game]

    def bracket_games(self) -> list[str]:
        return [g for g, b in self.books.items() if isinstance(b.settings, BracketSettings)]

    def brackets(self, game: str) -> tuple[BracketOutcome, ...]:
        """Every bracket of a bracket game as the games stand (none before the draw)."""
        book = self.books[game]
        settings = _kind(book.settings, BracketSettings, game)
        roll_offs = {key[1:]: winner for key, winner in self.roll_offs.items()
                     if key[0] == game}
        return tuple(decide_bracket(bracket, settings, self.scores, roll_offs)
                     for bracket in book.drawn or ())

    def draw_preview(self, game: str) -> DrawPreview:
        """Before the draw: the brackets a bracket game's entries fill, and how many are open."""
        settings = _kind(self.books[game].settings, BracketSettings, game)
        return preview(self.books[game].entries,
                       seven_bowler_brackets=settings.seven_bowler_brackets)

    def pot(self, game: str) -> PotOutcome:
        book = self.books[game]
        return pot_outcome(_kind(book.settings, PotSettings, game), book.entries, self.scores)

    def result(self, game: str, bracket: int | None, *,
               as_they_stand: bool = False) -> Result | None:
        """What a bracket (or, with None, a pot) pays as the games stand; None while it is
        not decided (a pot paid ``as_they_stand`` counts the games that are in)."""
        book = self.books[game]
        if bracket is None:
            pot = self.pot(game)
            if not (pot.finished or as_they_stand):
                return None
            return Result(pot.payouts, pot.organiser_cents, pot.refunds)
        outcome = self.brackets(game)[bracket - 1]
        if not outcome.finished:
            return None
        return Result(outcome.payouts, _kind(book.settings, BracketSettings, game)
                      .organiser_cents)

    def pending_changes(self) -> list[PendingChange]:
        """Paid brackets and pots whose games now say otherwise, and the desk has not yet
        confirmed or kept (a pot paid as it stood compares with the games as they stand)."""
        found = []
        for game, book in self.books.items():
            for key, paid in book.paid.items():
                now = self.result(game, key, as_they_stand=key is None)
                if now != paid and (key not in book.kept or book.kept[key] != now):
                    found.append(PendingChange(game, key, paid, now))
        return found

    def bowler_brackets(self, bowler: int) -> list[BowlerBracket]:
        """The bowler's brackets: alive or out, who they face next, what they won."""
        found = []
        for game in self.bracket_games():
            for outcome in self.brackets(game):
                if bowler not in outcome.alive() and not any(
                        bowler in m.sides for m in outcome.matches if m.round == 1):
                    continue
                following = outcome.next_match(bowler)
                opponent = None
                if following is not None:
                    a, b = following.sides
                    opponent = b if a == bowler else a
                found.append(BowlerBracket(game, outcome.number, bowler in outcome.alive(),
                                           following, opponent,
                                           outcome.payouts.get(bowler, 0)))
        return found

    def still_alive(self) -> dict[int, list[tuple[str, int]]]:
        """The kiosk's list between games: each bowler still alive in a bracket not yet over,
        with those brackets as ``(game, bracket number)``."""
        alive: dict[int, list[tuple[str, int]]] = {}
        for game in self.bracket_games():
            for outcome in self.brackets(game):
                if not outcome.finished:
                    for bowler in outcome.alive():
                        alive.setdefault(bowler, []).append((game, outcome.number))
        return dict(sorted(alive.items()))

    def money(self) -> NightMoney:
        """The night's side money: entries = payouts + refunds + organiser's share + what is
        still in play (entries of games not drawn, brackets and pots not yet paid)."""
        won: dict[int, int] = {}
        refunded = dict(self.refunded)
        organiser = in_play = 0
        for book in self.books.values():
            for paid in book.paid.values():
                organiser += paid.organiser_cents
                for bowler, cents in paid.payouts.items():
                    _add(won, bowler, cents)
                for bowler, cents in paid.refunds.items():
                    _add(refunded, bowler, cents)
            fee = book.settings.entry_cents
            if isinstance(book.settings, PotSettings):
                if None not in book.paid:
                    in_play += fee * sum(book.entries.values())
            elif book.drawn is None:
                in_play += fee * sum(book.entries.values())
            else:
                in_play += fee * sum(len(b.bowlers) for b in book.drawn
                                     if b.number not in book.paid)
        return night_money(self.paid_in, won, refunded, organiser_cents=organiser,
                           in_play_cents=in_play)


def _kind(settings: SideGameSettings, kind: type[T], game: str) -> T:
    if not isinstance(settings, kind):
        raise SideGameError(f"{game} is not a {'pot' if kind is PotSettings else 'bracket'} "
                            "game", field="game")
    return settings


def _add(totals: dict[int, int], bowler: int, cents: int) -> None:
    totals[bowler] = totals.get(bowler, 0) + cents
