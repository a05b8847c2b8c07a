"""Published rating lists: which list's period rates an item, given a family's late items
(`Family.late_items`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal, NamedTuple

LateItems = Literal["next_period", "by_end_date"]


class RatingList(NamedTuple):
    """A published list: its name, as-of date, and the last ledger position it takes items from."""

    name: str
    as_of: date
    cutoff: int


def list_for(
    end: date, position: int, lists: Sequence[RatingList], late_items: LateItems
) -> int | None:
    """The index in `lists` (in published order) of the list whose period rates an item that
    ended on `end` and was recorded at ledger `position`; None: no list has it yet.

    A list's period holds the items that ended before its as-of date and after the previous
    list's. "next_period": an item recorded after a list's cutoff waits for the next list.
    "by_end_date": it belongs to its end date's period whenever it was recorded.
    """
    for i, rating_list in enumerate(lists):
        if end >= rating_list.as_of:
            continue
        if late_items == "by_end_date" or position <= rating_list.cutoff:
            return i
    return None
