"""One item rated, as every path of a read model rates it (catch-up, cascade, rebuild, the
lists of a family rating by periods, `View.rerate`): through the family's rater, merged-away
records seen as their survivors', and an item that cannot be rated recorded as a problem row
rather than raised."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ledger import bounds
from projections import merges
from projections.batch import Batch
from projections.change import Change
from projections.handlers import short
from projections.items import Item
from projections.merges import Merges
from projections.rating import AmendmentRow, ItemRater, Lookup, NotRated, Profiles, rater_for
from projections.schema import GAMES_AFTER, POST_RATING
from projections.standing import Standing
from projections.what_if import WhatIf


def plausible(changes: list[Change]) -> str | None:
    """Why a rater's result cannot be stored (a non-finite or out-of-range rating or N)."""
    most = bounds.GAMES.read
    for c in changes:
        row = c.row
        rating, games = row[POST_RATING], row[GAMES_AFTER]
        if not bounds.plausible_rating(rating):
            return f"{c.player} {c.system}: rating {rating!r} is out of range"
        if not 0 <= games <= most:
            return f"{c.player} {c.system}: N {games!r} is out of range"
    return None


class RatingStep:
    """A read model's rating of one item under its rules family and what-if."""

    def __init__(self, family: str, what_if: WhatIf | None) -> None:
        self.family, self.what_if = family, what_if

    def rater(
        self,
        lookup: Lookup,
        profiles: Profiles,
        amendments: Sequence[AmendmentRow],
        explain: bool = False,
        merged: Merges | None = None,
        items: int | None = None,
    ) -> ItemRater:
        """The family's rater; with `merged`, it sees merged-away records as their survivors'
        (projections/merges.py); `items`: how many items it will rate, when known."""
        what_if = self.what_if
        if not merged:
            return rater_for(self.family, lookup, profiles, amendments, explain, what_if, items)
        found = merges.profiles(profiles, merged)
        rater = rater_for(self.family, lookup, found, amendments, explain, what_if, items)
        return merges.Renaming(rater, merged)

    @property
    def uplift(self) -> bool:
        """Whether FIDE lists take the recorded uplift (not in a what-if without it)."""
        return self.what_if is None or self.what_if.uplift

    @property
    def named(self) -> str | None:
        """A what-if's rules version rating every item and list (None: by date)."""
        return None if self.what_if is None else self.what_if.rules

    def rate(
        self, item: Item, rate: Callable[[Item], list[Change]], batch: Batch
    ) -> list[Change] | None:
        """The item's changes, or None after recording why it cannot be rated."""
        try:
            changes = rate(item)
            reason = plausible(changes)
        except NotRated as exc:  # the family's own reason, as it words it
            reason = str(exc)
        except Exception as exc:  # noqa: BLE001 - any failure of one item is that item's
            reason = f"{type(exc).__name__}: {short(exc)}"
        if reason is None:
            return changes
        batch.add_problem(item.revision, item.key, item.kind, "not rated: " + reason)
        return None

    def for_periods(self, profiles: Profiles, batch: Batch) -> Callable[[Lookup], ItemRater]:
        """The rater factory for projections.periods, each item rated through `rate` (an item
        that cannot be rated becomes a problem row, as on the other paths)."""

        def rater_for(lookup: Lookup) -> ItemRater:
            rater = self.rater(lookup, profiles, (), merged=batch.merges())
            return _Guarded(self, rater, batch)

        return rater_for


class _Guarded:
    """A family's rater whose items are rated through `RatingStep.rate` (problem rows)."""

    def __init__(self, step: RatingStep, rater: ItemRater, batch: Batch) -> None:
        self.step, self.rater, self.batch = step, rater, batch

    def rate(self, item: Item) -> list[Change]:
        return self.step.rate(item, self.rater.rate, self.batch) or []

    def standing(self, player: str, system: str) -> Standing[object]:
        return self.rater.standing(player, system)
