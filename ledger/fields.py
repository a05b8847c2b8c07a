"""The types of the fact kinds' fields (ledger/events.py): each with its read bound and its door.

A type is the stored JSON type, its read bound as a `msgspec.Meta` (ledger/bounds.py: what a
stored entry may hold and still be rated), and, for a field a write gives, a `Door`: the name
of its command type (ledger/commands.py `DOOR_TYPES`: the door bound and checks), and the
field's name in the command when it is not the fact's. A field without a door is not given by
a write (its verb computes it). Nothing here imports pydantic: the read side stays light.
"""

from __future__ import annotations

from typing import Annotated, NamedTuple

import msgspec

from ledger import bounds


class Door(NamedTuple):
    """How a write gives a field: its command type, its name there (None: the fact's), and
    whether it is required there though a stored entry may lack it (None: as stored)."""

    type: str
    name: str | None = None
    required: bool | None = None


# Numbers
Rating = Annotated[float, msgspec.Meta(ge=0, le=bounds.RATING.read), Door("rating")]
Count = Annotated[int, msgspec.Meta(ge=0, le=bounds.GAMES.read), Door("count")]
Floor = Annotated[int, msgspec.Meta(ge=0, le=int(bounds.RATING.read)), Door("floor")]
Limit = Annotated[int, msgspec.Meta(gt=0, le=int(bounds.RATING.read)), Door("limit")]
Amount = Annotated[float, msgspec.Meta(gt=0, le=bounds.PRIZE.read), Door("prize")]
Share = Annotated[float, msgspec.Meta(gt=0, le=1), Door("share")]
# ... in the parts of a record (a game, a FIDE game), whose doors are their command models
Positive = Annotated[float, msgspec.Meta(gt=0, le=bounds.RATING.read)]
Round = Annotated[int, msgspec.Meta(ge=1, le=bounds.ROUND.read)]
Start = Annotated[int, msgspec.Meta(ge=1, le=bounds.START.read)]
Score = Annotated[float, msgspec.Meta(ge=0, le=1)]

# Dates
Day = Annotated[str, msgspec.Meta(pattern=bounds.DATE_PATTERN)]
Date = Annotated[Day, Door("date")]
PastDate = Annotated[Day, Door("past_date")]
MembershipDate = Annotated[Day, Door("membership_date")]

# Ids, texts, flags
Player = Annotated[str, Door("member", "player")]  # a member id, given as `player`
RecordId = Annotated[str, Door("record_id")]
Text = Annotated[str, Door("text")]
Reason = Annotated[str, Door("reason", required=True)]
Flag = Annotated[bool, Door("bool")]
System = Annotated[str, Door("system")]
