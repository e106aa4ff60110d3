"""The league night's scheduled close: no night ends with a match in play or money held.

At ``[night] close`` (local time, ``[night] timezone``) the centre scheduler runs
:meth:`NightClose.check`: every match still in play (``playing``, or ``ending`` without a
confirmed result) raises an alarm.  The alarm is a ``{"kind": "night_close", ...}`` message on
the ``alley`` topic (the tablet shows a banner, the feed board's ``/api/v1/feeds`` answer
carries it as ``night_close``) and a WARNING in the server's log, one line per match.  Nothing
is settled automatically: the match stays open until the commissioner settles it as the hands
stand (``settle-as-hands-stand``) or voids it with refunds; the alarm lists only the matches
still unsettled, so it clears itself as the commissioner acts.  The close also reveals the
seed of every side-game draw sealed and not yet revealed (``side_draws_revealed``).

>>> from datetime import datetime, UTC
>>> from alley_poker.service import open_service
>>> service = open_service("sqlite://")
>>> closing = NightClose(service, close="23:30")
>>> closing.check(datetime(2026, 3, 6, 23, 30, tzinfo=UTC))["matches"]
[]
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from alley_poker.ledger.match_status import FINISHED
from alley_poker.service.alley import AlleyService
from alley_poker.service.bus import EventBus
from alley_poker.service.settlement import centre_match_ids

log = logging.getLogger(__name__)

TOPIC = "alley"
KIND = "night_close"

#: A match in these states has money at stake (antes in the pot) and no settled result.
IN_PLAY = ("playing", "ending")


def unsettled_matches(service: AlleyService,
                      match_ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Every match that is neither settled nor void, with its status and pot, by match id.

    A match not yet started (``open``) is listed too: it holds no money, but the night has
    not dealt with it either.
    """
    ids = match_ids if match_ids is not None else centre_match_ids(service)
    unsettled = []
    for match_id in sorted(ids):
        state = service.state(match_id)
        if state.status in FINISHED or state.status == "new":
            continue
        unsettled.append({"match_id": match_id, "status": state.status,
                          "pot_cents": state.pot_cents})
    return unsettled


class NightClose:
    """The close-of-night job: raise the alarm for every match still in play."""

    def __init__(self, service: AlleyService, *, close: str,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.service = service
        self.close = close
        self.clock = clock

    def check(self, now: datetime | None = None) -> dict[str, Any]:
        """The job: publish and log the alarm (also when nothing is left in play, so the
        screens know the close has passed) and return it."""
        at = now if now is not None else self.clock()
        in_play = [match for match in unsettled_matches(self.service)
                   if match["status"] in IN_PLAY]
        alarm = {"kind": KIND, "close": self.close,
                 "closed_at": at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
                 "matches": in_play}
        for match in in_play:
            log.warning("night close (%s): match %s is still %s with %d cents in the pot; "
                        "settle it as the hands stand or void it", self.close,
                        match["match_id"], match["status"], match["pot_cents"])
        if not in_play:
            log.info("night close (%s): every match is settled or void", self.close)
        side_games = getattr(self.service, "side_games", None)
        if side_games is not None:
            # The brackets' draws are public once made: their seeds are revealed now, so
            # anyone can re-do them (docs/league.md, "Side games").
            alarm["side_draws_revealed"] = side_games.reveal_all()
        self.service.announce(TOPIC, alarm)
        return alarm


class NightCloseBoard:
    """Keeps the last night-close alarm seen on the bus, for the feed board and the tablet.

    :meth:`current` lists only the alarm's matches that are still unsettled, so the alarm
    clears as the commissioner settles or voids them; ``None`` before any close.

    >>> from alley_poker.service import open_service
    >>> service = open_service("sqlite://")
    >>> board = NightCloseBoard(service)
    >>> board.current() is None
    True
    >>> service.announce("alley", {"kind": "night_close", "close": "23:30",
    ...     "closed_at": "2026-03-07T05:30:00Z",
    ...     "matches": [{"match_id": "gone", "status": "playing", "pot_cents": 300}]})
    >>> board.current()["matches"], board.current()["all_settled"]
    ([], True)
    """

    def __init__(self, service: AlleyService, bus: EventBus | None = None) -> None:
        self.service = service
        self._alarm: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self.unsubscribe = (bus or service.bus).subscribe(self._on_message)

    def _on_message(self, topic: str, message: dict[str, Any]) -> None:
        if topic == TOPIC and message.get("kind") == KIND:
            with self._lock:
                self._alarm = copy.deepcopy(message)

    def current(self) -> dict[str, Any] | None:
        with self._lock:
            alarm = copy.deepcopy(self._alarm)
        if alarm is None:
            return None
        # Only the alarm's own matches are looked at (a match unknown here reads as "new").
        still = {m["match_id"]: m for m in unsettled_matches(
            self.service, [m["match_id"] for m in alarm["matches"]])}
        alarm["matches"] = [still[m["match_id"]] for m in alarm["matches"]
                            if m["match_id"] in still]
        alarm["all_settled"] = not alarm["matches"]
        alarm.pop("kind", None)
        return alarm
