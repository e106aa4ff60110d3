"""Side-game settings refuse bad values naming the field; pots pay high game, high series
and strikes to the cent."""

from __future__ import annotations

import pytest

from alley_poker.side_games import BracketSettings, PotSettings, SideGameError
from alley_poker.side_games.pots import pot_outcome
from alley_poker.side_games.rounds import GameScore
from alley_poker.side_games.settings import settings_from_data
from tests.side_games.nights import handicap_brackets


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"games": (1, 2)}, "games", "a bracket counts 3 games"),
    ({"games": (1, 1, 2)}, "games", "different game numbers"),
    ({"games": (0, 1, 2)}, "games", "from 1 to 10"),
    ({"scoring": "net"}, "scoring", "one of scratch, handicap"),
    ({"entry_cents": 0}, "entry_cents", "from 1 to 100000"),
    ({"payouts_cents": (2500, 1000)}, "payouts_cents", "must add up to the bracket.s \\$40.00"),
    ({"payouts_cents": (1000, 3000)}, "payouts_cents", "first the larger"),
    ({"payouts_cents": (2000, 1000), "organiser_cents": 1000}, None, None),
    ({"payouts_cents": (2000, 2000)}, "seven_bowler_brackets", "one entry"),
    ({"entries_per_bowler": 0}, "entries_per_bowler", "from 1 to 50"),
    ({"tie_rule": "coin"}, "tie_rule", "next_game, roll_off, split"),
    ({"eligible": ["ann"]}, "eligible", "an eligible bowler id"),
    ({"rollover_to": "Next Week"}, "game", "a side game id"),
])
def test_bracket_settings_name_the_field_that_is_wrong(changes, field, words):
    if field is None:
        assert handicap_brackets(**changes).organiser_cents == 1000
        return
    with pytest.raises(SideGameError, match=words) as refused:
        handicap_brackets(**changes)
    assert refused.value.field == field


def test_bracket_defaults_and_their_plain_form():
    settings = handicap_brackets()
    assert (settings.organiser_cents, settings.tie_rule, settings.seven_bowler_brackets) == (
        0, "next_game", True)
    assert settings_from_data(settings.to_data()) == settings
    # Eight full pays $30/$10; seven and a bye pays $25/$10 ($35 came in).
    assert settings.prizes_cents(8) == (3000, 1000) and settings.prizes_cents(7) == (2500, 1000)
    assert handicap_brackets(seven_bowler_brackets=False, payouts_cents=(2000, 2000)) \
        .prizes_cents(8) == (2000, 2000)
    with pytest.raises(SideGameError) as refused:
        settings_from_data({**settings.to_data(), "colour": "red"})
    assert refused.value.field == "settings"


def test_pot_settings_name_the_field():
    with pytest.raises(SideGameError, match="add up to 100") as refused:
        PotSettings(kind="high_game", scoring="scratch", games=(1,), entry_cents=100,
                    places_percent=(60, 30))
    assert refused.value.field == "places_percent"
    with pytest.raises(SideGameError, match="scoring is scratch"):
        PotSettings(kind="strikes", scoring="handicap", games=(1,), entry_cents=100)
    with pytest.raises(SideGameError) as refused:
        PotSettings(kind="low_game", scoring="scratch", games=(1,), entry_cents=100)
    assert refused.value.field == "kind"
    with pytest.raises(SideGameError) as refused:
        PotSettings(kind="high_game", scoring="scratch", games=(1,), entry_cents=100,
                    organiser_percent=60)
    assert refused.value.field == "organiser_percent"


def games(table):
    return {(b, g): GameScore(*score) if isinstance(score, tuple) else GameScore(score)
            for (b, g), score in table.items()}


