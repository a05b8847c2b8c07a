"""Step 1: the initial rating R0 and games N of a player unrated in a system (§2)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final, Literal

from ledger.rules.rounding import round_half_up
from ledger.rules.uschess.systems import System, is_established
from ledger.rules.uschess.versions import Rules

# The values below are plain classes of `Final` attributes rather than frozen dataclasses: a
# replay makes one per unrated player and source, and compiled (mypyc) a class's own
# `__init__` is native where a dataclass's runs as Python (docs/decisions.md, "Compiled
# modules").


class SourceRating:
    """A rating in another US Chess system: value, games credited, date it was computed."""

    __slots__ = ("rating", "games", "as_of")

    def __init__(self, rating: float, games: int, as_of: date) -> None:
        if games < 0:
            raise ValueError(f"games credited cannot be negative, got {games}")
        self.rating: Final = rating
        self.games: Final = games
        self.as_of: Final = as_of


class ForeignRating:
    """A FIDE or CFC rating and the date of the list it comes from."""

    __slots__ = ("rating", "as_of")

    def __init__(self, rating: float, as_of: date) -> None:
        self.rating: Final = rating
        self.as_of: Final = as_of


NO_RATINGS: Mapping[System, SourceRating] = MappingProxyType({})


class PlayerBackground:
    """What §2 may use: birth date, inferred adulthood, FIDE/CFC and other US Chess ratings.

    `cfc` is given only when it may be used (2020+ §2.2: "a Canadian resident").
    """

    __slots__ = ("birth_date", "adult", "fide", "cfc", "ratings")

    def __init__(
        self,
        birth_date: date | None = None,
        adult: bool = False,
        fide: ForeignRating | None = None,
        cfc: ForeignRating | None = None,
        ratings: Mapping[System, SourceRating] = NO_RATINGS,
    ) -> None:
        self.birth_date: Final = birth_date
        self.adult: Final = adult
        self.fide: Final = fide
        self.cfc: Final = cfc
        self.ratings: Final[Mapping[System, SourceRating]] = MappingProxyType(dict(ratings))

    def rated_in(self, system: System) -> SourceRating | None:
        """The rating in `system`, if it is based on at least one game."""
        rating = self.ratings.get(system)
        return rating if rating is not None and rating.games > 0 else None


class SourceWeight:
    """One row of the §2 table: X_k, its date, G_k, D_k, P_k, Z_k, S_k and W_k."""

    __slots__ = (
        "source",
        "original",
        "rating",
        "as_of",
        "game_factor",
        "staleness_days",
        "age_rating",
        "z",
        "staleness_factor",
        "weight",
    )

    def __init__(
        self,
        source: str,
        original: float,
        rating: float,
        as_of: date,
        game_factor: int,
        staleness_days: int,
        age_rating: float,
        z: float,
        staleness_factor: float,
        weight: float,
    ) -> None:
        self.source: Final = source
        self.original: Final = original
        self.rating: Final = rating
        self.as_of: Final = as_of
        self.game_factor: Final = game_factor
        self.staleness_days: Final = staleness_days
        self.age_rating: Final = age_rating
        self.z: Final = z
        self.staleness_factor: Final = staleness_factor
        self.weight: Final = weight

    def values(self) -> tuple[str, float, float, date, int, int, float, float, float, float]:
        return (
            self.source,
            self.original,
            self.rating,
            self.as_of,
            self.game_factor,
            self.staleness_days,
            self.age_rating,
            self.z,
            self.staleness_factor,
            self.weight,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SourceWeight) and self.values() == other.values()


class Initialization:
    """R0 and N from Step 1, what they came from, and the clause of the text applied."""

    __slots__ = ("rating", "games", "method", "clause", "sources")

    def __init__(
        self,
        rating: float,
        games: int,
        method: str,
        clause: str,
        sources: tuple[SourceWeight, ...] = (),
    ) -> None:
        self.rating: Final = rating
        self.games: Final = games
        self.method: Final = method
        self.clause: Final = clause
        self.sources: Final = sources

    def values(self) -> tuple[float, int, str, str, tuple[SourceWeight, ...]]:
        return self.rating, self.games, self.method, self.clause, self.sources

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Initialization) and self.values() == other.values()


IMPLAUSIBLE_AGE = 3.0  # §2.3 (2015 §2.6): "less than 3 years old" is a miscoded birth date
ADULT_AGE = 26.0  # §2.3 (2015 §2.6): "treated as a 26 year old"
CHILD_AGE = 15.0  # 2020+ §2.3: otherwise "treated as a 15 year old"
DEFAULT_2015 = 750.0  # 2015 §2.1–2.5, last item: "an initial rating of 750"


def age_in_years(birth_date: date, on: date) -> float:
    """§2.3 (2015 §2.6): Age = (Tournament End Date − Birth Date)/365.25."""
    return (on - birth_date).days / 365.25


def age_formula_2015(age: float) -> float:
    """2015 §2.6: 50 × Age if 3 ≤ Age ≤ 26, 1300 otherwise."""
    return 50.0 * age if 3 <= age <= 26 else 1300.0


def age_formula(age: float) -> float:
    """2020+ §2.3: 100 if Age < 2, 50 × Age if 2 ≤ Age ≤ 26, 1300 if Age > 26."""
    if age < 2:
        return 100.0
    return 50.0 * age if age <= 26 else 1300.0


def age_based_rating_2015(birth_date: date | None, adult: bool, on: date) -> float | None:
    """2015 §2.6 on `on`; None when there is no birth date and no inferred adulthood."""
    if birth_date is None:
        # 2015 §2.6: no birth date but "inferred to be an adult" → treated as a 26-year old
        return age_formula_2015(ADULT_AGE) if adult else None
    age = age_in_years(birth_date, on)
    # 2015 §2.6: Age < 3 "is also treated as a 26-year old"
    return age_formula_2015(ADULT_AGE if age < IMPLAUSIBLE_AGE else age)


def age_based_rating(birth_date: date | None, adult: bool, on: date) -> float:
    """2020+ §2.3 on `on`; no birth date or Age < 3: as a 26-year-old if adult, else 15."""
    if birth_date is None or age_in_years(birth_date, on) < IMPLAUSIBLE_AGE:
        return age_formula(ADULT_AGE if adult else CHILD_AGE)
    return age_formula(age_in_years(birth_date, on))


@dataclass(frozen=True)
class _Other:
    """2015: "If the player has a <system> rating [based on at least k games]"."""

    system: System
    min_games: int = 1
    established: bool | None = None
    games: int | None = 0  # N given to the rating; None: "the lesser of 10 and" its games


@dataclass(frozen=True)
class _Converted:
    """2015: "If player has a FIDE (CFC) rating, use the rating converted"."""

    federation: Literal["FIDE", "CFC"]
    online: bool


_AGE = "age-based"
_DEFAULT = "default"
_FIDE, _CFC = _Converted("FIDE", online=False), _Converted("CFC", online=False)
_OL_FIDE, _OL_CFC = _Converted("FIDE", online=True), _Converted("CFC", online=True)

PRIORITY_2015: dict[System, tuple[str, tuple[_Other | _Converted | str, ...]]] = {
    System.OTBR: ("§2.1", (_FIDE, _CFC, _Other(System.OTBQ, min_games=4), _AGE, _DEFAULT)),
    System.OTBQ: ("§2.2", (_Other(System.OTBR, 4, games=None), _FIDE, _CFC, _AGE, _DEFAULT)),
    System.OTBB: (
        "§2.3",
        (
            _Other(System.OTBR, established=True, games=10),
            _FIDE,
            _CFC,
            _Other(System.OTBR, 4, established=False, games=None),
            _Other(System.OTBQ, min_games=4),
            _AGE,
            _DEFAULT,
        ),
    ),
    System.OLQ: (
        "§2.4",
        (
            _Other(System.OLB, games=10),
            _Other(System.OTBQ),
            _Other(System.OTBB),
            _Other(System.OTBR),
            _OL_FIDE,
            _OL_CFC,
            _AGE,
            _DEFAULT,
        ),
    ),
    System.OLB: (
        "§2.5",
        (
            _Other(System.OLQ),
            _Other(System.OTBB),
            _Other(System.OTBQ),
            _Other(System.OTBR),
            _OL_FIDE,
            _OL_CFC,
            _AGE,
            _DEFAULT,
        ),
    ),
}


def _priority_item(
    item: _Other | _Converted | str, end_date: date, rules: Rules, player: PlayerBackground
) -> tuple[float, int, str] | None:
    """R0, N and the source's name if this item of a 2015 list applies, else None."""
    if isinstance(item, _Other):
        source = player.rated_in(item.system)
        if source is None or source.games < item.min_games:
            return None
        if item.established is not None and is_established(source.games) != item.established:
            return None
        games = min(10, source.games) if item.games is None else item.games
        return source.rating, games, item.system.value
    if isinstance(item, _Converted):
        if item.federation == "FIDE":
            if player.fide is None:
                return None
            # 2015 §2.1: N = 10 if the FIDE rating is over 2150, else 5; online (§2.4, §2.5): 0
            games = 0 if item.online else 10 if player.fide.rating > 2150 else 5
            return rules.fide_conversion(player.fide.rating), games, "FIDE"
        if player.cfc is None:
            return None
        # 2015 §2.1: N = 5 if the CFC rating is over 1500, else 0; online (§2.4, §2.5): 0
        games = 0 if item.online else 5 if player.cfc.rating > 1500 else 0
        return rules.cfc_conversion(player.cfc.rating), games, "CFC"
    if item == _AGE:
        rating = age_based_rating_2015(player.birth_date, player.adult, end_date)
        return None if rating is None else (rating, 0, _AGE)
    return DEFAULT_2015, 0, _DEFAULT


