"""The desk's and the scorer's commands on a night's side games, and the events they make.

:func:`decide` checks a command against the night as it stands and returns its events (the
night is never changed: fold them with :meth:`SideNight.apply`, or :func:`run`); a command
that does not apply raises :class:`SideGameError` naming the field, and nothing happened.

>>> from datetime import datetime, UTC
>>> from alley_poker.side_games.settings import BracketSettings
>>> night = SideNight("tue-2026-11-24")
>>> at = datetime(2026, 11, 24, 19, 0, tzinfo=UTC)
>>> run(night, OpenNight("tue", "2026-11-24", games=3), actor="commissioner:pat", now=at)
>>> run(night, SetSideGame("hdcp", BracketSettings(games=(1, 2, 3), scoring="handicap",
...     entry_cents=500, payouts_cents=(3000, 1000))), actor="commissioner:pat", now=at)
>>> for bowler in range(1, 9):
...     run(night, RecordEntry("hdcp", bowler, 1, 500), actor="commissioner:pat", now=at)
>>> run(night, RecordEntry("hdcp", 9, 2, 500), actor="commissioner:pat", now=at)
Traceback (most recent call last):
...
alley_poker.side_games.side_game_errors.SideGameError: 2 entries of $5.00 are $10.00: the desk \
records what was paid, not $5.00
>>> [e.type for e in decide(night, Draw(bytes(32)), actor="commissioner:pat", now=at)]
['draw_committed', 'draw_made']
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from alley_poker.fairness.deal import (
    SCHEME,
    SEED_BYTES,
    Drbg,
    commitment,
    salt_for,
    verify_seed,
)
from alley_poker.league.exports import dollars
from alley_poker.side_games.draw import draw_brackets
from alley_poker.side_games.night import Result, SideNight
from alley_poker.side_games.night_events import SideEvent, pairs
from alley_poker.side_games.rounds import GameScore
from alley_poker.side_games.settings import (
    MAX_GAME,
    BracketSettings,
    PotSettings,
    SideGameSettings,
    check_game_id,
)
from alley_poker.side_games.side_game_errors import SideGameError

#: The random use the draw reads (docs/fairness.md, section 3).
DRAW_USE = "bracket-draw"
PERFECT_GAME = 300
MOST_STRIKES = 12


@dataclass(frozen=True)
class OpenNight:
    """The night's side games open (once): its league, date and games a night."""
    league_id: str
    night_date: str
    games: int


@dataclass(frozen=True)
class SetSideGame:
    """Set (or, before its first entry, change) one side game of the night."""
    game: str
    settings: SideGameSettings


@dataclass(frozen=True)
class RecordEntry:
    """A bowler buys ``entries`` (brackets; 1 for a pot) and paid ``paid_cents`` for them."""
    game: str
    bowler: int
    entries: int
    paid_cents: int


@dataclass(frozen=True)
class WithdrawEntry:
    """Before the draw (a pot: before the first game is in): entries back, refunded."""
    game: str
    bowler: int
    entries: int


@dataclass(frozen=True)
class Draw:
    """Seal and make the draw of every bracket game, in the order they were set."""
    seed: bytes = field(repr=False)


@dataclass(frozen=True)
class RecordScore:
    """A finished game from the scorer (again, for the same bowler and game: a correction)."""
    bowler: int
    game: int
    scratch: int
    handicap: int = 0
    strikes: int = 0


@dataclass(frozen=True)
class MarkAbsent:
    """The desk marks a bowler absent for a game they will not bowl (a game bowled after
    all, sent by the scorer, replaces it)."""
    bowler: int
    game: int


@dataclass(frozen=True)
class RecordRollOff:
    """The desk records who won the roll-off of a tied match."""
    game: str
    bracket: int
    round: int
    match: int
    winner: int


@dataclass(frozen=True)
class PayBracket:
    game: str
    bracket: int


@dataclass(frozen=True)
class PayPot:
    """Pay a pot once every entrant's games are in (or ``as_they_stand``, the desk's call)."""
    game: str
    as_they_stand: bool = False


