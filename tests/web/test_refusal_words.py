"""Every refusal a desk or a bowler can see is a sentence without internal identifiers: this
walks the refusals of the API's commands (the ledger's, the lanes', the phone codes', the
league night's and the seat requests') on a match with a league-style id, through every
stage of a match, and checks each message against the internal names: event types, decision
kinds like ``end_draw``, command class names, actor ids, snake_case tokens, ``seq``, decision
ids, and the match id where the lanes would do."""

from __future__ import annotations

import inspect
import re

from alley_poker.ledger import commands as c
from alley_poker.ledger.events import EVENT_KEYS
from drivers.base import BowlerSlot, LaneOpened
from tests.web.conftest import DESK
from tests.web.test_league_api import ROSTER, TUESDAY, Desk

MATCH = "thu-night-2026-11-26-3-4"
COMMAND_CLASSES = {name for name, value in vars(c).items()
                   if inspect.isclass(value) and issubclass(value, c.Command)}
INTERNAL = [
    (re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b"), "a snake_case name"),
    (re.compile(r"\b(?:commissioner|bowler|feed|scorer|system):\S"), "an actor id"),
    (re.compile(r"\bseq\b"), "the event sequence number"),
    (re.compile(r"\bD\d+\b"), "a decision id"),
    (re.compile(re.escape(MATCH)), "the match id"),
    (re.compile(r"\b(?:" + "|".join(sorted(COMMAND_CLASSES)) + r")\b"), "a command class"),
    (re.compile(r"\b(?:" + "|".join(sorted(EVENT_KEYS)) + r")\b"), "an event type"),
]


#: What a person must not read on a page (the kiosk, the tablet, the phone, the night sheet):
#: the refusals' internal names (but the match id, which the page walk knows), and money as
#: cents, a raw feed line, a count whose noun disagrees, a name's period doubled, an emoji.
ON_A_PAGE = [(pattern, what) for pattern, what in INTERNAL
             if what not in ("the match id", "an event type")] + [
    # Event keys that are plain words ("showdown", "payout") are bowling words on a page.
    (re.compile(r"\b(?:" + "|".join(sorted(k for k in EVENT_KEYS if "_" in k)) + r")\b"),
     "an event type"),
    (re.compile(r"\d\s*cents?\b"), "money in cents"),
    (re.compile(r"\$[A-Z]{2,5}\d?,"), "a raw feed line"),
    (re.compile(r"(?<![\d.,])1 (?:matches|bowlers|games|balls|cards|pins|nights|strikes|"
                r"spares|gutters|items|decisions|codes|feeds|lanes|seats|requests)\b"),
     "a count that disagrees with its noun"),
    (re.compile(r"\w\.\.(?!\.)"), "a period doubled"),
    (re.compile("[\U0001F300-\U0001FAFF]"), "an emoji (a box on a screen without their font)"),
]


def page_leaks(text: str) -> list[tuple[str, str]]:
    """Each thing in ``text`` a person must not read on a page: (what, the words found)."""
    return [(what, found.group(0)) for pattern, what in ON_A_PAGE
            for found in pattern.finditer(text)]


class Walk:
    """Sends refused requests and keeps every message the desk is shown."""

    def __init__(self, desk):
        self.desk = desk
        self.seen: list[tuple[str, str]] = []

    def refused(self, method, url, body=None):
        answer = self.desk.send(method, url, body if body is not None else {})
        assert 400 <= answer.status_code < 500, (url, body, answer.get_json())
        message = answer.get_json()["error"]["message"]
        self.seen.append((f"{method} {url} {body}", message))
        return message

    def command(self, kind, body=None):
        return self.refused("POST", f"/matches/{MATCH}/commands/{kind}", body)


def leaks(message):
    return [(what, found.group(0)) for pattern, what in INTERNAL
            if (found := pattern.search(message))]


def bowl_to_the_end_draw(service):
    for _frame in range(10):
        for bowler in ("Cy", "Dee"):
            service.execute(MATCH, c.RecordBall(bowler, 1, 1, actor="feed:test"))
            service.execute(MATCH, c.RecordBall(bowler, 1, 1, actor="feed:test"))


def test_every_refusal_of_the_api_is_a_sentence_without_internal_names(app, service):
    desk = Desk(app)
    walk = Walk(desk)
    created = desk.send("POST", "/matches", {
        "match_id": MATCH, "games": 1,
        "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"}, {"lane": 4, "slot": 1,
                                                            "bowler": "Dee"}]})
    assert created.status_code == 201, created.get_json()

    # Open, not started.
    walk.command("start")
    walk.command("record-ball", {"bowler": "Cy", "pins": 3})
    walk.command("confirm-result")
    for bowler in ("Cy", "Dee"):
        assert desk.send("POST", f"/matches/{MATCH}/commands/consent",
                         {"bowler": bowler}).status_code == 200
    assert desk.send("POST", f"/matches/{MATCH}/commands/start", {}).status_code == 200
    seq = service.state(MATCH).seq

    # In play, nothing asked of anyone yet.
    walk.command("consent", {"bowler": "Cy"})
    walk.command("record-ball", {"bowler": "Zed", "pins": 3})
    walk.command("correct-ball", {"bowler": "Cy", "game": 1, "frame": 1, "ball": 1, "pins": 3})
    walk.command("lose-card", {"bowler": "Cy", "card": "AS"})
    walk.command("lose-card", {"bowler": "Cy", "card": "AS", "decision_id": "D99"})
    walk.command("guess", {"bowler": "Cy", "side": "left"})
    walk.command("guess-outcome", {"bowler": "Cy", "side": "left"})
    walk.command("steal", {"bowler": "Cy", "from_bowler": "Dee", "card": "7H"})
    walk.command("end-draw", {"bowler": "Cy", "accept": True})
    walk.command("buy", {"bowler": "Cy", "accept": True})
    walk.command("void-guess", {"bowler": "Cy"})
    walk.command("apply-review", {"review_id": "R1"})
    walk.command("dismiss-review", {"review_id": "R1"})
    walk.command("undo-last")
    walk.command("confirm-result")
    walk.command("undo-result")
    walk.command("add-bowler", {"bowler": "Cy"})
    walk.command("record-ball", {"bowler": "Cy", "pins": 3, "expected_seq": seq - 1})
    walk.refused("PUT", f"/matches/{MATCH}/lanes", {
        "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"}, {"lane": 4, "slot": 1,
                                                            "bowler": "Zed"}]})

    # At the end: both bowlers' end-of-match draws are open.
    bowl_to_the_end_draw(service)
    assert {d["kind"] for d in service.state(MATCH).decisions.values()} == {"end_draw"}
    message = walk.command("confirm-result")
    assert "Cy's end-of-match draw" in message and "Dee's end-of-match draw" in message, message
    walk.command("lose-card", {"bowler": "Cy", "card": "AS"})
    (cy_draw,) = [d["id"] for d in service.state(MATCH).decisions.values()
                  if d["bowler"] == "Cy"]
    walk.command("steal", {"bowler": "Cy", "from_bowler": "Dee", "card": "7H",
                           "decision_id": cy_draw})
    walk.command("end-draw", {"bowler": "Dee", "accept": True, "decision_id": cy_draw})
    walk.command("record-ball", {"bowler": "Cy", "pins": 3})

    # Settled.
    service.execute(MATCH, c.CommissionerSettleAsHandsStand(reason="close", actor=DESK))
    walk.command("record-ball", {"bowler": "Cy", "pins": 3})
    walk.command("void", {"reason": "x"})
    walk.command("undo-last")
    walk.refused("PUT", f"/matches/{MATCH}/lanes", {
        "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"}, {"lane": 4, "slot": 1,
                                                            "bowler": "Dee"}]})
    walk.refused("POST", f"/matches/{MATCH}/phone-links", {"bowler": "Cy"})

    # A league night and the scorer's seat requests.
    assert desk.send("POST", "/leagues", TUESDAY).status_code == 201
    assert desk.send("POST", "/leagues/tue/roster", {"csv": ROSTER}).status_code == 201
    ids = [b["bowler_id"] for b in desk.get("/leagues/tue/bowlers").get_json()["bowlers"]]
    held = desk.send("POST", "/matches", {
        "match_id": "held-3-4", "games": 1,
        "slots": [{"lane": 3, "slot": 1, "bowler": "Cy"}, {"lane": 4, "slot": 1,
                                                            "bowler": "Dee"}]})
    assert held.status_code == 201
    message = walk.refused("POST", "/leagues/tue/nights",
                           {"night_date": "2026-11-24", "checked_in": ids})
    assert "held-3-4" not in message
    desk.send("POST", "/matches/held-3-4/commands/void", {"reason": "not tonight"})
    assert desk.send("POST", "/leagues/tue/nights", {
        "night_date": "2026-11-24", "checked_in": ids}).status_code == 201
    service.handle_lane_event(LaneOpened(lane=3, bowlers=(BowlerSlot(1, "SUB"),), game=1))
    (request,) = desk.get("/seat-requests").get_json()["seat_requests"]
    walk.refused("POST", f"/seat-requests/{request['id']}/pick", {"bowler": "Nobody"})
    service.execute("tue-2026-11-24-3-4", c.CommissionerVoidMatch(reason="x", actor=DESK))
    walk.refused("POST", f"/seat-requests/{request['id']}/pick", {"bowler": "Ann Smith"})

    assert len(walk.seen) >= 30
    problems = [(where, message, found) for where, message in walk.seen
                if (found := leaks(message)) or not message[:1].isalpha()]
    assert problems == [], "\n".join(f"{w}\n    {m}\n    {f}" for w, m, f in problems)


