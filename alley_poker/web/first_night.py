"""The tablet's "First night" guide: a checklist from an empty centre to a settled league
night, each step ticked from the real state of the centre and linking to where it is done.

1. the scoreboard feeds are green (the feed board);
2. a kiosk is paired for every lane pair the leagues bowl on (the kiosk devices);
3. a league has its roster in (two bowlers or more);
4. a league night is started (the league store's nights);
5. every result of that night is confirmed (its matches settled or void); only a match at its
   showdown is counted as waiting for the desk (what Settlement offers to confirm), not one
   whose bowlers still have their end draws or buys to answer;
6. that night's sheet was opened for printing (remembered by this server while it runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, request, url_for

from alley_poker.ledger.match_status import FINISHED
from alley_poker.web.api_leagues import night_matches
from alley_poker.web.api_request import alley
from alley_poker.web.auth import is_commissioner
from alley_poker.web.centre_access import current_centre
from alley_poker.web.commissioner_pages import commissioner, commissioner_page
from alley_poker.web.match_titles import lanes_words

#: ``app.extensions`` key of the nights whose sheet was opened: {(league_id, night_date)}.
SHEETS_OPENED = "first_night_sheets"


@dataclass(frozen=True)
class Step:
    key: str
    title: str
    done: bool
    detail: str
    link: str
    link_text: str


def _feeds_step() -> Step:
    board = current_centre().feed_status
    feeds = board.current() if board is not None else []
    held = alley().held_counts()
    green = [feed for feed in feeds if feed.get("state") == "green"
             and not sum(held.get(lane, 0) for lane in feed.get("lanes", []))]
    if not feeds:
        detail = ("No scoreboard feed has reported yet: start the server with the scorer's "
                  "port (alley-poker serve --feed …; see docs/feeds.md).")
    else:
        detail = f"{len(green)} of {len(feeds)} feed{'' if len(feeds) == 1 else 's'} OK."
        # A feed that talks but whose every line is refused: say why, not just "not OK".
        detail += "".join(f" {feed['source']}: {feed['refusing']}." for feed in feeds
                          if feed.get("refusing"))
    return Step("feeds", "The scoreboard feeds are green", bool(feeds) and len(green) == len(feeds),
                detail, url_for("commissioner.dashboard") + "#feeds-title", "Lanes: feed health")


def _kiosks_step(leagues: list[Any]) -> Step:
    devices = current_centre().kiosk_devices
    paired = {device.lanes for device in devices.list() if device.paired} if devices else set()
    wanted = sorted({f"{a}-{b}" for league in leagues for a, b in league.lane_pairs})
    missing = [pair for pair in wanted if pair not in paired]
    if wanted:
        done = not missing
        detail = ("Every lane pair's kiosk is paired." if done else
                  "Not paired yet: " + ", ".join(lanes_words(tuple(int(n) for n in pair.split("-")))
                                                 for pair in missing) +
                  ". Open each kiosk (/kiosk/1-2 …) and enter the code it shows.")
    else:
        done = bool(paired)
        detail = (f"{len(paired)} kiosk{'' if len(paired) == 1 else 's'} paired." if done else
                  "No kiosk is paired: open /kiosk/1-2 on the lane screen and enter its code.")
    return Step("kiosks", "The kiosks are paired", done, detail,
                url_for("commissioner.tokens") + "#kiosks-title", "Kiosks & API tokens")


def _latest_night(desk: Any, leagues: list[Any]) -> tuple[Any, Any] | tuple[None, None]:
    nights = [(night.night_date, league, night) for league in leagues
              for night in desk.store.nights(league.league_id)]
    if not nights:
        return None, None
    _date, league, night = max(nights, key=lambda found: (found[0], found[1].league_id))
    return league, night


def steps() -> list[Step]:
    """The checklist, from the centre's state now."""
    desk = current_centre().league_desk
    leagues = desk.store.leagues() if desk is not None else []
    rostered = [(league, len(desk.store.bowlers(league.league_id))) for league in leagues]
    ready = [league for league, count in rostered if count >= 2]
    leagues_link = url_for("commissioner.leagues")
    found = [_feeds_step(), _kiosks_step(leagues)]
    found.append(Step(
        "roster", "The roster is in", bool(ready),
        (f"{ready[0].name}: {dict((lg.league_id, n) for lg, n in rostered)[ready[0].league_id]} "
         "bowlers on the roster." if ready else
         "Make a league and add its bowlers (or import the roster CSV file)."),
        url_for("commissioner.league", league_id=ready[0].league_id) if ready else leagues_link,
        "League: roster"))
    league, night = _latest_night(desk, leagues) if desk is not None else (None, None)
    if night is None:
        target = ready[0] if ready else None
        link = (url_for("commissioner.league_night", league_id=target.league_id) if target
                else leagues_link)
        found.append(Step("night", "A league night is started", False,
                          "Check in who came and start tonight's matches.", link,
                          "League: tonight's check-in"))
        found.append(Step("results", "Every result is confirmed", False,
                          "Each match's showdown waits for the desk's confirmation.",
                          url_for("commissioner.settlement"), "Settlement"))
        found.append(Step("sheet", "The night sheet is printed", False,
                          "Once the results are in, print the night's sheet.", leagues_link,
                          "League"))
        return found
    matches = night_matches(night.night_id)
    statuses = [match["status"] for match in matches]
    confirmed = bool(statuses) and all(status in FINISHED for status in statuses)
    when = night.night_date.isoformat()
    found.append(Step("night", "A league night is started", True,
                      f"{league.name}, {when}: {len(statuses)} match"
                      f"{'' if len(statuses) == 1 else 'es'}.",
                      url_for("commissioner.league_night", league_id=league.league_id),
                      "League: tonight"))
    found.append(Step(
        "results", "Every result is confirmed", confirmed,
        "Every match is settled." if confirmed else _unconfirmed_words(matches),
        url_for("commissioner.settlement"), "Settlement"))
    opened = (league.league_id, when) in current_app.extensions.setdefault(SHEETS_OPENED, set())
    found.append(Step(
        "sheet", "The night sheet is printed", confirmed and opened,
        ("The sheet was opened for printing." if confirmed and opened else
         "Open the night sheet once every result is confirmed, and print it."),
        url_for("commissioner.league_night_sheet", league_id=league.league_id, night_date=when),
        "Night sheet"))
    return found