@dataclass(frozen=True)
class ResolveChange:
    """The desk's answer to a paid result the games now change: ``accept`` pays it as the
    games now say, otherwise what was paid stands (against those games)."""
    game: str
    bracket: int | None
    accept: bool
    reason: str


@dataclass(frozen=True)
class RevealSeed:
    """Reveal the draw's seed (the night's close): anyone can then re-do the draw."""
    seed: bytes = field(repr=False)


Command = (OpenNight | SetSideGame | RecordEntry | WithdrawEntry | Draw | RecordScore
           | MarkAbsent | RecordRollOff | PayBracket | PayPot | ResolveChange | RevealSeed)


class _Emitter:
    """The events of one command, numbered after the night's last (nothing is folded: a
    command whose later events depend on its earlier ones folds them into a copy)."""

    def __init__(self, night: SideNight, actor: str, now: datetime) -> None:
        self.night, self.actor, self.now = night, actor, now
        self.events: list[SideEvent] = []

    def emit(self, kind: str, **data: Any) -> SideEvent:
        event = SideEvent(self.night.night_id, self.night.seq + len(self.events) + 1, kind,
                          self.now, {**data, "actor": self.actor})
        self.events.append(event)
        return event


def decide(night: SideNight, command: Command, *, actor: str,
           now: datetime) -> list[SideEvent]:
    """The events ``command`` makes against ``night`` (unchanged); SideGameError if none."""
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise ValueError(f"a command's moment is an aware datetime, not {now!r}")
    now = now.astimezone(UTC)           # the seal's salt is the UTC date, as the deal's
    if not isinstance(command, OpenNight) and night.seq == 0:
        raise SideGameError("open the night's side games first", field="night")
    out = _Emitter(night, actor, now)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise SideGameError(f"not a side-game command: {command!r}", field="command")
    handler(out, command)
    return out.events


def run(night: SideNight, command: Command, *, actor: str, now: datetime) -> None:
    """Decide ``command`` and fold its events into ``night``."""
    for event in decide(night, command, actor=actor, now=now):
        night.apply(event)


# ---------------------------------------------------------------------------- handlers
def _open(out: _Emitter, cmd: OpenNight) -> None:
    if out.night.seq:
        raise SideGameError("the night's side games are open already", field="night")
    try:
        date.fromisoformat(cmd.night_date)
    except (TypeError, ValueError):
        raise SideGameError(f"a night's date is YYYY-MM-DD, not {cmd.night_date!r}",
                            field="night_date") from None
    _whole(cmd.games, 1, MAX_GAME, "games a night", "games")
    out.emit("side_night_opened", league_id=cmd.league_id, night_date=cmd.night_date,
             games=cmd.games)


def _set(out: _Emitter, cmd: SetSideGame) -> None:
    check_game_id(cmd.game)
    night = out.night
    if not isinstance(cmd.settings, (BracketSettings, PotSettings)):
        raise SideGameError("a side game's settings are BracketSettings or PotSettings",
                            field="settings")
    if night.drawn:
        raise SideGameError("the draw is made: the night's side games are set",
                            field="game")
    if cmd.game in night.books and night.books[cmd.game].entries:
        raise SideGameError(f"{cmd.game} has entries: withdraw them before changing it",
                            field="game")
    beyond = [g for g in cmd.settings.games if g > night.games]
    if beyond:
        raise SideGameError(f"the league bowls {night.games} games a night; game "
                            f"{beyond[0]} is not one of them", field="games")
    out.emit("side_game_set", game=cmd.game, settings=cmd.settings.to_data())


