"""The hash chain over the event log, and the seeds of fairly dealt matches.

Every event gets ``prev_hash`` and ``hash`` (see docs/fairness.md); the events already stored
are sealed here, match by match in seq order, and ``chain_starts`` records when and how many,
so an audit says which hashes vouch only from the migration on.

Created 2026-12-02 on 0006, re-pointed to 0007 when the league migration was merged first.
"""

import hashlib
import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from alley_poker.store.migrations.columns import centre_column
from alley_poker.store.migrations.tables import create_table, drop_table

revision: str = "0008"
down_revision: str | None = "0007"

GENESIS = "0" * 64


def _link(prev_hash: str, record: dict) -> str:
    # Frozen copy of alley_poker.fairness.chain.link_hash as of this migration.
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           allow_nan=False).encode("utf-8")
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("prev_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("hash", sa.String(length=64), nullable=True))
    create_table(
        "chain_starts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sealed_events", sa.Integer(), nullable=False),
        sa.Column("last_sealed_id", sa.BigInteger(), nullable=True),
    )
    create_table(
        "deal_seeds",
        centre_column(),
        sa.Column("match_id", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        key=["centre", "match_id"],
    )
    _seal_existing_events()


def _seal_existing_events() -> None:
    connection = op.get_bind()
    events = sa.table("events", sa.column("id", sa.BigInteger), sa.column("centre", sa.String),
                      sa.column("match_id", sa.String), sa.column("seq", sa.Integer),
                      sa.column("type", sa.String), sa.column("data", sa.JSON),
                      sa.column("prev_hash", sa.String), sa.column("hash", sa.String))
    rows = connection.execute(
        sa.select(events.c.id, events.c.centre, events.c.match_id, events.c.seq,
                  events.c.type, events.c.data)
        .order_by(events.c.centre, events.c.match_id, events.c.seq))
    updates, match, prev, last_id = [], None, GENESIS, None
    for row in rows:
        if (row.centre, row.match_id) != match:
            match, prev = (row.centre, row.match_id), GENESIS
        data = row.data if isinstance(row.data, dict) else json.loads(row.data)
        record = {"match_id": row.match_id, "seq": row.seq, "type": row.type, **data}
        digest = _link(prev, record)
        updates.append({"row_id": row.id, "prev": prev, "digest": digest})
        prev = digest
        last_id = row.id if last_id is None else max(last_id, row.id)
    if updates:
        connection.execute(
            events.update().where(events.c.id == sa.bindparam("row_id"))
            .values(prev_hash=sa.bindparam("prev"), hash=sa.bindparam("digest")), updates)
    starts = sa.table("chain_starts", sa.column("started_at", sa.DateTime(timezone=True)),
                      sa.column("sealed_events", sa.Integer),
                      sa.column("last_sealed_id", sa.BigInteger))
    connection.execute(starts.insert().values(started_at=datetime.now(UTC),
                                              sealed_events=len(updates),
                                              last_sealed_id=last_id))


def downgrade() -> None:
    drop_table("deal_seeds")
    drop_table("chain_starts")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("hash")
        batch.drop_column("prev_hash")
