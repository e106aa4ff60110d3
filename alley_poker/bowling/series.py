"""A bowler's series: several finished games with scratch and handicap totals."""

from __future__ import annotations

from collections.abc import Iterable

from alley_poker.bowling.bowling_errors import BowlingError
from alley_poker.bowling.game import Game


class Series:
    """Several finished games of one bowler, with scratch and handicap totals.

    The handicap is a fixed number of pins per game given by the league (its own formula,
    e.g. 90% of 220 minus average, is the league's business); the series handicap is that
    times the number of games.

    >>> series = Series(handicap_per_game=12)
    >>> series.add(Game.from_rolls([10] * 12)); series.add(Game.from_rolls([9, 0] * 10))
    >>> series.scratch, series.handicap, series.total
    (390, 24, 414)
    """

    __slots__ = ("_games", "_handicap_per_game")

    def __init__(self, handicap_per_game: int = 0, games: Iterable[Game] = ()) -> None:
        if isinstance(handicap_per_game, bool) or not isinstance(handicap_per_game, int):
            raise BowlingError(f"handicap per game must be whole pins, got {handicap_per_game!r}")
        if handicap_per_game < 0:
            raise BowlingError(f"handicap per game cannot be negative, got {handicap_per_game}")
        self._handicap_per_game = handicap_per_game
        self._games: tuple[Game, ...] = ()
        for game in games:
            self.add(game)

    def add(self, game: Game) -> None:
        """Add a finished game (an unfinished one is refused: its score is not known yet)."""
        if not isinstance(game, Game):
            raise BowlingError(f"a series holds games, got {game!r}")
        if not game.is_complete:
            raise BowlingError(
                f"only a finished game can join a series; this one is at frame "
                f"{game.current_frame}"
            )
        if any(existing is game for existing in self._games):
            raise BowlingError("this game is already in the series")
        self._games = (*self._games, game)

    @property
    def handicap_per_game(self) -> int:
        """The league's handicap for this bowler, in pins per game (fixed for the series)."""
        return self._handicap_per_game

    @property
    def games(self) -> tuple[Game, ...]:
        return self._games

    @property
    def game_scores(self) -> tuple[int, ...]:
        return tuple(game.score() for game in self._games)

    @property
    def scratch(self) -> int:
        """The natural (non-handicapped) total."""
        return sum(self.game_scores)

    @property
    def handicap(self) -> int:
        return self._handicap_per_game * len(self._games)

    @property
    def total(self) -> int:
        return self.scratch + self.handicap

    def __repr__(self) -> str:
        scores = " ".join(str(score) for score in self.game_scores) or "no games"
        return (
            f"<Series {scores}: scratch {self.scratch} + handicap {self.handicap}"
            f" = {self.total}>"
        )
