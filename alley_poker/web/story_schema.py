"""The OpenAPI shape of a match's story (``GET /api/v1/matches/<id>/story``)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class StoryHand(BaseModel):
    bowler: str
    cards: list[str] = Field(description="every card held at the showdown, in words (Q♠)")
    best: list[str] = Field(description="the cards that make the hand")
    describe: str
    won_cents: int


class StoryEntryView(BaseModel):
    seq: int = Field(description="the first event of the moment in the match's log")
    at: str = Field(description="when, ISO 8601 UTC")
    when: str = Field(description='where it happened: "Frame 7, ball 1", "At the desk", ...')
    kind: str = Field(description="ball, choice, desk, setup, end, showdown or result")
    bowler: str | None = Field(description="whose moment it is (null for the match's own)")
    bowlers: list[str] = Field(description="everyone whose cards, hole or money it touched")
    text: str = Field(description="the moment in plain words")
    undone: bool = Field(description="later taken back by the desk's undo")
    hands: list[StoryHand] | None = Field(default=None, description="the showdown's hands")


class MatchStory(BaseModel):
    match_id: str
    status: str = Field(description="settled or void")
    bowlers: list[str]
    entries: list[StoryEntryView]
