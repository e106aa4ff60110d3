"""The ``alley-poker`` command line."""

from __future__ import annotations

import click

from alley_poker import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="alley-poker")
def main() -> None:
    """Alley Poker: Bowling Poker dealt from the lane scoring system."""


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


@main.command()
def demo() -> None:
    """Run the demo alley (for now: the version and a sample hand's verdict)."""
    click.echo(f"alley-poker {__version__}")
    ctx = click.get_current_context()
    ctx.invoke(evaluate, cards="AS KS GJ 7D 7C")


@main.group()
def scenario() -> None:
    """Bowling Poker scenarios (JSON Lines scripts of a match, run in memory)."""


@scenario.command("run")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as one JSON object.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the shuffles.")
def scenario_run(file, as_json: bool, seed: int) -> None:
    """Run scenario FILE and print the final state (exit status 2 on a bad line)."""
    from alley_poker.scenario.cli import run_file

    raise SystemExit(run_file(file, as_json=as_json, seed=seed))


if __name__ == "__main__":  # pragma: no cover
    main()