def _body_models():
    """Every request body and query the API validates (pydantic models of the web's schema
    modules), with the module it comes from."""
    from pydantic import BaseModel

    from alley_poker.web import league_schemas, phone_schemas, queries, schemas
    for module in (schemas, league_schemas, phone_schemas, queries):
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseModel) \
                    and value.__module__ == module.__name__ \
                    and name.endswith(("Body", "Query")):  # not the answers' schemas
                yield f"{module.__name__}.{name}", value


def test_every_field_and_pattern_a_request_can_get_wrong_has_desk_words():
    """A refused field is named as the tablet's form labels it ("The league id may use
    only ..."), never as its API key in quotes ('"league_id" has characters it may not
    have')."""
    from alley_poker.web.plain_words import FIELD_WORDS, PATTERN_WORDS, plain_message

    unnamed, unexplained = set(), set()
    for where, model in _body_models():
        for field, info in model.model_fields.items():
            if field not in FIELD_WORDS:
                unnamed.add(f"{where}.{field}")
            for rule in _patterns(info):
                if rule not in PATTERN_WORDS:
                    unexplained.add(f"{where}.{field}: {rule}")
    assert not unnamed, f"fields without desk words: {sorted(unnamed)}"
    assert not unexplained, f"patterns without desk words: {sorted(unexplained)}"
    said = plain_message({"type": "string_pattern_mismatch", "loc": ("league_id",), "msg": "",
                          "ctx": {"pattern": r"^[a-z0-9][a-z0-9-]*$"}})
    assert said.startswith("The league id may use only lower-case letters"), said
    assert not leaks(said), leaks(said)


def _patterns(info):
    """The regular expressions a field's value must match (its own and its list items')."""
    import typing

    found = [getattr(meta, "pattern", None) for meta in info.metadata]
    annotation = info.annotation
    stack = [annotation]
    while stack:
        kind = stack.pop()
        for arg in typing.get_args(kind):
            if typing.get_origin(arg) is typing.Annotated:
                found += [getattr(m, "pattern", None) for m in arg.__metadata__]
                for inner in arg.__metadata__:
                    found += [getattr(m, "pattern", None)
                              for m in getattr(inner, "metadata", ())]
            stack.append(arg)
    return {rule for rule in found if rule}
