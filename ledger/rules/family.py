"""A rule family as one object: what the read side, the pages and the exports ask a family
instead of comparing its name. Each family's package defines its `FAMILY`
(`ledger/rules/<family>/family.py`); `ledger.rules.families` lists them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, Protocol, TypeVar

from ledger.rules.rating_lists import LateItems
from ledger.rules.time_controls import TimeControl, known_time_control

Fields = tuple[tuple[str, str], ...]
MONTH_NAMES = (
    *("January", "February", "March", "April", "May", "June", "July", "August"),
    *("September", "October", "November", "December"),
)


@dataclass(frozen=True)
class Words:
    """A family's vocabulary on the pages: which columns a player's ratings and history show
    and what they are called, what a crosstable's rating column says, and the performance a
    crosstable shows. A FIDE or ICU page never says "OLM" or "floor"."""

    federation: str  # who publishes: the site's heading
    ratings: Fields  # (rating row column, heading) on the player page
    history: Fields  # (history row column, heading) on the history page
    change: str  # the crosstable's heading of a system's rating cell
    performance: Callable[[Sequence[float], float], float] | None  # None: the text has none
    bounds: Mapping[str, str] = field(default_factory=dict)  # a floor bound's name in its text
    # a system's name on the pages and in the crosstable (FIDE: "FIDE rapid"); else its own
    systems: Mapping[str, str] = field(default_factory=dict)

    def system(self, name: str) -> str:
        """System `name` as the family's pages call it."""
        return self.systems.get(name, name)


class Version(Protocol):
    """A family's dated rules version, as the registry knows it: by its name."""

    @property
    def name(self) -> str: ...


class Resolves(Protocol):
    """A family's `resolve`: the version in force on a date, or the one named."""

    def __call__(self, on: date, name: str | None = None, /) -> Version: ...


class PeriodVersion(Protocol):
    """A version a list is computed under, as the period core reads it."""

    @property
    def name(self) -> str: ...

    @property
    def per_game(self) -> bool: ...  # ΔR per game (FIDE 8.3.1) rather than per section

    @property
    def delisted_below(self) -> int: ...  # a rated player below it is shown unrated (7.2.1)


class ListResult(Protocol):
    """A rated player's list: his rating, the whole number published, the K used, and why."""

    @property
    def rating(self) -> float: ...

    @property
    def official(self) -> int: ...

    @property
    def k(self) -> int | None: ...

    @property
    def detail(self) -> dict[str, Any]: ...


V = TypeVar("V", bound=PeriodVersion)  # the family's version type
S = TypeVar("S")  # the family's state type (`Standing.state`)


@dataclass(frozen=True)
class PeriodRules(Generic[V, S]):
    """How a family that rates each list period from the previous list (FIDE 10.65) closes a
    period: the version by a list's date, the list's result, a first rating, a one-time uplift,
    and what its explanations quote."""

    version: Callable[[str], V]  # the version in force on a list's as-of date (ISO)
    by_name: Mapping[str, V]  # each version by its name (an explanation's row names it)
    # (version, Ro, the period's changes, its per-game sums) → the list's result
    result: Callable[[V, float, Sequence[float], Sequence[tuple[int, int, int]]], ListResult]
    change_sum: Callable[[Iterable[float]], float]  # ΣΔR of a period's changes (10.65)
    # (version, state, as of) → (official, detail) or None
    first_rating: Callable[[V, S | None, str], tuple[int, dict[str, Any]] | None]
    joined: Callable[[S | None, S | None], S]  # (the period's state, a section's) → after
    listed: Callable[[S | None, int, bool], S]  # (state, official, shown unrated) → after
    uplifted: Callable[[int, int, float], int]  # (official, ceiling, share) → uplifted official
    uplift_system: str  # the system an uplift raises
    uplift_text: str  # what an uplift's explanation follows
    k_rule: str  # the K rule an explanation of a per-game version quotes


@dataclass(frozen=True)
class Family:
    """One rule family: its dated versions, its rater, the systems it keeps, how it rates by
    published lists, and what its standings, pages and explanations show."""

    name: str  # `--rules-family`, the read model's `rules_family`
    versions: tuple[str, ...]  # its dated versions' names, oldest first
    resolve: Resolves  # the version in force on a date (or the one named)
    rater: str  # "module:NAME" of its reader (a class the read side's Rater protocol types)
    estimator: str  # "module:function" rating an `estimate` section (its `estimator.py`)
    systems: tuple[str, ...]  # the rating systems it keeps, in their usual order
    list_system: str | None  # the one system its lists and supplements show; None: every one
    words: Words
    view_suffix: str  # `ledger.db` → `ledger<view_suffix>`: its read model beside a store
    list_months: tuple[int, ...] | None = None  # the months it publishes lists in; None: any
    late_items: LateItems | None = None  # how its published lists place late items; None: no lists
    # each period rated from the previous list, ΔR waiting for it (Any: one Family type holds
    # every family's, so it cannot name their version and state types)
    periods: PeriodRules[Any, Any] | None = None
    # the fields a player page adds to a ratings row (US Chess §5: the OLM games, "N/300")
    page_fields: Callable[[Mapping[str, Any]], dict[str, Any]] = lambda row: {}
    explain_sections: Mapping[str, str] = field(default_factory=dict)  # item kind → its text
    explain_versions: Mapping[str, str] = field(default_factory=dict)  # version → its articles
    # a section it rates must give a time control the ledger reads (US Chess footnote 1);
    # else one it cannot read is kept as written
    reads_time_control: bool = False
    # why it rates none of a section's games: (minutes mm + ss or None when the time control is
    # not read, online, the section's start) → a reason, or None when it rates them
    not_rated: Callable[[float | None, bool, date], str | None] = lambda total, online, day: None
    # how it reads a section's time control (FIDE: as FIDE writes it, `90/40+30`); None: not
    time_control: Callable[[str], TimeControl | None] = known_time_control
    # a time control it reads, in the ledger's notation (FIDE: `90/40+30` → `40/90, SD/30`)
    notation: Callable[[str], str] = lambda text: text
    # What the write side and the entry points ask of it (issue 29: they import no family):
    online_systems: frozenset[str] = frozenset()  # its systems of online play (a write's `online`)
    parameters: tuple[str, ...] = ()  # the rules parameters an amendment may change (US Chess §8)
    # an amended parameter's value parsed (a ValueError says why not); None: it has none
    parse_parameter: Callable[[str, object], object] | None = None
    formats: tuple[str, ...] = ()  # the section formats its rules tell apart (FIDE 10.4)
    # whether a rating on N games is established (US Chess §1; P and N shown until it is)
    established: Callable[[int], bool] = lambda games: True
    # the list a section at this rate of play (minutes mm + ss) on a date is rated on; None: none
    list_for: Callable[[int, date], str | None] = lambda minutes, day: None

    def section_not_rated(self, time_control: str, online: bool, day: date) -> str | None:
        """Its reason for rating none of a section's games (None: it rates them)."""
        known = self.time_control(time_control)
        return self.not_rated(None if known is None else known.total, online, day)

    def off_schedule(self, as_of: date) -> str | None:
        """A one-line note if it does not publish lists in the month of `as_of`, else None."""
        months = self.list_months
        if months is None or as_of.month in months:
            return None
        names = ", ".join(MONTH_NAMES[m - 1] for m in months)
        return f"{self.name} publishes its lists in {names}; {as_of} is not in one of them"
