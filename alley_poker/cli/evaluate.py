"""``alley-poker evaluate``: the evaluator's verdict on a hand."""

from __future__ import annotations

import click

from alley_poker.cli.root import main


@main.command()
@click.argument("cards", required=False, default="AS KS GJ 7D 7C")
def evaluate(cards: str) -> None:
    """Print the evaluator's verdict on a hand, e.g. ``alley-poker evaluate "AS KS GJ"``."""
    from alley_poker.cards import parse_cards
    from alley_poker.hands import evaluate as evaluate_hand

    try:
        value = evaluate_hand(parse_cards(cards))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from exc
    click.echo(f"{cards}: {value.describe()}")