def _unconfirmed_words(matches: list[dict[str, Any]]) -> str:
    """Where the night's unfinished matches are: a showdown waits for the desk; end draws
    and buys wait for the bowlers (or the desk's decline for everyone); the rest are bowled.

    Counts only what is there ("1 waiting for your confirmation." alone when that is all).
    """
    service = alley()
    showdowns = answers = playing = 0
    for match in matches:
        if match["status"] in FINISHED:
            continue
        state = service.shared_state(match["match_id"])
        if state.status == "ending" and state.result is not None:
            showdowns += 1
        elif state.status == "ending":
            answers += 1
        else:
            playing += 1
    parts = [f"{showdowns} waiting for your confirmation" if showdowns else "",
             (f"{answers} with end draws or buys still to be answered by "
              f"{'its' if answers == 1 else 'their'} bowlers" if answers else ""),
             f"{playing} still being bowled" if playing else ""]
    words = ", ".join(part for part in parts if part)
    return words[:1].upper() + words[1:] + "."


@commissioner.get("/first-night")
def first_night():
    if not is_commissioner():
        return commissioner_page("commissioner_first_night.html")
    found = steps()
    return commissioner_page("commissioner_first_night.html", steps=found,
                       done=sum(1 for step in found if step.done))


@commissioner.after_app_request
def _remember_sheets(answer):
    """A night sheet opened by the signed-in desk, after its results: ticked as printed."""
    if (request.endpoint == "commissioner.league_night_sheet" and answer.status_code == 200
            and is_commissioner() and request.view_args):
        current_app.extensions.setdefault(SHEETS_OPENED, set()).add(
            (request.view_args["league_id"], request.view_args["night_date"]))
    return answer
