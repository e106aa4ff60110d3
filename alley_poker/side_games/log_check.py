"""Check a night's side games from its log alone: the sealed draw and the money.

:func:`verify_side_night` replays the night's records and says what does not hold:

- the draw was sealed (``draw_committed``) before it was made and before any game was in, once;
  no bracket entry came or went after it, no pot entry after the first game;
  its scheme is the fair deal's and its salt is ``"<night id>/<UTC date of the seal>"``;
- the revealed seed is the one committed (SHA-256), and every ``draw_made`` is exactly what
  that seed draws from the entries as the log has them at that point (a draw whose brackets
  were re-ordered, or made from another seed, fails here);
- every payment (``bracket_paid``, ``pot_paid``, ``paid_result_changed``) is what the games
  recorded before it decide, and a kept payment names the change it kept against;
- entries = payouts + refunds + organiser's share + what is still in play, to the cent.

A night drawn but not yet revealed cannot have its draw checked: the check says so (it is not
a failure of the night, only not yet provable).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from alley_poker.fairness.deal import SCHEME, salt_for, verify_seed
from alley_poker.side_games.night import SideNight
from alley_poker.side_games.night_commands import draw_data
from alley_poker.side_games.night_events import (
    SideEvent,
    SideEventFormatError,
    event_from_record,
    table,
)
from alley_poker.side_games.settings import PotSettings


@dataclass(frozen=True)
class SideNightCheck:
    """``ok`` when nothing is wrong and the draw could be checked (``problems`` says what is
    wrong, in log order; ``unproven`` what cannot be checked yet)."""

    night_id: str
    problems: tuple[str, ...]
    unproven: tuple[str, ...]
    draws_checked: int
    payments_checked: int

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unproven


def verify_side_night(records: Iterable[Mapping[str, Any]]) -> SideNightCheck:
    """Replay ``records`` (one night's, in seq order) and check them (see the module)."""
    try:
        events = [event_from_record(record) for record in records]
    except SideEventFormatError as bad:
        return SideNightCheck("", (str(bad),), (), 0, 0)
    if not events:
        return SideNightCheck("", ("the log is empty",), (), 0, 0)
    check = _Replay(events[0].night_id)
    check.seed = _revealed_seed(events, check.problems)
    for event in events:
        where = f"#{event.seq} {event.type}"
        if event.night_id != check.night.night_id or event.seq != check.night.seq + 1:
            check.problems.append(f"{where}: not the next event of night {event.night_id}")
            break
        try:
            check.event(event, where)
            check.night.apply(event)
        except (KeyError, TypeError, ValueError, IndexError, AssertionError) as wrong:
            # A forged or broken log: an event naming a game, bracket or bowler the night
            # does not have, or values of the wrong kind.
            check.problems.append(f"{where}: does not fit the night as the log has it "
                                  f"({wrong!r})")
            break
    money = check.night.money()
    if not money.balanced:
        check.problems.append(
            f"the money does not reconcile: entries {money.entries_cents} != payouts "
            f"{money.payouts_cents} + refunds {money.refunds_cents} + organiser "
            f"{money.organiser_cents} + in play {money.in_play_cents}")
    return SideNightCheck(check.night.night_id, tuple(check.problems), tuple(check.unproven),
                          check.draws, check.payments)


class _Replay:
    """The night as the log has it so far, and what was found wrong in it."""

    def __init__(self, night_id: str) -> None:
        self.night = SideNight(night_id)
        self.seed: bytes | None = None
        self.problems: list[str] = []
        self.unproven: list[str] = []
        self.draws = self.payments = 0

    def event(self, event: SideEvent, where: str) -> None:
        """Check one event against the night before it."""
        night, data = self.night, event.data
        if event.type == "draw_committed":
            if night.drawn:
                self.problems.append(f"{where}: the draw was sealed a second time")
            if night.scores:
                self.problems.append(f"{where}: sealed after a game was in")
            if data["scheme"] != SCHEME:
                self.problems.append(f"{where}: unknown scheme {data['scheme']!r}")
            salt = salt_for(night.night_id, event.at.date().isoformat())
            if data["salt"] != salt:
                self.problems.append(f"{where}: salt {data['salt']!r} is not {salt!r}")
        elif event.type == "draw_made":
            if not night.drawn:
                self.problems.append(f"{where}: made before the draw was sealed")
            elif self.seed is None:
                self.unproven.append(f"{where}: the seed is not revealed yet")
            else:
                self.draws += 1
                expected = draw_data(night, data["game"], self.seed)
                self.problems += [f"{where}: {what}"
                                  for what in _draw_differences(expected, data)]
        elif event.type in ("entry_recorded", "entry_withdrawn"):
            is_pot = isinstance(night.books[data["game"]].settings, PotSettings)
            if night.scores if is_pot else night.drawn:
                self.problems.append(f"{where}: {data['game']}'s entries were closed")
        elif event.type in ("bracket_paid", "pot_paid", "paid_result_changed"):
            self.payments += 1
            # A pot is paid as it stands when the desk said so, and a changed pot compares
            # with the games as they stand (as pending_changes does).
            stand = ((event.type == "pot_paid" and data["as_they_stand"])
                     or (event.type == "paid_result_changed" and data["bracket"] is None))
            now = night.result(data["game"], data.get("bracket"), as_they_stand=stand)
            recorded = (table(data["payouts"]), data["organiser_cents"],
                        table(data.get("refunds", [])))
            if now is None or (now.payouts, now.organiser_cents, now.refunds) != recorded:
                self.problems.append(f"{where}: {data['game']} did not pay what its games "
                                     "decide")


def _revealed_seed(events: list[Any], problems: list[str]) -> bytes | None:
    committed = next((e.data["commitment"] for e in events if e.type == "draw_committed"),
                     None)
    revealed = next((e for e in events if e.type == "seed_revealed"), None)
    if revealed is None:
        return None
    try:
        seed = bytes.fromhex(revealed.data["seed"])
    except (TypeError, ValueError):
        problems.append(f"#{revealed.seq} seed_revealed: the seed is not hex")
        return None
    if committed is None or not verify_seed(seed, committed):
        problems.append(f"#{revealed.seq} seed_revealed: not the seed the draw was sealed with")
        return None
    return seed


def _draw_differences(expected: Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    game = recorded["game"]
    found = []
    mine, theirs = expected["brackets"], recorded["brackets"]
    if len(mine) != len(theirs):
        found.append(f"{game}: the seed draws {len(mine)} brackets, the log has {len(theirs)}")
    else:
        found += [f"{game}: bracket {number} is not what the seed draws from the entries"
                  for number, (a, b) in enumerate(zip(mine, theirs, strict=True), start=1)
                  if list(a) != list(b)]
    for key in ("rolled_to", "rolled", "refunded"):
        if expected[key] != recorded[key]:
            found.append(f"{game}: {key} is not what the draw gives")
    return found
