"""Rating floors and ceilings (§5; §7 for ceilings, money floors and match floor lowering)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import NamedTuple

from ledger.rules.rounding import round_half_up
from ledger.rules.uschess.floor_levels import (
    ABSOLUTE_FLOOR,
    FLOOR_STEP,
    MATCH_FLOOR_LOWERING,
    MONEY_FLOOR_HIGHEST,
    OLM_FLOOR,
    OLM_GAMES,
    OLM_RATING,
    PEAK_FLOOR_HIGHEST,
    PEAK_FLOOR_LOWEST,
    PEAK_FLOOR_MARGIN,
    PERSONAL_FLOOR_CAP,
)
from ledger.rules.uschess.systems import System, is_established
from ledger.rules.uschess.versions import RuleVersion


class Bound(StrEnum):
    """What held a rating: a floor component, or the director's ceiling."""

    ABSOLUTE = "absolute"
    PERSONAL_ABSOLUTE = "personal_absolute"
    PEAK = "peak"
    MONEY = "money"
    DIRECTOR = "director"
    OLM = "olm"
    CEILING = "ceiling"


class FloorState(NamedTuple):
    """A player's floor-relevant record in one rating system (a tuple: a replay makes one per
    player and section, as it does standings).

    `peak` is the highest rating held while established (full precision); `olm_games` the rated
    games started with an established rating above 2200; `floor_lowerings` the granted match
    requests (§7); `money_floor`, `director_floor` and `ceiling` are set by the office.
    """

    wins: int = 0
    draws: int = 0
    sections_of_three: int = 0
    peak: float | None = None
    olm_games: int = 0
    money_floor: int | None = None
    director_floor: int | None = None
    ceiling: float | None = None
    floor_lowerings: int = 0


def absolute_floor(state: FloorState, system: System, version: RuleVersion) -> int:
    """§5: the personal absolute floor in the systems the version gives it to, else 100."""
    return personal_absolute_floor(state, system in version.absolute_floor_systems)


def personal_absolute_floor(state: FloorState, personal: bool) -> int:
    """§5: AF = min(100 + 4N_W + 2N_D + N_R, 150) where the system has it (`personal`), else 100."""
    if not personal:
        return ABSOLUTE_FLOOR
    level = ABSOLUTE_FLOOR + 4 * state.wins + 2 * state.draws + state.sections_of_three
    return min(level, PERSONAL_FLOOR_CAP)


def peak_floor(peak: float | None) -> int | None:
    """§5: round the peak half up, subtract 200, take the level at or below (1200..2100)."""
    if peak is None:
        return None
    level = (round_half_up(peak) - PEAK_FLOOR_MARGIN) // FLOOR_STEP * FLOOR_STEP
    if level < PEAK_FLOOR_LOWEST:
        return None
    return min(level, PEAK_FLOOR_HIGHEST)


def olm_floor(state: FloorState, system: System, version: RuleVersion) -> int | None:
    """§5: 2200 once 300 games were played with an established rating above 2200."""
    return olm_floor_of(state, system in version.olm_floor_systems)


def olm_floor_of(state: FloorState, olm: bool) -> int | None:
    """`olm_floor` where the system has the OLM floor (`olm`, §5)."""
    if olm and state.olm_games >= OLM_GAMES:
        return OLM_FLOOR
    return None


def olm_games_after(olm_games: int, pre_rating: float | None, pre_games: int, games: int) -> int:
    """§5: a section's games count toward the 300 when its pre-section published rating
    (rounded half up) is established and above 2200."""
    if pre_rating is None or not is_established(pre_games):
        return olm_games
    if round_half_up(pre_rating) > OLM_RATING:
        return olm_games + games
    return olm_games


def olm_title_date(title_date: str | None, state: FloorState, on: str) -> str | None:
    """§5: the date the OLM floor was earned: kept once set, else `on` if the record reached
    OLM_GAMES games with an established rating above 2200."""
    if title_date is not None:
        return title_date
    return on if state.olm_games >= OLM_GAMES else None


def money_floor(prize: float, under: int, version: RuleVersion) -> int | None:
    """§5: the floor a prize earns in a section or prize for players rated under `under`."""
    large = (
        prize >= version.money_floor_amount
        if version.money_floor_inclusive
        else prize > version.money_floor_amount
    )
    if not large or under > MONEY_FLOOR_HIGHEST:
        return None
    # §5: "the first 100-point level (up to 2000) which would make the player no longer eligible"
    return math.ceil(under / FLOOR_STEP) * FLOOR_STEP


def no_money_floor(prize: float, under: int, version: RuleVersion) -> str | None:
    """Why a prize earns no money floor under `version` (§5), or None if it earns one."""
    if under > MONEY_FLOOR_HIGHEST:
        # §5: "in an under-2000 context"
        return f"an under-{under} prize is not in an under-{MONEY_FLOOR_HIGHEST} context (§5)"
    if money_floor(prize, under, version) is None:
        # §5: 2015 "wins over $2,000"; 2020+ "wins $4,000 or more"
        need = "or more" if version.money_floor_inclusive else "exclusive, more than that"
        return (
            f"a ${prize:,.0f} prize is under the money-floor threshold of "
            f"${version.money_floor_amount:,.0f} ({need}) in {version.name} (§5)"
        )
    return None


def floor_components(state: FloorState, system: System, version: RuleVersion) -> dict[Bound, int]:
    """Every floor that applies to the player in `system`, by kind."""
    personal, olm = floor_systems(system, version)
    return components_of(state, personal, olm)


