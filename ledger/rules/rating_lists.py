"""Published rating lists: which list's period rates an item, and each family's late items."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal, NamedTuple

from ledger.rules.icu.lists import LIST_MONTHS as ICU_LIST_MONTHS

LateItems = Literal["next_period", "by_end_date"]

# How a family rates an item recorded after the list for its period was published
# (docs/decisions.md): FIDE rates late reports in the next period; the ICU's pre-2012 system
# (icu-2005) rated a late tournament in the earliest available slot after the published list.
LATE_ITEMS: dict[str, LateItems] = {"fide": "next_period", "icu": "next_period"}
# The months a family publishes its lists in (absent: any month; FIDE and US Chess monthly).
LIST_MONTHS: dict[str, tuple[int, ...]] = {"icu": ICU_LIST_MONTHS}
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August")
MONTH_NAMES += ("September", "October", "November", "December")


def off_schedule(family: str, as_of: date) -> str | None:
    """A one-line note if `family` does not publish lists in the month of `as_of`, else None."""
    months = LIST_MONTHS.get(family)
    if months is None or as_of.month in months:
        return None
    names = ", ".join(MONTH_NAMES[m - 1] for m in months)
    return f"{family} publishes its lists in {names}; {as_of} is not in one of them"


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
