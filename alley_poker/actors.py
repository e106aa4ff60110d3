"""Who did something, in the words of the person reading: the ledger's and the league store's
actor ids (``commissioner:token-1``, ``bowler:Ann``, ``feed:scorer:lane-1``) are for the audit
page and the exports; every other page and message names the role.

The commissioner's actions are written ``commissioner:<who>`` (``commissioner:tablet`` for the
signed-in session on the tablet, ``commissioner:token-<id>`` for an API token).  ``desk:<who>``
is how older logs named the same role: never written now, still read (and still undoable, by
:data:`~alley_poker.ledger.state.COMMISSIONER_ACTORS`).  Bowlers read the role as "the desk".

>>> [actor_words(a) for a in ("commissioner:tablet", "commissioner:token-3", "desk:manual",
...                           "bowler:Ray, Jr.", "feed:scorer:lane-1", "system:deadline")]
['the desk', 'the desk (API token 3)', 'the desk', 'Ray, Jr.', 'the scorer', 'the system']
>>> actor_words(None), actor_words("Pat")
('someone', 'Pat')
"""

from __future__ import annotations

#: The role each kind of actor id names (its part before the first colon); ``desk`` is the
#: commissioner in older logs.
ROLES = {"commissioner": "the desk", "desk": "the desk", "feed": "the scorer",
         "scorer": "the scorer", "system": "the system"}


def actor_words(actor: str | None) -> str:
    """``actor`` as the role or the bowler it names."""
    if not actor:
        return "someone"
    kind, colon, who = actor.partition(":")
    if not colon:
        return actor
    if kind == "bowler":
        return who
    if kind == "commissioner" and who.startswith("token-"):
        return f"the desk (API token {who.removeprefix('token-')})"
    return ROLES.get(kind, "the desk")
