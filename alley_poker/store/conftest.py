"""Keep pytest's ``--doctest-modules`` out of the Alembic scripts.

``migrations/env.py`` and the revision files only make sense when Alembic runs them (they
read ``alembic.context``); the migrations are exercised for real by ``tests/store/``.
"""

collect_ignore = ["migrations"]
