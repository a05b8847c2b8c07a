"""The rating timeline: ledger entries turned into rated items in rating order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.log import LedgerEntry


@dataclass(frozen=True)
class Item:
    """One thing that changes ratings, in the order: end date, start date, ledger position."""

    key: str
    kind: str
    start: str
    end: str
    position: int
    revision: int
    payload: dict[str, Any]

    @property
    def sort_key(self) -> str:
        return sort_key(self.end, self.start, self.position)

    @property
    def players(self) -> tuple[str, ...]:
        p = self.payload
        if self.kind in ("section", "match"):
            return tuple(x["id"] for x in p["players"])
        return (p["member_id"],)


def sort_key(end: str, start: str, position: int) -> str:
    """Sections and other rated items by end date, then start date, then ledger position."""
    return f"{end}|{start}|{position:012d}"


ITEM_ENTRIES = {
    "OpeningBalanceRecorded",
    "SectionSubmitted",
    "SectionCorrected",
    "SectionWithdrawn",
    "SectionReinstated",
    "FideAdjustmentSubmitted",
    "MoneyFloorAwarded",
    "MatchResultSubmitted",
    "DirectorOverride",
    "OverrideRevoked",
}
WITHDRAWALS = {"SectionWithdrawn", "OverrideRevoked"}


def item_key(entry: LedgerEntry) -> str:
    p = entry.payload
    match entry.type:
        case "SectionSubmitted" | "SectionCorrected" | "SectionWithdrawn" | "SectionReinstated":
            return "section:" + p["section_id"]
        case "MatchResultSubmitted":
            return "match:" + p["match_id"]
        case "OpeningBalanceRecorded":
            return f"opening:{p['member_id']}:{p['system']}"
        case "FideAdjustmentSubmitted":
            return f"fide:{p['member_id']}:{p['rating_list']}"
        case "MoneyFloorAwarded":
            return f"money:{entry.position}"
        case "DirectorOverride":
            return f"override:{entry.position}"
        case "OverrideRevoked":
            return f"override:{p['position']}"
    raise ValueError(f"{entry.type} is not a rated item")


def to_item(entry: LedgerEntry, first_position: int | None = None) -> Item:
    """The item an entry submits (or revises: `first_position` keeps its place in the order)."""
    p = entry.payload
    match entry.type:
        case "SectionSubmitted" | "SectionCorrected" | "SectionReinstated" | "MatchResultSubmitted":
            kind = "match" if entry.type == "MatchResultSubmitted" else "section"
            start, end = p["start_date"], p["end_date"]
        case "OpeningBalanceRecorded":
            kind, start = "opening", p["as_of"]
            end = start
        case "FideAdjustmentSubmitted":
            kind, start = "fide", p["rating_list"]
            end = start
        case "MoneyFloorAwarded":
            kind, start = "money", p["date"]
            end = start
        case "DirectorOverride":
            kind, start = "override", p["effective"]
            end = start
        case _:
            raise ValueError(f"{entry.type} is not a rated item")
    position = entry.position if first_position is None else first_position
    return Item(item_key(entry), kind, start, end, position, entry.position, p)