def _entry(out: _Emitter, cmd: RecordEntry) -> None:
    night = out.night
    book = _book(night, cmd.game)
    _entries_open(night, cmd.game)
    _whole(cmd.bowler, 1, 2**63 - 1, "a bowler id", "bowler")
    settings = book.settings
    if settings.eligible is not None and cmd.bowler not in settings.eligible:
        raise SideGameError(f"bowler {cmd.bowler} may not enter {cmd.game} (not on its list)",
                            field="bowler")
    have = book.entries.get(cmd.bowler, 0)
    limit = settings.entries_per_bowler
    _whole(cmd.entries, 1, limit, "entries", "entries")
    if have + cmd.entries > limit:
        raise SideGameError(f"bowler {cmd.bowler} has {have} of the {limit} entries a bowler "
                            f"may have in {cmd.game}", field="entries")
    owed = cmd.entries * settings.entry_cents
    if cmd.paid_cents != owed:
        raise SideGameError(
            f"{cmd.entries} entries of ${dollars(settings.entry_cents)} are ${dollars(owed)}: "
            f"the desk records what was paid, not ${dollars(cmd.paid_cents)}"
            if isinstance(cmd.paid_cents, int) else f"paid_cents is whole cents, not "
            f"{cmd.paid_cents!r}", field="paid_cents")
    out.emit("entry_recorded", game=cmd.game, bowler=cmd.bowler, entries=cmd.entries,
             paid_cents=cmd.paid_cents)


def _withdraw(out: _Emitter, cmd: WithdrawEntry) -> None:
    book = _book(out.night, cmd.game)
    _entries_open(out.night, cmd.game)
    have = book.entries.get(cmd.bowler, 0)
    _whole(cmd.entries, 1, max(have, 1), "entries to withdraw", "entries")
    if cmd.entries > have:
        raise SideGameError(f"bowler {cmd.bowler} has {have} entries in {cmd.game}",
                            field="entries")
    out.emit("entry_withdrawn", game=cmd.game, bowler=cmd.bowler, entries=cmd.entries,
             refund_cents=cmd.entries * book.settings.entry_cents)


def _draw(out: _Emitter, cmd: Draw) -> None:
    night = out.night
    if night.drawn:
        raise SideGameError("the draw is made and sealed; it is never made again",
                            field="draw")
    if night.scores:
        raise SideGameError("a game is already in: the draw is sealed before the first "
                            "counted ball (withdraw the entries to refund them)", field="draw")
    games = night.bracket_games()
    if not games:
        raise SideGameError("the night has no bracket game to draw", field="draw")
    _check_rollovers(night, games)
    _seed(cmd.seed)
    # Each game's draw sees the ones before it (the entries they rolled over): fold them
    # into a copy of the night as they are made.
    work = copy.deepcopy(night)
    work.apply(out.emit("draw_committed", scheme=SCHEME, commitment=commitment(cmd.seed),
                        salt=salt_for(night.night_id, out.now.date().isoformat())))
    for game in games:
        work.apply(out.emit("draw_made", **draw_data(work, game, cmd.seed)))


def draw_data(night: SideNight, game: str, seed: bytes) -> dict[str, Any]:
    """The ``draw_made`` data of ``game`` from ``seed`` and the entries as they stand: what
    the desk's draw records and what a verifier re-does.

    The stream is the fair deal's ``bracket-draw`` use numbered by the game's place among
    the night's bracket games (1 for the first set), not by an event's seq: the draw is a
    function of the seed, the night's salt, the game and the *set* of entries, however many
    events it took to record them."""
    book = night.books[game]
    settings = book.settings
    assert isinstance(settings, BracketSettings) and night.salt is not None
    drawn = draw_brackets(book.entries, seven_bowler_brackets=settings.seven_bowler_brackets,
                          stream=Drbg(seed, night.salt).stream(
                              DRAW_USE, night.bracket_games().index(game) + 1))
    target = night.books.get(settings.rollover_to or "")
    rolled, refunded = {}, {}
    for bowler, count in drawn.unplaced.items():
        room = 0
        if target is not None and (target.settings.eligible is None
                                   or bowler in target.settings.eligible):
            room = max(0, target.settings.entries_per_bowler - target.entries.get(bowler, 0))
        if min(count, room):
            rolled[bowler] = min(count, room)
        if count - min(count, room):
            refunded[bowler] = count - min(count, room)
    return {"game": game, "brackets": [b.to_data() for b in drawn.brackets],
            "rolled_to": settings.rollover_to, "rolled": pairs(rolled),
            "refunded": pairs(refunded)}


