"""The rating timeline: ledger facts turned into rated items in rating order."""

from __future__ import annotations

from typing import Any

from ledger import events
from ledger.events import (
    DirectorOverride,
    FideAdjustmentSubmitted,
    FideUpliftRecorded,
    MatchResultSubmitted,
    MoneyFloorAwarded,
    OpeningBalanceRecorded,
    OverrideRevoked,
    SectionCorrected,
    SectionReinstated,
    SectionSubmitted,
    SectionWithdrawn,
)
from ledger.log import LedgerEntry

# kind → the fact class an item of that kind holds (a correction is read as a submission)
KIND_FACTS: dict[str, type[events.Fact]] = {
    "section": SectionSubmitted,
    "match": MatchResultSubmitted,
    "opening": OpeningBalanceRecorded,
    "fide": FideAdjustmentSubmitted,
    "money": MoneyFloorAwarded,
    "override": DirectorOverride,
    "uplift": FideUpliftRecorded,
}


class Item:
    """One thing that changes ratings, in the order: end date, start date, ledger position.

    `event` is the typed fact of its latest revision; `payload` the same as plain JSON values.
    """

    __slots__ = ("key", "kind", "start", "end", "position", "revision", "event", "sort_key")

    def __init__(
        self,
        key: str,
        kind: str,
        start: str,
        end: str,
        position: int,
        revision: int,
        payload: events.Fact | dict[str, Any],
    ) -> None:
        self.key = key
        self.kind = kind
        self.start = start
        self.end = end
        self.position = position
        self.revision = revision
        if isinstance(payload, dict):
            payload = events.decode(KIND_FACTS[kind].__name__, payload=payload)
        self.event = payload
        self.sort_key = sort_key(end, start, position)

    @property
    def payload(self) -> dict[str, Any]:
        return events.to_payload(self.event)

    @property
    def players(self) -> tuple[str, ...]:
        e = self.event
        if self.kind in ("section", "match"):
            return tuple(x.id for x in e.players)
        if self.kind == "uplift":  # a whole FIDE list's ratings (projections/periods.py)
            return ()
        return (e.member_id,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and all(
            getattr(self, a) == getattr(other, a) for a in self.__slots__
        )

    def __hash__(self) -> int:
        return hash((self.key, self.revision))

    def __repr__(self) -> str:
        return f"Item({self.key!r}, {self.kind!r}, {self.start!r}, {self.end!r}, {self.position})"


def sort_key(end: str, start: str, position: int) -> str:
    """Sections and other rated items by end date, then start date, then ledger position."""
    return f"{end}|{start}|{position:012d}"


def _dates(fact: Any) -> tuple[str, str]:
    return fact.start_date, fact.end_date


# fact class → (kind, key, start date, end date) of the item it submits or revises
ITEM_FACTS: dict[type[events.Fact], tuple[str, Any, Any]] = {
    SectionSubmitted: ("section", lambda f, pos: "section:" + f.section_id, _dates),
    SectionCorrected: ("section", lambda f, pos: "section:" + f.section_id, _dates),
    SectionWithdrawn: ("section", lambda f, pos: "section:" + f.section_id, None),
    SectionReinstated: ("section", lambda f, pos: "section:" + f.section_id, _dates),
    MatchResultSubmitted: ("match", lambda f, pos: "match:" + f.match_id, _dates),
    OpeningBalanceRecorded: (
        "opening",
        lambda f, pos: f"opening:{f.member_id}:{f.system}",
        lambda f: (f.as_of, f.as_of),
    ),
    FideAdjustmentSubmitted: (
        "fide",
        lambda f, pos: f"fide:{f.member_id}:{f.rating_list}",
        lambda f: (f.rating_list, f.rating_list),
    ),
    MoneyFloorAwarded: ("money", lambda f, pos: f"money:{pos}", lambda f: (f.date, f.date)),
    FideUpliftRecorded: (
        "uplift",
        lambda f, pos: f"uplift:{f.effective}",
        lambda f: (f.effective, f.effective),
    ),
    DirectorOverride: (
        "override",
        lambda f, pos: f"override:{pos}",
        lambda f: (f.effective, f.effective),
    ),
    OverrideRevoked: ("override", lambda f, pos: f"override:{f.position}", None),
}
WITHDRAWALS = (SectionWithdrawn, OverrideRevoked)  # facts that take their item out of rating
ITEM_ENTRIES = {cls.__name__ for cls in ITEM_FACTS}


def fact_key(fact: events.Fact, position: int) -> str:
    """The key of the item a fact submits, revises or withdraws."""
    return ITEM_FACTS[type(fact)][1](fact, position)


def fact_item(fact: events.Fact, position: int, first_position: int | None = None) -> Item:
    """The item a fact submits (or revises: `first_position` keeps its place in the order)."""
    kind, key, dates = ITEM_FACTS[type(fact)]
    if dates is None:
        raise ValueError(f"{type(fact).__name__} is not a rated item")
    start, end = dates(fact)
    first = position if first_position is None else first_position
    found = key(fact, position)
    if type(fact) is not KIND_FACTS[kind]:  # a correction is rated (and kept) as a submission
        fact = events.decode(KIND_FACTS[kind].__name__, payload=events.to_payload(fact))
    return Item(found, kind, start, end, first, position, fact)


def _fact(entry: LedgerEntry) -> events.Fact:
    fact = events.decode(
        entry.type,
        getattr(entry, "state", None),
        None if hasattr(entry, "state") else entry.payload,
    )
    if type(fact) not in ITEM_FACTS:
        raise ValueError(f"{entry.type} is not a rated item")
    return fact


def item_key(entry: LedgerEntry) -> str:
    return fact_key(_fact(entry), entry.position)


def to_item(entry: LedgerEntry, first_position: int | None = None) -> Item:
    """The item an entry submits (or revises: `first_position` keeps its place in the order)."""
    return fact_item(_fact(entry), entry.position, first_position)
