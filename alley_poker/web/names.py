"""Names typed by people, as the web layer checks them: the rule lives in the domain
(:mod:`alley_poker.names`) so the league's roster and the web's forms refuse the same names.

>>> clean_name("  Ann  ")
'Ann'
"""

from __future__ import annotations

from alley_poker.names import REFUSED_CATEGORIES, clean_name

__all__ = ["REFUSED_CATEGORIES", "clean_name"]