def initialize_by_priority(
    system: System, end_date: date, rules: Rules, player: PlayerBackground
) -> Initialization:
    """2015 §2.1–2.5: the first item of the system's priority list that applies."""
    section, items = PRIORITY_2015[system]
    return next(
        Initialization(*found, f"2015 {section} item {number}")
        for number, item in enumerate(items, start=1)
        if (found := _priority_item(item, end_date, rules, player)) is not None
    )


# §2: OTBB when initializing OLB and OTBQ when initializing OLQ have a Game Factor of 10
COMPANIONS = frozenset({(System.OLB, System.OTBB), (System.OLQ, System.OTBQ)})
SYSTEMS = tuple(System)  # in the order of the enumeration, which is the sources' order


def game_factor(target: System, source: System, games: int) -> int:
    """§2 step 1: G_k for a US Chess source, capped at the games credited in it."""
    # §2: OTBR 10; OTBB when initializing OLB 10; OTBQ when initializing OLQ 10; others 5
    companion = (target, source) in COMPANIONS
    full = 10 if source is System.OTBR or companion else 5
    return min(full, games)


def weigh_source(
    source: str,
    original: float,
    rating: float,
    as_of: date,
    factor: int,
    end_date: date,
    player: PlayerBackground,
) -> SourceWeight:
    """§2 steps 2–5 for one source: D_k, P_k, Z_k, S_k and W_k."""
    days = (end_date - as_of).days  # §2 step 2: D_k, days from the rating to the end date
    age_rating = age_based_rating(player.birth_date, player.adult, as_of)  # §2 step 3: P_k
    z = min(6.0, (rating - age_rating) / 350.0)  # §2: Z_k = min(6, (X_k − P_k)/350)
    staleness = math.exp(0.06 * (z - 6.0) * days / 365.25)  # §2: S_k = exp(.06(Z_k − 6)D_k/365.25)
    weight = factor * staleness  # §2 step 5: W_k = G_k × S_k
    return SourceWeight(
        source, original, rating, as_of, factor, days, age_rating, z, staleness, weight
    )