def _score(out: _Emitter, cmd: RecordScore) -> None:
    night = out.night
    _whole(cmd.bowler, 1, 2**63 - 1, "a bowler id", "bowler")
    _whole(cmd.game, 1, night.games, "the game", "game")
    _whole(cmd.scratch, 0, PERFECT_GAME, "a game's pins", "scratch")
    _whole(cmd.handicap, 0, PERFECT_GAME, "a game's handicap", "handicap")
    _whole(cmd.strikes, 0, MOST_STRIKES, "a game's strikes", "strikes")
    _game_score(out, cmd.bowler, cmd.game, GameScore(cmd.scratch, cmd.handicap, cmd.strikes))


def _absent(out: _Emitter, cmd: MarkAbsent) -> None:
    _whole(cmd.bowler, 1, 2**63 - 1, "a bowler id", "bowler")
    _whole(cmd.game, 1, out.night.games, "the game", "game")
    if (cmd.bowler, cmd.game) in out.night.scores \
            and not out.night.scores[cmd.bowler, cmd.game].absent:
        raise SideGameError(f"bowler {cmd.bowler} bowled game {cmd.game}", field="game")
    _game_score(out, cmd.bowler, cmd.game, GameScore(0, 0, 0, absent=True))


def _game_score(out: _Emitter, bowler: int, game: int, score: GameScore) -> None:
    if out.night.scores.get((bowler, game)) == score:
        return                          # the same game again (a re-sent line): nothing new
    out.emit("score_recorded", bowler=bowler, game=game, scratch=score.scratch,
             handicap=score.handicap, strikes=score.strikes, absent=score.absent)


def _roll_off(out: _Emitter, cmd: RecordRollOff) -> None:
    outcome = _bracket(out.night, cmd.game, cmd.bracket)
    match = next((m for m in outcome.matches if m.key == (cmd.bracket, cmd.round, cmd.match)),
                 None)
    if match is None or match.status != "roll_off":
        raise SideGameError(f"bracket {cmd.bracket} of {cmd.game} has no tied match waiting "
                            f"on a roll-off in round {cmd.round}, match {cmd.match}",
                            field="match")
    if cmd.winner not in match.sides:
        raise SideGameError(f"the roll-off is between bowlers {match.sides[0]} and "
                            f"{match.sides[1]}, not {cmd.winner}", field="winner")
    out.emit("roll_off_recorded", game=cmd.game, bracket=cmd.bracket, round=cmd.round,
             match=cmd.match, winner=cmd.winner)


def _pay_bracket(out: _Emitter, cmd: PayBracket) -> None:
    _bracket(out.night, cmd.game, cmd.bracket)
    book = out.night.books[cmd.game]
    if cmd.bracket in book.paid:
        raise SideGameError(f"bracket {cmd.bracket} of {cmd.game} is paid already",
                            field="bracket")
    result = out.night.result(cmd.game, cmd.bracket)
    if result is None:
        raise SideGameError(f"bracket {cmd.bracket} of {cmd.game} is not decided yet",
                            field="bracket")
    out.emit("bracket_paid", game=cmd.game, bracket=cmd.bracket,
             payouts=pairs(result.payouts), organiser_cents=result.organiser_cents)


def _pay_pot(out: _Emitter, cmd: PayPot) -> None:
    book = _book(out.night, cmd.game)
    if not isinstance(book.settings, PotSettings):
        raise SideGameError(f"{cmd.game} is a bracket game: pay its brackets", field="game")
    if None in book.paid:
        raise SideGameError(f"{cmd.game} is paid already", field="game")
    if not book.entries:
        raise SideGameError(f"nobody entered {cmd.game}", field="game")
    result = out.night.result(cmd.game, None, as_they_stand=cmd.as_they_stand)
    if result is None:
        waiting = ", ".join(map(str, out.night.pot(cmd.game).waiting_on))
        raise SideGameError(f"{cmd.game} waits on games of bowlers {waiting} (or pay it as "
                            "it stands)", field="game")
    out.emit("pot_paid", game=cmd.game, **_result_data(result),
             as_they_stand=cmd.as_they_stand)


