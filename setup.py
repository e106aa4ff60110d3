"""The one compiled module: the fast odds engine's card play (alley_poker/odds/_card_play.c).

Everything else is in pyproject.toml.  The module is optional: where it cannot be built (no
C compiler), the install goes on and the odds play the cards in Python (slower, the same).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("alley_poker.odds._card_play", ["alley_poker/odds/_card_play.c"],
                             extra_compile_args=["-O2"], optional=True)])