def _weighted_average(rows: list[SourceWeight], total: float) -> float | Fraction:
    """ΣW_kX_k / ΣW_k; near a half, taken exactly (as fractions of the floats), so that one
    source of 206.5 averages to 206.5 and rounds to 207, not to 206 through float error."""
    average = sum(row.weight * row.rating for row in rows) / total
    if abs(average % 1 - 0.5) > 1e-6:
        return average
    # a Fraction start: typed and compiled (mypyc) as a Fraction sum, not an int one
    weighted = sum((Fraction(row.weight) * Fraction(row.rating) for row in rows), Fraction(0))
    return weighted / sum((Fraction(row.weight) for row in rows), Fraction(0))


def initialize_blended(
    system: System, end_date: date, rules: Rules, player: PlayerBackground
) -> Initialization:
    """2020+ §2: weighted average of the other ratings, or the age-based rating with N = 0."""
    rows: list[SourceWeight] = []
    systems = rules.version.systems
    for other in SYSTEMS:
        if other is system or other not in systems:
            continue
        source = player.rated_in(other)
        if source is None:
            continue
        factor = game_factor(system, other, source.games)
        rows.append(
            weigh_source(
                other.value, source.rating, source.rating, source.as_of, factor, end_date, player
            )
        )
    if player.fide is not None:
        fide = player.fide
        factor = 10 if fide.rating > 2000 else 5  # §2.1: Game Factor 10 if FIDE > 2000, else 5
        converted = rules.fide_conversion(fide.rating)
        rows.append(
            weigh_source("FIDE", fide.rating, converted, fide.as_of, factor, end_date, player)
        )
    if player.cfc is not None:
        cfc = player.cfc
        converted = rules.cfc_conversion(cfc.rating)
        # §2.2: "treated as having a Game Factor of 5"
        rows.append(weigh_source("CFC", cfc.rating, converted, cfc.as_of, 5, end_date, player))
    rows = [row for row in rows if row.weight > 0]
    if not rows:
        # §2: "If none of these ratings exist, the initial rating will be the age-based rating"
        rating = age_based_rating(player.birth_date, player.adult, end_date)
        return Initialization(rating, 0, _AGE, "§2, §2.3")
    total = sum(row.weight for row in rows)
    # §2: R0 = ΣW_kX_k / ΣW_k rounded to the nearest integer
    rating = float(round_half_up(_weighted_average(rows, total)))
    games = math.ceil(min(10.0, total))  # §2: N = min(10, ΣW_k) rounded up
    return Initialization(rating, games, "blended", "§2", tuple(rows))


def initialize(
    system: System, end_date: date, rules: Rules, player: PlayerBackground
) -> Initialization:
    """Step 1 (§2) for a player unrated in `system`, by the method of `rules.version`."""
    if system not in rules.version.systems:
        raise ValueError(f"{rules.name} has no {system.value} rating system")
    if player.rated_in(system) is not None:
        raise ValueError(f"the player already has a {system.value} rating")
    if rules.version.initialization == "priority":
        return initialize_by_priority(system, end_date, rules, player)
    return initialize_blended(system, end_date, rules, player)


def initialization_detail(init: Initialization) -> dict[str, Any]:
    """Step 1's inputs for the history row: method, clause and each source's weights (§2)."""
    return {
        "rating": init.rating,
        "games": init.games,
        "method": init.method,
        "clause": init.clause,
        "sources": [
            {
                "source": w.source,
                "original": w.original,
                "rating": w.rating,
                "as_of": w.as_of.isoformat(),
                "game_factor": w.game_factor,
                "staleness_days": w.staleness_days,
                "age_rating": w.age_rating,
                "z": w.z,
                "staleness_factor": w.staleness_factor,
                "weight": w.weight,
            }
            for w in init.sources
        ],
    }
