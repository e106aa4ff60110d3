"""``python -m alley_poker.cli``: the ``alley-poker`` command (the systemd units run it so)."""

from alley_poker.cli import main

main()
