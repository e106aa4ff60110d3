"""A finished match's story for the screens and the night sheet (the projection is
:mod:`alley_poker.ledger.story`; this reads the stored log and refuses a match in play).

The story is told only once the match is settled or void, like its export.  The cards dealt
are no secret (the public events show them as they come), and the story never shows the
pile; but until the match is finished its moments are not final (the desk's undo can still
take one back, the showdown is not yet judged), and a bowler asks for the story of a match
that is over.
"""

from __future__ import annotations

from typing import Any

from alley_poker.ledger import event_from_record
from alley_poker.ledger.match_status import FINISHED
from alley_poker.ledger.story import story_json


class StoryRefused(ValueError):
    """The match has no story yet (unknown, or still in play); the message says why."""


def match_story_report(service: Any, match_id: str) -> dict[str, Any]:
    """``{"match_id", "status", "bowlers", "entries"}`` of a settled or void match."""
    state = service.state(match_id)
    if state.status == "new":
        raise StoryRefused(f"no match {match_id!r}")
    if state.status not in FINISHED:
        raise StoryRefused(f"the match is {state.status}: its story is told once it is "
                           "settled or voided")
    records = service.repository.store.load(match_id)
    return {"match_id": match_id, "status": state.status, "bowlers": list(state.bowlers),
            "entries": story_json(event_from_record(record) for record in records)}
