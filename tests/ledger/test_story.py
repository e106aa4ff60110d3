"""The match's story, projected from a varied match's events: every card movement is told
with the ball or ruling that caused it, in a bowler's words, and nothing reveals the pile."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from alley_poker.ledger import replay
from alley_poker.ledger.events import EVENT_KEYS
from alley_poker.ledger.story import match_story, story_json
from alley_poker.scenario.runner import run_scenario
from tests.ledger.story_match import varied_match_events


@pytest.fixture(scope="module")
def events():
    return varied_match_events()


@pytest.fixture(scope="module")
def story(events):
    return {entry.seq: entry for entry in match_story(events)}


def told(story, when: str, bowler: str | None = None) -> list[str]:
    return [e.text for e in story.values() if e.when == when and e.bowler == bowler]


def test_a_strike_tells_the_cards_it_drew_and_the_first_strike_bonus(story):
    assert told(story, "Frame 1, ball 1", "Ann") == [
        "Ann: strike → drew the good joker and 2♣; drew 3♣ for the first strike of the game."]


def test_a_split_pickup_and_the_steal_it_allowed(story):
    assert told(story, "Frame 1, ball 2", "Bob") == [
        "Bob: spare (a split picked up) → drew 4♣; may steal one card from Ann."]
    steal = next(e for e in story.values() if e.when == "Bob's choice")
    assert steal.text == "Stole 3♣ from Ann."
    assert steal.bowlers == ["Bob", "Ann"]  # the victim's phone highlights it too


def test_the_hole_deepened_and_paid_off(story):
    assert told(story, "Frame 1, ball 1", "Cy") == [
        "Cy: gutter ball → had no card to give back: in the hole, owes 1 card."]
    assert told(story, "Frame 2, ball 1", "Cy") == [
        "Cy: strike → paid off 1 card of the hole instead of drawing; drew 6♦."]


def test_a_lost_joker_goes_back_armed_and_swaps_the_powers_when_drawn(story):
    (lost,) = told(story, "Frame 2, ball 1", "Ann")
    assert lost == ("Ann: gutter ball → gave back the good joker to the pile; the pile was "
                    "reshuffled; the joker goes back armed: whoever draws it next swaps the "
                    "jokers' powers.")
    bobs = told(story, "Frame 2, ball 1", "Bob")
    assert bobs[-1] == ("Bob: strike → drew the good joker; it was an armed joker, so the jokers "
                        "swapped powers: it is now the bad joker, and the other joker, still in "
                        "the pile, is now the good joker; drew 5♦.")


def test_the_desks_undo_names_what_it_took_back_and_where_the_cards_went(story):
    desk_ball = next(e for e in story.values() if "entered at the desk" in e.text)
    assert desk_ball.undone
    assert desk_ball.text == "Bob: strike (entered at the desk) → drew 3♦ and 4♦."
    undo = next(e for e in story.values() if e.text.startswith("The desk undid"))
    assert undo.when == "At the desk" and not undo.undone
    assert undo.text == ("The desk undid “Frame 2, ball 1: Bob: strike (entered at the desk) → "
                         "drew 3♦ and 4♦” (entered for the wrong bowler); 3♦ and 4♦ went back "
                         "to the pile from Bob.")
    assert undo.bowlers == ["Bob"]


def test_a_correction_raises_a_review_and_the_review_takes_cards_back(story):
    (correction,) = [e for e in story.values() if e.when == "The scorer's correction"]
    assert correction.text == (
        "Ann's game 1 corrected (pinsetter misread): frame 3 ball 1 was strike, now 9 pins; a "
        "review for Ann: the corrected balls earn 2 cards fewer; suggested: take back 4♦ and 3♦.")
    applied = next(e for e in story.values() if "applied the review" in e.text)
    assert applied.text == ("The desk applied the review (remedy as suggested); Ann gave back 4♦ "
                            "and 3♦ to the pile; the pile was reshuffled.")
    assert applied.bowlers == ["Ann"]


def test_courtesy_draws_from_an_empty_pile_and_skipped_draws(story):
    (anns,) = told(story, "Frame 10, ball 3", "Ann")
    assert "the pile was empty: took 7♦ and 6♣ from Bob at random (a courtesy draw)" in anns
    assert "no card for 1 draw (the pile is empty and Ann already holds the most cards)" in anns


def test_the_guess_the_end_the_buy_and_the_showdown(story):
    cys = [e.text for e in story.values() if e.when == "Cy's choice"]
    assert cys == ["Guessed the ball comes back on the left.",
                   "The ball came back on the right: a wrong guess, a card must go back.",
                   "Gave back 6♦ to the pile; the pile was reshuffled.",
                   "Declined the extra draw; Ann, Bob and Cy may each buy one card for $1.00."]
    (end,) = [e for e in story.values() if e.when == "End of the match"]
    assert end.text == ("Last ball bowled. Series: Ann 258, Bob 290, Cy 75; lowest: Cy; lowest "
                        "scratch series (75): Cy may draw one more card.")
    assert end.bowlers == ["Ann", "Bob", "Cy"]
    (buy,) = [e.text for e in story.values() if e.when == "Bob's choice" and "buy" in e.text]
    assert buy == ("Paid $1.00 to buy a card; drew 6♦; no buy for Ann and Cy (the draw pile is "
                   "empty).")
    (showdown,) = [e for e in story.values() if e.kind == "showdown"]
    assert showdown.text.startswith(
        "Ann: Five of a kind, jacks (J♣, J♦, J♥, J♠ and the good joker (as J♠), of 26 cards); "
        "Bob: Full house, kings over queens (K♣, K♦, K♠, Q♣ and Q♦, of 28 cards); Cy: No hand "
        "(no cards); Ann wins $4.00.")
    assert [h["won_cents"] for h in showdown.hands] == [400, 0, 0]
    (result,) = [e for e in story.values() if e.kind == "result"]
    assert result.text == "Paid out: Ann $4.00; the match is settled (hands checked)."


def test_every_card_that_moved_is_in_the_story(events, story):
    """Each card drawn, taken or given back appears in the entry of the action that moved it."""
    by_action: dict[int, str] = {}
    for entry in story.values():
        by_action.setdefault(entry.seq, entry.text)
    moved = [e for e in events if e.type in ("card_drawn", "card_taken", "card_returned")]
    assert len(moved) > 60
    entries = sorted(story.values(), key=lambda e: e.seq)
    for event in moved:
        entry = [e for e in entries if e.seq <= event.seq][-1]
        card = event.data["card"]
        suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
        words = "joker" if card.startswith("JOKER") else (
            ("10" if card[0] == "T" else card[0]) + suits[card[1]])
        assert words in entry.text, (event.seq, entry.text)


def test_no_internal_names_and_no_pile_in_the_story(events):
    entries = story_json(events)
    text = json.dumps(entries, ensure_ascii=False)
    for kind in EVENT_KEYS:
        if "_" in kind:
            assert kind not in text, kind
    assert not re.search(r"\b(Record|Decide|Commissioner)[A-Z]", text)
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b|JOKER-", text), "cards in words only"
    assert "order" not in {key for entry in entries for key in entry}
    assert not re.search(r"\d+ cents", text), "money as $x.yy"


def test_the_story_is_rebuilt_from_the_log_alone(events):
    """A projection: the same events tell the same story, and telling changes nothing."""
    first = story_json(events)
    assert story_json(list(events)) == first
    assert replay("scenario", events).status == "settled"


SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "examples" / "scenarios").glob("*.jsonl"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_example_scenario_tells_a_story_in_plain_words(path):
    """Every rule's scenario (Holland-daze, removals, voids, the night's close, guesses...)
    tells its story without an internal name, a card code or cents."""
    run = run_scenario(path.read_text().splitlines())
    entries = story_json(run.events)
    assert entries, path.stem
    text = " ".join(entry["text"] for entry in entries)
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), text
    assert not re.search(r"\b[2-9TJQKA][CDHS]\b|JOKER-|\bGJ\b|\bBJ\b", text), text
    assert "cents" not in text


def test_a_voided_match_tells_its_refunds_and_a_second_game_is_named():
    run = run_scenario([json.dumps(step) for step in [
        {"setup": {"bowlers": ["Ann", "Bob"], "games": 2}},
        {"stack": ["KH", "KD", "2S"]},
        {"ball": {"bowler": "Ann", "pins": 10}},
        {"commissioner": {"action": "void", "reason": "power cut"}},
    ]])
    assert run.error is None, run.error
    texts = [(entry.when, entry.text) for entry in match_story(run.events)]
    assert ("Game 1, frame 1, ball 1",
            "Ann: strike → drew K♥ and K♦; drew 2♠ for the first strike of the game.") in texts
    assert texts[-1] == ("At the desk",
                         "The match was voided (power cut): refunded Ann $1.00, Bob $1.00.")


def test_rulings_come_first_and_offers_to_several_bowlers_are_one_sentence():
    def story_of(name: str) -> dict[str, list[str]]:
        path = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / f"{name}.jsonl"
        told: dict[str, list[str]] = {}
        for entry in match_story(run_scenario(path.read_text().splitlines()).events):
            told.setdefault(entry.when, []).append(entry.text)
        return told

    daze = story_of("holland_daze_resets_streak")["At the desk"]
    assert ("Holland-daze for Ann (bowled on lane 4): every card back to the pile, streak and "
            "hole start over; Ann gave back the good joker, 2♣ and 3♣ to the pile; the pile was "
            "reshuffled; the joker goes back armed: whoever draws it next swaps the jokers' "
            "powers.") in daze
    tie = story_of("split_pot_odd_cents")["End of the match"]
    assert tie == ["Last ball bowled. Series: Ann 100, Bob 100, Cy 100; lowest: Ann, Bob and "
                   "Cy; lowest scratch series (100): Ann, Bob and Cy may each draw one more card."]
    closed = story_of("settle_as_hands_stand")
    assert closed["At the desk"][-1] == "No card lost for Ann (the night closed at 23:30)."
    assert closed["End of the match"][0].startswith(
        "The desk settled the match before the last ball: the hands are judged as they stand.")
    guesses = story_of("guess_right_wrong_voided")["At the desk"]
    assert "Ann's ball came back on the right: a wrong guess, a card must go back." in guesses
    assert story_of("lose_card_deadline")["Time ran out for Ann"] == [
        "Gave back 2♣ to the pile; the pile was reshuffled; no answer in time: the rules chose "
        "the card (the one whose loss leaves the best hand)."]


def test_a_result_undone_and_confirmed_again_is_told_in_order():
    steps = [{"setup": {"bowlers": ["Ann", "Bob"], "games": 1}}, {"stack": ["AS", "AH"]}]
    for _frame in range(10):
        for bowler in ("Ann", "Bob"):
            steps += [{"ball": {"bowler": bowler, "pins": 9}},
                      {"ball": {"bowler": bowler, "pins": 0}}]
    steps += [{"decide": {"bowler": b, "kind": "end_draw", "accept": True}} for b in ("Ann", "Bob")]
    steps += [{"decide": {"bowler": b, "kind": "buy", "accept": False}} for b in ("Ann", "Bob")]
    steps += [{"commissioner": {"action": "confirm"}},
              {"commissioner": {"action": "undo_result", "reason": "wrong hand read"}},
              {"commissioner": {"action": "confirm", "reason": "again"}}]
    run = run_scenario([json.dumps(step) for step in steps])
    assert run.error is None, run.error
    told = [(e.when, e.text) for e in match_story(run.events)]
    assert told[-3:] == [
        ("At the desk", "The desk undid the result (wrong hand read): payouts taken back from "
                        "Ann $1.00, Bob $1.00."),
        ("Showdown", "Ann: High card, ace (A♠); Bob: High card, ace (A♥); Ann and Bob split "
                     "the pot: Ann $1.00, Bob $1.00."),
        ("Result", "Paid out: Ann $1.00 and Bob $1.00; the match is settled (again).")]
    assert all(entry["at"].endswith("Z") for entry in story_json(run.events))
