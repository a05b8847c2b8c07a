"""Items submitted once: a section, a match, an opening balance, a FIDE adjustment or uplift is
accepted once per key by the write side (`ledger/application.py`), and changed only by the
kinds that revise it (a correction, a withdrawal); a family's lists are published once each,
numbered in order. `verify` reports a second submission or a list out of order that an insider
appended with a key that may write it (the read side makes it a problem row instead,
projections/handlers.py)."""

from __future__ import annotations

from typing import Any

from ledger import events

KEYS = {
    name: kind.item.key
    for name, kind in events.KINDS.items()
    if kind.read and kind.item is not None and kind.item.dates is not None and not kind.item.revises
}
"""Each kind that submits an item: the item's key (as the read side keys it)."""


LISTS = "ListPublished"


def out_of_order(family: str, number: int, name: str, known: list[str]) -> str | None:
    """Why a list `number` named `name` cannot follow `family`'s lists `known` (None: it is
    the next)."""
    if name in known:
        return f"the {family} list {name!r} was published before (list {known.index(name) + 1})"
    if number != len(known) + 1:
        return f"the {family} list {name!r} is numbered {number}, not {len(known) + 1} (the next)"
    return None


class Submissions:
    """The items submitted so far, in ledger order: their key → the first position; and each
    family's lists."""

    def __init__(self) -> None:
        self.first: dict[str, int] = {}
        self.lists: dict[str, list[str]] = {}

    def second(self, kind: str, position: int, payload: object) -> str | None:
        """Why the entry at `position` is a second submission of its item, or a list out of
        order (None: it is neither)."""
        if kind == LISTS and isinstance(payload, dict):
            return self._listed(payload)
        key_of = KEYS.get(kind)
        if key_of is None or not isinstance(payload, dict):
            return None
        try:
            fact = events.decode(kind, payload=payload)
            key = key_of(fact, position)
        except (ValueError, TypeError, AttributeError):
            return None  # unreadable: the read side reports it as a problem
        first = self.first.setdefault(key, position)
        if first == position:
            return None
        return (
            f"a second submission of {key} (the first is at position {first}): a change of it "
            "is a correction"
        )

    def _listed(self, payload: dict[str, Any]) -> str | None:
        family, number, name = (payload.get(k) for k in ("family", "number", "list_name"))
        if not (isinstance(family, str) and isinstance(number, int) and isinstance(name, str)):
            return None  # unreadable: the read side reports it as a problem
        known = self.lists.setdefault(family, [])
        why = out_of_order(family, number, name, known)
        if why is None:
            known.append(name)
        return why
