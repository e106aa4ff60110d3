"""The sentence rules of a match's story: what each kind of event says, in a bowler's words.

:func:`describe_event` turns one event, read against the state just before it, into parts of
a story entry (:mod:`alley_poker.ledger.story`).  Parts with the same ``key`` told one after
another become one ("drew Q♠" and "drew 3♦" are "drew Q♠ and 3♦").  A part's ``bowler`` is
named unless the entry is that bowler's own moment.

>>> part = Part(lambda who, items, count: f"{who}drew {items}", bowler="Ann",
...             key=("draw", "Ann"), items=["Q♠"])
>>> part.merge(Part(lambda who, items, count: "", bowler="Ann", key=("draw", "Ann"),
...                 items=["3♦"]))
True
>>> part.render("Ann"), part.render(None)
('drew Q♠ and 3♦', 'Ann drew Q♠ and 3♦')

The rules, one event at a time (:func:`say`; in Ann's own moment her name is left out):

>>> say("card_drawn", {"bowler": "Ann", "card": "QS", "reason": "strike"}, "Ann", mark="strike")
'drew Q♠'
>>> say("card_drawn", {"bowler": "Ann", "card": "7C", "reason": "first strike of the game"}, "Ann")
'drew 7♣ for the first strike of the game'
>>> say("card_taken", {"bowler": "Bob", "from_bowler": "Ann", "card": "KH", "via": "steal"})
'Bob stole K♥ from Ann'
>>> say("card_taken", {"bowler": "Bob", "from_bowler": "Ann", "card": "TD", "via": "courtesy"},
...     "Bob")
'the pile was empty: took 10♦ from Ann at random (a courtesy draw)'
>>> say("card_returned", {"bowler": "Ann", "card": "4S", "why": "gutter"}, "Ann")
'gave back 4♠ to the pile'
>>> say("draw_skipped", {"bowler": "Bob", "why": "the draw pile is empty and the drawer holds "
...                      "the most cards"}, "Bob")
'no card for 1 draw (the pile is empty and Bob already holds the most cards)'
>>> say("hole_paid_off", {"bowler": "Cy", "reason": "strike"}, "Cy")
'paid off 1 card of the hole instead of drawing'
>>> print(say("jokers_swapped", {"trigger": "JOKER-A", "disarmed": ["JOKER-A"],
...                              "powers": {"JOKER-A": "bad", "JOKER-B": "good"}}))
... # doctest: +NORMALIZE_WHITESPACE
it was an armed joker, so the jokers swapped powers: it is now the bad joker,
and the other joker, still in the pile, is now the good joker
>>> say("buy_paid", {"bowler": "Bob", "cents": 200}, "Bob")
'paid $2.00 to buy a card'
>>> say("payout", {"bowler": "Ann", "cents": 4000})
'paid out: Ann $40.00'
>>> say("match_voided", {"refunds": {"Ann": 100, "Bob": 100}, "reason": "power cut"})
'the match was voided (power cut): refunded Ann $1.00, Bob $1.00'
>>> say("review_raised", {"bowler": "Ann", "difference": {"cards": -2},
...                       "remedy": {"take_back": ["4D", "3D"]}})
'a review for Ann: the corrected balls earn 2 cards fewer; suggested: take back 4♦ and 3♦'
>>> say("consent_recorded", {"bowler": "Ann", "ante_cents": 100})  # bookkeeping: not told
''
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from alley_poker.ledger.events import Event
from alley_poker.ledger.state import MatchState
from alley_poker.ledger.story_words import (
    DECISION_WORDS,
    ball_words,
    card_words,
    count_words,
    listing,
    money,
    reason_words,
    sentence,
)

Say = Callable[[str, str, int], str]


@dataclass
class Part:
    """A piece of a story entry: ``say(who, items, count)`` gives its words, where ``who``
    is ``"Bob "`` (or ``""`` in Bob's own entry), ``items`` the listed cards or names."""

    say: Say
    bowler: str | None = None
    key: tuple | None = None
    items: list[str] = field(default_factory=list)
    count: int = 1
    others: tuple[str, ...] = ()
    #: Where it is told in its entry: 0 first (the ruling that explains the rest), 1 in
    #: order, 2 last (a note on what came before).
    place: int = 1

    @property
    def bowlers(self) -> list[str]:
        return ([self.bowler] if self.bowler else []) + list(self.others)

    def merge(self, other: Part) -> bool:
        """Take in ``other`` when it says the same thing of more cards; True when it did."""
        if self.key is None or self.key != other.key or self.place != other.place:
            return False
        self.items.extend(other.items)
        self.count += other.count
        self.others = tuple(dict.fromkeys(self.others + other.others))
        return True

    def render(self, subject: str | None) -> str:
        who = "" if self.bowler is None or self.bowler == subject else f"{self.bowler} "
        return self.say(who, listing(self.items), self.count)


def _text(words: str, bowler: str | None = None, others: tuple[str, ...] = (),
          place: int = 1) -> Part:
    return Part(lambda who, items, count: words, bowler=None, others=(
        ((bowler,) if bowler else ()) + others), place=place)


def _shown(state: MatchState, card: str) -> str:
    return card_words(state.display_card(card))


def _draw(event: Event, state: MatchState, ball_mark: str | None) -> list[Part]:
    d = event.data
    reason = d["reason"]
    tail = "" if reason in (ball_mark, "buy", "lowest score") else f" for the {reason}"
    if reason == "review":
        tail = " as the review owed"

    def say(who: str, items: str, count: int) -> str:
        return f"{who}drew {items}{tail}"
    return [Part(say, d["bowler"], ("draw", d["bowler"], reason), [_shown(state, d["card"])])]


def _taken(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    card, source = _shown(state, d["card"]), d["from_bowler"]
    if d["via"] == "steal":
        return [Part(lambda who, items, count: f"{who}stole {items} from {source}",
                     d["bowler"], None, [card], others=(source,))]
    return [Part(lambda who, items, count: (
        f"the pile was empty: {who}took {items} from {source} at random (a courtesy draw)"),
        d["bowler"], ("courtesy", d["bowler"], source), [card], others=(source,))]


def _returned(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    return [Part(lambda who, items, count: f"{who}gave back {items} to the pile",
                 d["bowler"], ("return", d["bowler"]), [_shown(state, d["card"])])]


def _swapped(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    trigger, powers = d["trigger"], d["powers"]
    other = next((j for j in powers if j != trigger), None)
    drawer = state.holder_of(trigger)
    now = card_words("GJ" if powers[trigger] == "good" else "BJ")
    words = f"it was an armed joker, so the jokers swapped powers: it is now {now}"
    if other is not None:
        other_now = card_words("GJ" if powers[other] == "good" else "BJ")
        holder = state.holder_of(other)
        if holder is None:
            words += f", and the other joker, still in the pile, is now {other_now}"
        elif holder == drawer:
            words += f", and the other joker in the same hand is now {other_now}"
        else:
            words += f", and {holder}'s joker is now {other_now}"
            return [_text(words, drawer, (holder,))]
    return [_text(words, drawer)]


def _opened(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    kind, bowler = d["kind"], d["bowler"]
    if kind == "lose_card":
        extra = " (or guess which side the ball comes back on)" if d["guess_allowed"] else ""
        return [Part(lambda who, items, count: f"{who}must choose a card to give back{extra}",
                     bowler)]
    if kind == "steal":
        victims = listing(sorted(d["choices"]) if isinstance(d["choices"], dict) else [])
        return [Part(lambda who, items, count: (
            f"{who}may steal one card from {victims}"), bowler)]
    if kind == "end_draw":
        why = d["reason"]
        return [Part(lambda who, items, count: (
            f"{why}: {items} may {'each ' if count > 1 else ''}draw one more card"),
            None, ("end offer", why), [bowler], others=(bowler,))]
    if kind == "buy":
        price = money(state.ante_cents)
        return [Part(lambda who, items, count: (
            f"{items} may {'each ' if count > 1 else ''}buy one card for {price}"),
            None, ("buy offer",), [bowler], others=(bowler,))]
    return []


def _closed(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    decision = state.decisions.get(d["decision_id"], {})
    kind = decision.get("kind", "")
    outcome, choice, bowler = d["outcome"], d["choice"], d["bowler"]
    if outcome in ("chosen", "accepted", "guessed_right"):
        return []
    if outcome == "declined":
        words = "declined the extra draw" if kind == "end_draw" else "declined to buy"
        return [Part(lambda who, items, count: f"{who}{words}", bowler)]
    if outcome in ("expired", "left"):
        # A bowler who left has each open choice made for them as its deadline would.
        lead = "no answer in time" if outcome == "expired" else "not here to answer"
        if kind == "lose_card":
            words = (f"{lead}: the rules chose the card (the one whose loss leaves "
                     "the best hand)" if choice else lead)
        elif kind == "end_draw":
            words = (f"{lead}: declined, the hand cannot be beaten"
                     if choice and "unbeatable" in str(choice)
                     else f"{lead}: the draw was taken")
        else:
            words = f"{lead}: no {DECISION_WORDS.get(kind, kind)}"
        return [Part(lambda who, items, count: f"{who}{words}" if not who else
                     f"{who.strip()}: {words}", bowler)]
    # Lapsed: the choice names why; closed by the desk (settled as the hands stand): the
    # desk's own reason does.
    said = d.get("reason") if outcome == "closed_by_desk" else choice
    why = reason_words(said) if isinstance(said, str) else ""
    noun = LAPSED_WORDS.get(kind, "choice")
    return [Part(lambda who, items, count: f"no {noun} for {items}{why}", None,
                 ("lapsed", kind, why), [bowler], others=(bowler,))]


#: A decision that lapsed: "no card lost for Ann (the night closed)".
LAPSED_WORDS = {"lose_card": "card lost", "steal": "steal", "end_draw": "extra draw",
                "buy": "buy"}


def _corrected(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    bowler, game = d["bowler"], d["game"]
    old = state.balls[bowler][game - 1] if bowler in state.balls else []
    keys = ("pins", "foul", "mark", "gutter_ball", "split_pickup", "standing")
    changes = []
    for index, ball in enumerate(d["balls"]):
        before = old[index] if index < len(old) else None
        if before is None or any(before.get(k) != ball.get(k) for k in keys):
            was = ball_words(before) if before else "not bowled"
            changes.append(f"frame {ball['frame']} ball {ball['ball']} was {was}, "
                           f"now {ball_words(ball)}")
    for before in old[len(d["balls"]):]:
        changes.append(f"frame {before['frame']} ball {before['ball']} taken off")
    what = "; ".join(changes) or "no ball changed"
    return [_text(f"{bowler}'s game {game} corrected{reason_words(d['reason'])}: {what}",
                  bowler)]


def _review(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    diff, remedy, bowler = d["difference"] or {}, d["remedy"] or {}, d["bowler"]
    said = []
    cards = diff.get("cards", 0)
    if cards:
        said.append(f"the corrected balls earn {count_words(abs(cards), 'card')} "
                    f"{'fewer' if cards < 0 else 'more'}")
    if diff.get("losses"):
        said.append(f"{count_words(abs(diff['losses']), 'card loss')} "
                    f"{'fewer' if diff['losses'] < 0 else 'more'}")
    if diff.get("steals"):
        said.append("the split pickup changed (for the desk to rule on)")
    offer = []
    if remedy.get("take_back"):
        offer.append("take back " + listing(_shown(state, c) for c in remedy["take_back"]))
    if remedy.get("deal"):
        offer.append(f"deal {count_words(remedy['deal'], 'card')}")
    if remedy.get("lose"):
        offer.append(f"charge {count_words(remedy['lose'], 'card loss')}")
    words = f"a review for {bowler}: " + (", ".join(said) or "the cards differ")
    if offer:
        words += "; suggested: " + ", ".join(offer)
    return [_text(words, bowler)]


def best_cards(state: MatchState, bowler: str) -> list[str]:
    """The cards that make the bowler's hand, in words (a wild says what it stands for)."""
    if bowler not in state.hands or not state.hands[bowler]:
        return []
    from alley_poker.ledger.values import hand_value

    said = []
    for shown in hand_value(state, bowler).best_five:
        wild, _, stands_for = shown.partition("=")
        said.append(card_words(wild) + (f" (as {card_words(stands_for)})" if stands_for else ""))
    return said


def _showdown(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    hands = d["hands"]
    said = []
    for bowler, hand in hands.items():
        held = len(hand["hand"])
        best = best_cards(state, bowler)
        cards = (listing(best) + (f", of {held} cards" if held > len(best) else "")
                 if best else f"{count_words(held, 'card')}" if held else "no cards")
        said.append(f"{bowler}: {hand['describe'] or 'no hand'} ({cards})")
    shares = {b: c for b, c in d["shares"].items() if c}
    winners = d["winners"]
    if len(winners) == 1:
        said.append(f"{winners[0]} wins {money(shares.get(winners[0], 0))}")
    else:
        said.append(f"{listing(winners)} split the pot: "
                    + ", ".join(f"{b} {money(c)}" for b, c in shares.items()))
    return [_text("; ".join(said), None, tuple(hands))]


def _ending(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    series = d["series"] or {}
    early = d["command"] == "CommissionerSettleAsHandsStand"
    if not series:
        return [_text("the match ended before its last ball")]
    words = ("the desk settled the match before the last ball: the hands are judged as they "
             "stand. Series so far: " if early else "last ball bowled. Series: ")
    words += ", ".join(f"{b} {s}" for b, s in series.items())
    if d["lowest"]:
        words += f"; lowest: {listing(d['lowest'])}"
    return [_text(words, None, tuple(series))]


def _gone(event: Event, state: MatchState) -> list[Part]:
    d = event.data
    bowler, why = d["bowler"], reason_words(d["reason"])
    if d["outcome"] == "removed":   # bowler_removed tells the refund
        return [_text(f"the desk marked {bowler} not here{why}: not bowled yet", bowler)]
    hand = ("keeps the hand to the showdown" if d["outcome"] == "keeps_hand"
            else "folds: the cards go back to the pile, the ante stays in the pot")
    return [_text(f"the desk marked {bowler} gone{why}: no more balls; {bowler} {hand}",
                  bowler)]


def _skip_why(d: dict[str, Any]) -> str:
    why = str(d["why"])
    if "drawer holds the most" in why:
        return f"the pile is empty and {d['bowler']} already holds the most cards"
    return why


def _money_list(amounts: dict[str, int]) -> str:
    return ", ".join(f"{b} {money(c)}" for b, c in amounts.items())


def _bowler_says(words: Callable[[dict[str, Any]], str]) -> Callable[..., list[Part]]:
    """A rule whose part is the event's own bowler doing something."""
    def rule(event: Event, state: MatchState) -> list[Part]:
        text = words(event.data)
        return [Part(lambda who, items, count: who + text, event.data["bowler"])]
    return rule


def _counted(key: str, words: Callable[[dict[str, Any], int], str]) -> Callable[..., list[Part]]:
    def rule(event: Event, state: MatchState) -> list[Part]:
        d = event.data
        return [Part(lambda who, items, count: (f"{who.strip()}: " if who else "")
                     + words(d, count), d["bowler"], (key, d["bowler"], d.get("why")))]
    return rule


RULES: dict[str, Callable[[Event, MatchState], list[Part]]] = {
    "match_created": lambda e, s: [_text(
        f"match for {listing(e['bowlers'])}: {count_words(e['games'], 'game')}, ante "
        f"{money(e['ante_cents'])} each")],
    "match_started": lambda e, s: [_text(
        f"match started: {money(sum(e['antes'].values()))} in the pot")],
    "bowler_added": lambda e, s: [_text(
        f"{e['bowler']} joined the match and paid {money(e['ante_paid'])}", e["bowler"])],
    "bowler_removed": lambda e, s: [_text(
        f"{e['bowler']} left the match: {money(e['refund_cents'])} refunded", e["bowler"])],
    "bowler_gone": _gone,
    "deal_committed": lambda e, s: [_text(
        "the shuffled deck was sealed before any card was dealt (its commitment is published)")],
    "seed_revealed": lambda e, s: [_text(
        "the deal's secret seed was published: anyone can now check every shuffle")],
    "pile_stacked": lambda e, s: [_text(
        "the desk stacked the pile (test mode: never in a real match)")],
    "pile_shuffled": lambda e, s: [Part(lambda who, items, count: (
        "the pile was set so the later balls deal the same cards as before"
        if str(e["why"]).startswith("undo") else "the pile was reshuffled"), None,
        ("shuffle",))],
    "card_drawn": lambda e, s: _draw(e, s, None),
    "card_taken": _taken,
    "card_returned": _returned,
    "jokers_swapped": _swapped,
    "draw_skipped": _counted("skip", lambda d, n: (
        f"no card for {count_words(n, 'draw')} ({_skip_why(d)})")),
    "hole_deepened": lambda e, s: [Part(lambda who, items, count: (
        f"{who}had no card to give back: in the hole, owes {count_words(count, 'card')}"),
        e["bowler"], ("hole", e["bowler"]))],
    "hole_paid_off": _counted("paid off", lambda d, n: (
        f"paid off {count_words(n, 'card')} of the hole instead of drawing")),
    "decision_opened": _opened,
    "decision_closed": _closed,
    "guess_made": _bowler_says(lambda d: f"guessed the ball comes back on the {d['side']}"),
    "guess_resolved": lambda e, s: [Part(lambda who, items, count: (
        (f"{who.strip()}'s ball" if who else "the ball") + f" came back on the {e['side']}: "
        + ("a right guess, no card lost" if e["correct"]
           else "a wrong guess, a card must go back")), e["bowler"])],
    "guess_voided": lambda e, s: [_text(
        f"the desk voided {e['bowler']}'s guess{reason_words(e['reason'])}: a card must go "
        "back", e["bowler"])],
    "holland_daze": lambda e, s: [_text(
        f"Holland-daze for {e['bowler']}{reason_words(e['reason'])}: every card back to the "
        "pile, streak and hole start over", e["bowler"], place=0)],
    "ball_corrected": _corrected,
    "review_raised": _review,
    "review_closed": lambda e, s: [_text(
        f"the desk {e['outcome']} the review{reason_words(e['reason'])}"
        + (": no card moved" if e["outcome"] == "dismissed" else ""), place=0)],
    "match_ending": _ending,
    "buy_paid": _bowler_says(lambda d: f"paid {money(d['cents'])} to buy a card"),
    "automatic_win": _bowler_says(lambda d: (
        "drew the good joker on a buy: an automatic win of the whole pot")),
    "showdown": _showdown,
    "payout": lambda e, s: [Part(lambda who, items, count: f"paid out: {items}", None,
                                 ("payout",), [f"{e['bowler']} {money(e['cents'])}"],
                                 others=(e["bowler"],))],
    "match_settled": lambda e, s: [_text("the match is settled" + reason_words(e["reason"]))],
    "result_undone": lambda e, s: [_text(
        f"the desk undid the result{reason_words(e['reason'])}"
        + (": payouts taken back from " + _money_list(e["reversed"]) if e["reversed"] else ""),
        None, tuple(e["reversed"] or ()))],
    "match_voided": lambda e, s: [_text(
        f"the match was voided{reason_words(e['reason'])}"
        + (": refunded " + _money_list(e["refunds"]) if e["refunds"] else ""),
        None, tuple(e["refunds"] or ()))],
}


def describe_event(event: Event, state: MatchState, ball_mark: str | None = None) -> list[Part]:
    """The parts an event adds to its entry (none for bookkeeping such as a consent)."""
    if event.type == "card_drawn":
        return _draw(event, state, ball_mark)
    rule = RULES.get(event.type)
    return rule(event, state) if rule else []


def say(kind: str, data: dict[str, Any], subject: str | None = None, *,
        mark: str | None = None) -> str:
    """One event's words on its own, read against an empty match (for examples and tests)."""
    from datetime import UTC, datetime

    event = Event("example", 1, kind, datetime(2026, 1, 1, tzinfo=UTC),
                  {"actor": "feed:example", "command": "RecordBall", "action": 1, **data})
    parts = describe_event(event, MatchState.empty("example"), mark)
    return "; ".join(part.render(subject) for part in parts)


def undo_parts(undone: list[Any], before: dict[str, list[str]], holes: dict[str, int],
               after: MatchState, data: dict[str, Any]) -> list[Part]:
    """What the desk's undo took back and what it put back, by comparing the hands."""
    told = "; ".join(f"“{entry.when}: {entry.text.rstrip('.')}”" for entry in undone)
    parts = [_text(f"the desk undid {told or 'its last action'}{reason_words(data['reason'])}")]
    for bowler, hand in after.hands.items():
        was = Counter(before.get(bowler, []))
        now = Counter(hand)
        back = [_shown(after, c) for c in (was - now).elements()]
        got = [_shown(after, c) for c in (now - was).elements()]
        if back:
            parts.append(_text(f"{listing(back)} went back to the pile from {bowler}", bowler))
        if got:
            parts.append(_text(f"{bowler} got {listing(got)} back", bowler))
        if holes.get(bowler, 0) != after.hole.get(bowler, 0):
            parts.append(_text(f"{bowler}'s hole is back to {after.hole[bowler]}", bowler))
    return parts


__all__ = ["Part", "describe_event", "sentence", "undo_parts"]
