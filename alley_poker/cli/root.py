"""The ``alley-poker`` command group: every command module registers itself on :data:`main`."""

from __future__ import annotations

import click

from alley_poker import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="alley-poker")
def main() -> None:
    """Alley Poker: Bowling Poker dealt from the lane scoring system."""
