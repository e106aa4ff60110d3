"""Response schemas of the JSON API (pydantic): what each route answers.

They document the answers (the OpenAPI document is generated from them, and schemathesis
checks every answer against it); the views build plain dicts of exactly these shapes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from alley_poker.service.audit import AuditEntry
from alley_poker.web.match_view_schema import MatchView
from alley_poker.web.schemas import LaneSlot


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


class MatchSummary(BaseModel):
    match_id: str
    title: str = Field(description="the match as people name it: its league and lanes "
                                   "(\"Tuesday Night Poker · lanes 3-4\") or its lanes")
    status: str
    lanes: list[int]
    bowlers: list[str]
    pot_cents: int


class MatchList(BaseModel):
    matches: list[MatchSummary]


class SlotView(BaseModel):
    slot: int
    bowler: str
    match_id: str


class LaneView(BaseModel):
    lane: int
    pair: str
    matches: list[str]
    slots: list[SlotView]


class LaneList(BaseModel):
    lanes: list[LaneView]


class ScreenBowler(BaseModel):
    lane: int | None
    up: bool
    ball: int | None
    score: int | None
    score_at_least: int | None = None
    held: int = Field(0, description="the bowler's balls waiting on the desk's held-ball "
                      "list (a ball from a slot nobody is seated in counts for each bowler "
                      "of the match not yet seated on its lanes)")


class ScreenMatch(BaseModel):
    match_id: str
    state: MatchView
    bowlers: dict[str, ScreenBowler]


class LaneScreen(BaseModel):
    lane_pair: str
    matches: list[ScreenMatch]
    last_result: ScreenMatch | None


class MatchLanes(BaseModel):
    match_id: str
    lanes: list[int]
    slots: list[LaneSlot]


class UndoableAction(BaseModel):
    action: int = Field(description="its id: send it back as the undo's `action`")
    command: str
    actor: str
    at: str = Field(description="when it was done (UTC, ISO 8601)")
    bowler: str | None
    what: str = Field(description="what the desk did, in words")
    undo: str = Field(description="what undoing it changes, in words")
    later: int = Field(description="later actions (scorer's balls, choices) kept and re-applied")


class Undoable(BaseModel):
    match_id: str
    undoable: UndoableAction | None


class HeldBall(BaseModel):
    id: int
    lane: int
    slot: int
    match_id: str | None
    bowler: str | None
    game: int
    frame: int
    ball: int
    pins: int
    standing: list[int] | None
    flags: str
    line: str = Field(description="the feed line it came from")
    reason: str = Field(description="why it could not be placed")
    held_at: str
    outcome: str | None
    resolved_by: str | None
    resolved_reason: str | None
    resolved_at: str | None


class HeldList(BaseModel):
    held: list[HeldBall]


class DeskDone(BaseModel):
    done: bool
    message: str


class HeldDiscarded(DeskDone):
    discarded: int = Field(description="how many held balls were discarded")
    ids: list[int]


class BowlerView(BaseModel):
    bowler: str
    seat: int
    lane: int | None
    slot: int | None
    game: int
    scoresheet: str
    hole: int
    paid_cents: int
    won_cents: int
    pending: int


class BowlerList(BaseModel):
    match_id: str
    bowlers: list[BowlerView]


class HandView(BaseModel):
    bowler: str
    cards: list[str]
    hole: int
    category: str
    describe: str
    unbeatable: bool


class HandList(BaseModel):
    match_id: str
    hands: list[HandView]


class PendingDecision(BaseModel):
    bowler: str
    id: str
    kind: str
    reason: Any = None
    created_at: Any = None
    deadline: Any = None
    choices: Any = None


class PendingList(BaseModel):
    match_id: str
    pending: list[PendingDecision]


class ReviewList(BaseModel):
    match_id: str
    reviews: list[dict[str, Any]]


class PublicEvent(BaseModel):
    seq: int
    type: str
    at: str | None
    data: dict[str, Any]


class EventPage(BaseModel):
    match_id: str
    events: list[PublicEvent]
    next_since: int


class NightCloseAlarm(BaseModel):
    close: str = Field(description="the configured close, local HH:MM")
    closed_at: str = Field(description="when the close was reached (UTC, ISO 8601)")
    matches: list[dict[str, Any]] = Field(
        description="matches still unsettled since the close: match_id, status, pot_cents")
    all_settled: bool


class FeedList(BaseModel):
    feeds: list[dict[str, Any]]
    night_close: NightCloseAlarm | None = Field(
        default=None, description="the alarm raised at the night's close; null before it")


class BowlerMoneyView(BaseModel):
    bowler: str
    paid_cents: int
    won_cents: int
    net_cents: int
    matches: list[str]


class MatchMoneyView(BaseModel):
    match_id: str
    status: str
    pot_cents: int
    paid_cents: int
    won_cents: int


class SettlementTotals(BaseModel):
    paid_cents: int
    won_cents: int
    held_cents: int
    complete: bool


class UnsettledMatchView(BaseModel):
    match_id: str
    status: str
    pot_cents: int


class FairDealView(BaseModel):
    match_id: str
    status: str
    scheme: str | None = Field(description="null: dealt before fair dealing (not verifiable)")
    commitment: str | None = Field(description="SHA-256 of the seed, published before play")
    salt: str | None
    seed: str | None = Field(description="revealed when the match is settled or voided")
    chain_head: str | None = Field(description="hash of the match's last stored event")


class MatchExport(BaseModel):
    format: str
    version: int
    match_id: str
    centre: str
    status: str
    fairness: dict[str, Any]
    chain_head: str | None
    events: list[dict[str, Any]]


class SettlementReport(BaseModel):
    date: str | None
    bowlers: list[BowlerMoneyView]
    matches: list[MatchMoneyView]
    unsettled: list[UnsettledMatchView] = Field(
        description="every match neither settled nor void (empty once the night is over)")
    totals: SettlementTotals
    fair_deals: list[FairDealView] = Field(
        description="each match's commitment, revealed seed and chain head (docs/fairness.md)")


class AuditPage(BaseModel):
    entries: list[AuditEntry]
    #: oldest first (the default): the cursor to read on from
    next_since: int | None = None
    #: ``order=newest``: the cursor for the next, older page (None at the first entry)
    next_before: int | None = None
    time_zone: str


class HeldAuditLine(BaseModel):
    """One command that resolved held balls (a bulk discard is one line)."""
    time: str
    local_time: str
    actor: str
    outcome: str
    count: int
    lanes: list[int]
    match_ids: list[str]
    reason: str
    item_ids: list[int]
    description: str


class HeldAuditPage(BaseModel):
    lines: list[HeldAuditLine]
    time_zone: str


class TokenView(BaseModel):
    id: int
    name: str
    created_at: str
    revoked_at: str | None


class TokenList(BaseModel):
    tokens: list[TokenView]


class TokenCreated(BaseModel):
    id: int
    name: str
    token: str


class KioskView(BaseModel):
    id: int
    lanes: str
    paired: bool
    paired_at: str | None
    paired_by: str | None
    revoked_at: str | None


class KioskList(BaseModel):
    kiosks: list[KioskView]


class CommandAccepted(BaseModel):
    match_id: str
    seq: int
    events: list[PublicEvent]
