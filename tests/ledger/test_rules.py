"""The rule book: the shipped default, overrides, and refusal of bad keys by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from alley_poker.ledger import RuleBook, RuleBookError
from alley_poker.ledger.rules import DEFAULT_RULES_PATH


def test_default_file_documents_every_key():
    text = DEFAULT_RULES_PATH.read_text()
    for key in RuleBook.model_fields:
        assert f"\n{key} = " in text, f"{key} missing from {DEFAULT_RULES_PATH.name}"
    book = RuleBook.default()
    assert (book.ante_cents, book.strike_cards, book.spare_cards, book.streak_cap) == (
        100, 2, 1, 3)
    assert book.streak_spans_games is False and book.odd_cents == "first_seated"


def test_a_league_file_loads(tmp_path: Path):
    path = tmp_path / "league.toml"
    path.write_text('name = "tuesday"\nante_cents = 200\nstreak_cap = 4\n')
    book = RuleBook.load(path)
    assert (book.name, book.ante_cents, book.streak_cap, book.spare_cards) == (
        "tuesday", 200, 4, 1)


@pytest.mark.parametrize(("text", "message"), [
    ("streak_capp = 3\n", "streak_capp: unknown key"),
    ('ante_cents = "100"\n', "ante_cents: Input should be a valid integer"),
    ("streak_cap = 0\n", "streak_cap: Input should be greater than or equal to 1"),
    ('gutter_detection = "eyeball"\n', "gutter_detection: Input should be"),
    ("guess_allowed = 1\n", "guess_allowed: Input should be a valid boolean"),
    ("min_bowlers = 5\nmax_bowlers = 3\n", "min_bowlers: greater than max_bowlers"),
    ("ante_cents = \n", "not valid TOML"),
])
def test_bad_files_are_refused_naming_the_key(tmp_path: Path, text: str, message: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RuleBookError) as info:
        RuleBook.load(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path):
    with pytest.raises(RuleBookError, match="cannot read"):
        RuleBook.load(tmp_path / "nope.toml")


def test_overrides_are_validated_like_a_file():
    assert RuleBook.default().with_overrides({"odd_cents": "house"}).odd_cents == "house"
    with pytest.raises(RuleBookError, match="odd_cents"):
        RuleBook.default().with_overrides({"odd_cents": "dealer"})
    with pytest.raises(RuleBookError, match="expected a table"):
        RuleBook.default().with_overrides(["streak_cap"])  # type: ignore[arg-type]
