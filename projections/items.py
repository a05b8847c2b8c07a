"""The rating timeline: ledger facts turned into rated items in rating order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ledger import events
from ledger.log import LedgerEntry

# fact class → (kind, key, start and end dates) of the item it submits, revises or withdraws
# (each kind's `item`, declared in ledger/events.py)
ITEM_FACTS: dict[
    type[events.Fact],
    tuple[str, Callable[[events.Fact, int], str], Callable[[events.Fact], tuple[str, str]] | None],
] = {
    kind: (kind.item.kind, kind.item.key, kind.item.dates)
    for kind in events.DECODERS.values()
    if kind.item is not None
}
# kind → the fact class an item of that kind holds (a correction is read as a submission)
KIND_FACTS: dict[str, type[events.Fact]] = {
    kind.item.kind: kind
    for kind in ITEM_FACTS
    if kind.item is not None and kind.item.dates is not None and not kind.item.revises
}
WITHDRAWALS = tuple(kind for kind, (_, _, dates) in ITEM_FACTS.items() if dates is None)
_PLAYERS = {kind: cls.item.players for kind, cls in KIND_FACTS.items() if cls.item is not None}
F = TypeVar("F", bound=events.Fact)


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
            payload = _decoded(KIND_FACTS[kind].__name__, None, payload)
        self.event = payload
        self.sort_key = sort_key(end, start, position)

    def fact_as(self, kind: type[F]) -> F:
        """The item's fact as `kind`, the class its kind holds (a TypeError for another)."""
        if not isinstance(self.event, kind):
            raise TypeError(f"a {self.kind} item holds no {kind.__name__}")
        return self.event

    @property
    def payload(self) -> dict[str, Any]:
        return events.to_payload(self.event)

    @property
    def players(self) -> tuple[str, ...]:
        return _PLAYERS[self.kind](self.event)

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
        fact = _decoded(KIND_FACTS[kind].__name__, None, events.to_payload(fact))
    return Item(found, kind, start, end, first, position, fact)


def _decoded(type_: str, state: bytes | None, payload: object) -> events.Fact:
    """The fact of a rated item's entry of type `type_` (a ValueError for any other type)."""
    fact = events.decode(type_, state, payload)
    if fact is None or type(fact) not in ITEM_FACTS:
        raise ValueError(f"{type_} is not a rated item")
    return fact


def stored_fact(kind: str, state: bytes) -> events.Fact:
    """The fact of an item of `kind` as the read model stores it (its JSON)."""
    return _decoded(KIND_FACTS[kind].__name__, state, None)


def _fact(entry: LedgerEntry) -> events.Fact:
    state = getattr(entry, "state", None)
    return _decoded(entry.type, state, None if hasattr(entry, "state") else entry.payload)


def to_item(entry: LedgerEntry, first_position: int | None = None) -> Item:
    """The item an entry submits (or revises: `first_position` keeps its place in the order)."""
    return fact_item(_fact(entry), entry.position, first_position)
