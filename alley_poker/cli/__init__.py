"""The ``alley-poker`` command line, the demos and the worker's entry: every command here.

:data:`main` (in :mod:`alley_poker.cli.root`) is the group the ``alley-poker`` script and
``python -m alley_poker.cli`` run.  Each command lives in a module named after it, which
registers it on the group with click's decorator, ``@main.command()`` (or ``@main.group()``
for a command with subcommands, such as ``league`` and ``audit``).

**Adding a command** is one new module and one registration line: write
``alley_poker/cli/NAME.py``::

    import click

    from alley_poker.cli.root import main


    @main.command()
    def name() -> None:
        \"\"\"What it does (the first line is its --help summary).\"\"\"
        from alley_poker.something import work  # heavy imports inside: see below

        work()

and add ``NAME`` to the import of command modules below (importing the
module is what registers it).  Keep the module itself light: every ``alley-poker`` command,
the served ones too, imports every command module, so a module imports what its command
needs inside the command's function (``serve`` must import the Socket.IO server before
anything else does: :mod:`alley_poker.cli.served_process`).  The work a command does lives
beside it in a module of its own when it is more than a few lines (the demo alley in
:mod:`~alley_poker.cli.demo_alley`, the season in :mod:`~alley_poker.cli.season_demo`, the
worker's election loop in :mod:`~alley_poker.cli.centre_worker`) or below, in the layer it
belongs to (``docs/architecture.md``).
"""

from __future__ import annotations

# Importing a command's module registers the command on ``main`` (one name per command module).
from alley_poker.cli import (  # noqa: F401
    audit,
    backup,
    demo,
    doctor,
    evaluate,
    export,
    init,
    league,
    odds,
    odds_helper,
    scenario,
    serve,
    set_pin,
    simulate,
    verify,
    web,
    worker,
)
from alley_poker.cli.root import main

__all__ = ["main"]
