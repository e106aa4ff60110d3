"""The one compiled module: the fast odds engine's card play and balls
(alley_poker/odds/_card_play.c and its parts in alley_poker/odds/csrc/).

Everything else is in pyproject.toml.  The module is optional: where it cannot be built (no
C compiler), the install goes on and the odds run in Python (slower, the same).
"""

from pathlib import Path

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "alley_poker.odds._card_play", ["alley_poker/odds/_card_play.c"],
    # One translation unit; its parts are headers, one concept each.
    depends=sorted(str(path) for path in Path("alley_poker/odds/csrc").glob("*.h")),
    extra_compile_args=["-O2"], optional=True)])
