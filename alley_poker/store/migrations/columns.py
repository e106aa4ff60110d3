"""The columns the migrations repeat, written once: a table's surrogate ``id`` and its
``centre`` key.

Frozen: migrations already ran in deployed centres, and each must go on building exactly
what it built (``tests/store/test_migrations_frozen.py`` compares the schema up to 0010 with
a snapshot taken before these helpers existed).  Never change what a helper returns; a new
shape of column is a new helper, and a later migration alters the old columns.
"""

from __future__ import annotations

import sqlalchemy as sa

#: A surrogate key's type: BIGINT on PostgreSQL; SQLite only auto-increments a column
#: declared INTEGER.  Also the type of a column that refers to such a key.
ID_TYPE = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def id_column() -> sa.Column:
    """A table's auto-incremented ``id`` (its primary key is named with the table)."""
    return sa.Column("id", ID_TYPE, autoincrement=True, nullable=False)


def centre_column() -> sa.Column:
    """The ``centre`` every per-centre row carries, ``default`` until a deployment names it."""
    return sa.Column("centre", sa.String(length=64), server_default="default", nullable=False)