def test_high_game_with_handicap_ties_share_their_places_to_the_cent():
    settings = PotSettings(kind="high_game", scoring="handicap", games=(1, 2), entry_cents=100,
                           places_percent=(70, 30))
    scores = games({(1, 1): (200, 20), (1, 2): (150, 20), (2, 1): (210, 10),
                    (2, 2): (100, 10), (3, 1): (180, 0), (3, 2): (219, 0)})
    outcome = pot_outcome(settings, [1, 2, 3], scores)
    # 220, 220 and 219: two share first and second ($3.00 of prizes: $2.10 + $0.90).
    assert outcome.payouts == {1: 150, 2: 150}
    scratch = pot_outcome(PotSettings(kind="high_game", scoring="scratch", games=(1, 2),
                                      entry_cents=100, places_percent=(70, 30)), [1, 2, 3],
                          scores)
    assert scratch.payouts == {2: 90, 3: 210}


def test_high_series_with_the_organisers_share_and_an_odd_cent():
    settings = PotSettings(kind="high_series", scoring="scratch", games=(1, 2, 3),
                           entry_cents=101, organiser_percent=10)
    scores = games({(b, g): 150 for b in (1, 2, 3) for g in (1, 2, 3)})
    outcome = pot_outcome(settings, [3, 1, 2], scores)
    # 303 in, 30 to the organiser, 273 shared three ways: 91 each.
    assert outcome.organiser_cents == 30 and outcome.payouts == {1: 91, 2: 91, 3: 91}
    two_way = pot_outcome(settings, [1, 2], scores)              # 202 - 20 = 182: 91 + 91
    assert sum(two_way.payouts.values()) + two_way.organiser_cents == 202
    odd = pot_outcome(PotSettings(kind="high_series", scoring="scratch", games=(1, 2, 3),
                                  entry_cents=101), [1, 2], scores)
    assert odd.payouts == {1: 101, 2: 101}
    three = pot_outcome(PotSettings(kind="high_series", scoring="scratch", games=(1, 2, 3),
                                    entry_cents=100, places_percent=(50, 50)), [1, 2, 3],
                        scores)
    assert three.payouts == {1: 100, 2: 100, 3: 100}
    odd_cent = pot_outcome(PotSettings(kind="high_game", scoring="scratch", games=(1,),
                                       entry_cents=100), [1, 2, 3], scores)
    assert odd_cent.payouts == {1: 100, 2: 100, 3: 100}
    four = pot_outcome(PotSettings(kind="high_game", scoring="scratch", games=(1,),
                                   entry_cents=100), [1, 2, 3], {**scores, (4, 1): GameScore(1)})
    assert sum(four.payouts.values()) == 300


def test_the_strike_pot_pays_a_share_per_strike_and_refunds_a_night_without_strikes():
    settings = PotSettings(kind="strikes", scoring="scratch", games=(1, 2), entry_cents=100)
    scores = games({(1, 1): (200, 0, 4), (1, 2): (200, 0, 3), (2, 1): (150, 0, 1),
                    (2, 2): (150, 0, 1), (3, 1): (90, 0, 0), (3, 2): (90, 0, 0)})
    outcome = pot_outcome(settings, [1, 2, 3], scores)
    # 300 cents over 9 strikes: 233.33 and 66.66 -> 233 + 66 = 299, the odd cent to 1 (most).
    assert outcome.payouts == {1: 234, 2: 66}
    assert outcome.standings == ((1, 7), (2, 2), (3, 0))
    nothing = games({(b, g): (100, 0, 0) for b in (1, 2) for g in (1, 2)})
    empty = pot_outcome(settings, [1, 2], nothing)
    assert empty.payouts == {} and empty.refunds == {1: 100, 2: 100}
    assert empty.organiser_cents == 0


def test_bracket_settings_keep_the_field_on_the_error_of_a_typo_in_kind():
    with pytest.raises(SideGameError) as refused:
        settings_from_data({"kind": "brackets"})
    assert refused.value.field == "kind"
    assert isinstance(handicap_brackets(), BracketSettings)
