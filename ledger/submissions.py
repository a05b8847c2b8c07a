"""Items submitted once: a section, a match, an opening balance, a FIDE adjustment or uplift is
accepted once per key by the write side (`ledger/application.py`), and changed only by the
kinds that revise it (a correction, a withdrawal). `verify` reports a second submission an
insider appended with a key that may submit (the read side makes it a problem row instead,
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


class Submissions:
    """The items submitted so far, in ledger order: their key → the first position."""

    def __init__(self) -> None:
        self.first: dict[str, int] = {}

    def second(self, kind: str, position: int, payload: Any) -> str | None:
        """Why the entry at `position` is a second submission of its item (None: it is not)."""
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