def components_of(state: FloorState, personal: bool, olm: bool) -> dict[Bound, int]:
    """`floor_components` given `floor_systems` (§5)."""
    components = {
        Bound.ABSOLUTE: ABSOLUTE_FLOOR,
        Bound.PERSONAL_ABSOLUTE: personal_absolute_floor(state, personal),
    }
    optional = {
        Bound.PEAK: peak_floor(state.peak),
        Bound.MONEY: state.money_floor,
        Bound.DIRECTOR: state.director_floor,
        Bound.OLM: olm_floor_of(state, olm),
    }
    components.update({kind: level for kind, level in optional.items() if level is not None})
    return components


def floor_systems(system: System, version: RuleVersion) -> tuple[bool, bool]:
    """Whether `system` has, under `version`, the personal absolute floor and the OLM floor (§5)."""
    return system in version.absolute_floor_systems, system in version.olm_floor_systems


def effective_floor(state: FloorState, system: System, version: RuleVersion) -> tuple[int, Bound]:
    """The highest floor component, lowered 100 per granted match request (§7), never below 100.

    Ties go to the component listed first in `Bound`. (`floor_of` with the system's floors.)
    """
    personal, olm = floor_systems(system, version)
    return floor_of(state, personal, olm)


def floor_of(state: FloorState, personal: bool, olm: bool) -> tuple[int, Bound]:
    """`effective_floor` given `floor_systems` (§5, §7): the components of `floor_components`,
    computed inline, as this runs for every player of every rated section."""
    kind, best = Bound.ABSOLUTE, ABSOLUTE_FLOOR
    if personal:
        # §5: AF = min(100 + 4N_W + 2N_D + N_R, 150)
        level = ABSOLUTE_FLOOR + 4 * state.wins + 2 * state.draws + state.sections_of_three
        if level > PERSONAL_FLOOR_CAP:
            level = PERSONAL_FLOOR_CAP
        if level > best:
            kind, best = Bound.PERSONAL_ABSOLUTE, level
    peak = state.peak
    if peak is not None:
        at_peak = peak_floor(peak)
        if at_peak is not None and at_peak > best:
            kind, best = Bound.PEAK, at_peak
    money = state.money_floor
    if money is not None and money > best:
        kind, best = Bound.MONEY, money
    director = state.director_floor
    if director is not None and director > best:
        kind, best = Bound.DIRECTOR, director
    if olm and state.olm_games >= OLM_GAMES and best < OLM_FLOOR:
        kind, best = Bound.OLM, OLM_FLOOR
    lowerings = state.floor_lowerings
    if not lowerings:
        return best, kind
    # §7: "the new floor will be 100 points below the old floor"
    level = best - MATCH_FLOOR_LOWERING * lowerings
    if level <= ABSOLUTE_FLOOR:
        return ABSOLUTE_FLOOR, Bound.ABSOLUTE
    return level, kind


def apply_floor_and_ceiling(
    rating: float, state: FloorState, system: System, version: RuleVersion
) -> tuple[float, Bound | None]:
    """The rating after the floor and the director's ceiling, and which of them bound it.

    A ceiling below the floor wins over the floor; nothing goes below 100.
    """
    personal, olm = floor_systems(system, version)
    return bound_rating(rating, state, personal, olm)


def bound_rating(
    rating: float, state: FloorState, personal: bool, olm: bool
) -> tuple[float, Bound | None]:
    """`apply_floor_and_ceiling` given `floor_systems` (§5, §7)."""
    bound: Bound | None = None
    floor, kind = floor_of(state, personal, olm)
    if rating < floor:
        rating, bound = float(floor), kind
    # §7: a "ceiling" is "a level above which a player's rating may not rise"
    ceiling = state.ceiling
    if ceiling is not None and rating > ceiling:
        rating, bound = ceiling, Bound.CEILING
    # §5: "No rating can be lower than the absolute rating floor."
    if rating < ABSOLUTE_FLOOR:
        rating, bound = float(ABSOLUTE_FLOOR), Bound.ABSOLUTE
    return rating, bound


def after_section(
    state: FloorState,
    pre_rating: float | None,
    pre_games: int,
    post_rating: float,
    games: int,
    wins: int,
    draws: int,
) -> FloorState:
    """The record after one rated section of `games` games (final `post_rating`)."""
    peak = state.peak
    # §5: the peak is the "highest attained established rating" (post-section N > 25).
    if is_established(pre_games + games) and (peak is None or post_rating > peak):
        peak = post_rating
    # tuple.__new__: a NamedTuple's own __new__ costs a Python call, here once per player and item
    return tuple.__new__(
        FloorState,
        (
            state.wins + wins,
            state.draws + draws,
            # §5: N_R "events of at least three ratable games"
            state.sections_of_three + (1 if games >= 3 else 0),
            peak,
            olm_games_after(state.olm_games, pre_rating, pre_games, games),
            state.money_floor,
            state.director_floor,
            state.ceiling,
            state.floor_lowerings,
        ),
    )


def with_prize(state: FloorState, prize: float, under: int, version: RuleVersion) -> FloorState:
    """The record after winning `prize` restricted to players under `under` (keeps the highest)."""
    level = money_floor(prize, under, version)
    if level is None or (state.money_floor is not None and state.money_floor >= level):
        return state
    return state._replace(money_floor=level)


def with_floor_lowered(state: FloorState) -> FloorState:
    """The record after the office grants a match floor-lowering request (§7)."""
    return state._replace(floor_lowerings=state.floor_lowerings + 1)
