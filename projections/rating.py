"""What the read core asks of a rule family's reader (issue 29): a typed protocol.

Each family implements it in its own package (`ledger/rules/<family>/rater.py`); its `Family`
names it (`Family.rater`, "module:READER"), and `ledger.rules.families`, the registry,
is the one place that names the families. The read core (projector, cascade, rebuild, schema,
handlers, queries) asks only this protocol and imports no family package.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

from ledger.rules.families import family
from projections.history_store import Layout

if TYPE_CHECKING:
    from ledger.events import PlayerRegistered
    from projections.change import Change
    from projections.items import Item
    from projections.standing import Standing
    from projections.what_if import WhatIf

S = TypeVar("S")  # a family's own state in its standings (US Chess: UsChessState, FIDE: FideState)
# Each player's standing in one system before the item being rated: (player, system) → standing
Lookup = Callable[[str, str], "Standing[object]"]
# A recorded rules amendment as the read model keeps it: parameter, value (decoded), effective,
# until. A family that takes amendments parses them when it opens; the others ignore them.
AmendmentRow = Mapping[str, Any]


class NotRated(Exception):
    """A family's reason for rating none of an item's games (issue 30: "never silent"): the
    read model records it as the item's problem row."""


class Profiles(Protocol):
    """The players' profiles a rater reads (a dict, or read from the model when asked for)."""

    def get(self, member_id: str, /) -> PlayerRegistered | None: ...


class ItemRater(Protocol):
    """An opened rater as the read core drives it: an item rated, a player's standing before
    it (a family's `Rater`, or one wrapping it: merged records renamed, problem rows kept)."""

    def rate(self, item: Item) -> list[Change]: ...

    def standing(self, player: str, system: str) -> Standing[object]: ...


class Rater(Protocol[S]):
    """A family's reader: how its standings are stored and shown (class-level), and, opened
    on a read model, how it rates one item at a time."""

    # the values a history row adds, after its `detail` (US Chess: Steps 3–5, the bonus…)
    figure_columns: ClassVar[Mapping[str, type]]
    # the `history` state columns after a row (its standing but the rating and N), in order
    state_columns: ClassVar[Mapping[str, type]]
    # the order the digest reads the history's columns in (None: as a row has them)
    history_order: ClassVar[tuple[str, ...] | None]
    # the columns it adds to `ratings` (after the results, before `rated_on`), in order
    rating_columns: ClassVar[Mapping[str, type]]

    @classmethod
    def columns(cls, standing: Standing[S]) -> tuple[Any, ...]:
        """A standing as its state columns (`state_columns` order)."""
        ...

    @classmethod
    def standing_of(cls, values: Sequence[Any]) -> Standing[S]:
        """The standing a history row keeps: its `post_rating`, `games_after`, then its state
        columns."""
        ...

    @classmethod
    def rating_fields(cls, system: str, standing: Standing[S]) -> dict[str, Any]:
        """A standing's values of the family's `rating_columns`."""
        ...

    @classmethod
    def explain_rules(cls, row: dict[str, Any], start: str) -> dict[str, Any]:
        """What `explain` says of the rules a history row was rated under, beyond its
        version's name (`start`: the item's start date)."""
        ...

    @classmethod
    def explain_steps(
        cls, kind: str, row: dict[str, Any], detail: dict[str, Any]
    ) -> dict[str, Any] | None:
        """A row's steps as `explain` shows them, from the detail of its item rated again
        (None: the family shows its values instead)."""
        ...

    @classmethod
    def open(
        cls,
        lookup: Callable[[str, str], Standing[S]],
        profiles: Profiles,
        amendments: Sequence[AmendmentRow],
        explain: bool,
        what_if: WhatIf | None,
        items: int | None = None,
    ) -> Self:
        """The rater over `lookup` and the profiles, with the recorded rules amendments,
        explain detail (rows not stored) and a what-if replay's rules; `items`: how many
        items it is about to rate when that is known before the first (a rebuild's), for a
        family whose arithmetic repays a start-up cost only over a long replay (None: not
        known)."""
        ...

    def rate(self, item: Item) -> list[Change]:
        """Each player's new standing after `item` and its history row."""
        ...

    def standing(self, player: str, system: str) -> Standing[S]:
        """The player's standing in `system` before the item being rated."""
        ...


@functools.cache
def rater_class(name: str) -> type[Rater[Any]]:
    """The rater class family `name` names (`Family.rater`; its state type is its own: Any
    here, where every family is one)."""
    module, _, cls = family(name).rater.partition(":")
    found: type[Rater[Any]] = getattr(importlib.import_module(module), cls)
    return found


def rater_for(
    name: str,
    lookup: Lookup,
    profiles: Profiles,
    amendments: Sequence[AmendmentRow] = (),
    explain: bool = False,
    what_if: WhatIf | None = None,
    items: int | None = None,
) -> Rater[Any]:
    """Family `name`'s rater opened on a read model (`Rater.open`; `items`: its size hint)."""
    return rater_class(name).open(lookup, profiles, amendments, explain, what_if, items)


@functools.cache
def history_layout(name: str) -> Layout:
    """How family `name`'s history rows are stored (its state columns)."""
    reader = rater_class(name)
    return Layout(tuple(reader.figure_columns), tuple(reader.state_columns), reader.standing_of)
