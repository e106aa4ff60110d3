"""The ledger's side of fair dealing: the commitment a match publishes when it is created.

The seed itself never enters the ledger's state: the command's source holds it (see
``Context.draws``) until settlement or void reveals it (``Context.reveal_seed``).
"""

from __future__ import annotations

from alley_poker.fairness.deal import SCHEME, salt_for
from alley_poker.ledger.context import Context


def commit_deal(ctx: Context) -> None:
    """Publish the commitment to the match's seed, and its public salt (the match id and the
    UTC date), before any card exists; a test source commits to nothing."""
    committed = getattr(ctx.source, "commitment", None)
    if committed is None:
        return
    ctx.emit("deal_committed", scheme=SCHEME, commitment=committed,
             salt=salt_for(ctx.state.match_id, ctx.now.date().isoformat()))
