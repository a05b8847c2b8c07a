"""A player's standing in one rating system: what every family keeps, and its own state."""

from __future__ import annotations

from typing import Generic, NamedTuple, Never, TypeVar

S = TypeVar("S", covariant=True)  # a standing is read, never written into: covariant


class Standing(NamedTuple, Generic[S]):
    """Rating (None while unrated), N, results, the day last rated and the family's own
    state (its reader's type: US Chess's floors and OLM, FIDE's performances…; None before
    the player has one).

    A tuple (docs/decisions.md, "compact standings"): a replay makes one per player and item.
    """

    rating: float | None = None
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rated_on: str | None = None
    state: S | None = None


UNRATED: Standing[Never] = Standing()  # every family's standing of a player it has not met