def _resolve(out: _Emitter, cmd: ResolveChange) -> None:
    change = next((c for c in out.night.pending_changes()
                   if (c.game, c.bracket) == (cmd.game, cmd.bracket)), None)
    if change is None:
        raise SideGameError(f"nothing paid in {cmd.game} has changed", field="bracket")
    if not isinstance(cmd.reason, str) or not cmd.reason.strip():
        raise SideGameError("say why (it goes into the audit trail)", field="reason")
    if not cmd.accept:
        out.emit("paid_result_kept", game=cmd.game, bracket=cmd.bracket, reason=cmd.reason,
                 against=None if change.now is None else _result_data(change.now))
        return
    if change.now is None:
        raise SideGameError("the games do not decide it yet (a tie waits on its roll-off)",
                            field="bracket")
    out.emit("paid_result_changed", game=cmd.game, bracket=cmd.bracket,
             before=_result_data(change.paid), **_result_data(change.now), reason=cmd.reason)


def _reveal(out: _Emitter, cmd: RevealSeed) -> None:
    night = out.night
    if night.commitment is None:
        raise SideGameError("there is no draw to reveal", field="seed")
    if night.seed is not None:
        raise SideGameError("the seed is revealed already", field="seed")
    _seed(cmd.seed)
    if not verify_seed(cmd.seed, night.commitment):
        raise SideGameError("that is not the seed the draw was sealed with", field="seed")
    out.emit("seed_revealed", seed=cmd.seed.hex())


_HANDLERS: dict[type, Any] = {
    OpenNight: _open, SetSideGame: _set, RecordEntry: _entry, WithdrawEntry: _withdraw,
    Draw: _draw, RecordScore: _score, MarkAbsent: _absent, RecordRollOff: _roll_off,
    PayBracket: _pay_bracket, PayPot: _pay_pot, ResolveChange: _resolve, RevealSeed: _reveal,
}


# ---------------------------------------------------------------------------- checks
def _whole(value: object, low: int, high: int, what: str, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise SideGameError(f"{what} must be a whole number from {low} to {high}, "
                            f"not {value!r}", field=name)
    return value


def _book(night: SideNight, game: str) -> Any:
    if game not in night.books:
        raise SideGameError(f"the night has no side game {game!r}", field="game")
    return night.books[game]


def _entries_open(night: SideNight, game: str) -> None:
    if isinstance(night.books[game].settings, BracketSettings):
        if night.drawn:
            raise SideGameError("the draw is made: entries are closed", field="game")
    elif night.scores:
        raise SideGameError("a game is in: the pots' entries are closed", field="game")


def _bracket(night: SideNight, game: str, number: int) -> Any:
    book = _book(night, game)
    if not isinstance(book.settings, BracketSettings) or book.drawn is None:
        raise SideGameError(f"{game} has no drawn brackets", field="game")
    if not isinstance(number, int) or not 1 <= number <= len(book.drawn):
        raise SideGameError(f"{game} has brackets 1 to {len(book.drawn)}, not {number!r}",
                            field="bracket")
    return night.brackets(game)[number - 1]


def _check_rollovers(night: SideNight, games: list[str]) -> None:
    for position, game in enumerate(games):
        settings = night.books[game].settings
        assert isinstance(settings, BracketSettings)
        target = settings.rollover_to
        if target is None:
            continue
        if target not in games[position + 1:]:
            raise SideGameError(f"{game} rolls over into {target!r}, which must be a bracket "
                                "game set after it", field="rollover_to")
        if night.books[target].settings.entry_cents != settings.entry_cents:
            raise SideGameError(f"{game} rolls over into {target}, whose entry fee differs",
                                field="rollover_to")


def _seed(seed: object) -> None:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise SideGameError(f"a seed is {SEED_BYTES} bytes", field="seed")


def _result_data(result: Result) -> dict[str, Any]:
    return {"payouts": pairs(result.payouts), "organiser_cents": result.organiser_cents,
            "refunds": pairs(result.refunds)}
