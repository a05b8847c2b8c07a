"""The one-time uplift of 1 March 2024 (FIDE Council, 15 December 2023; B02 2024 transition).

"all players with a rating between 1000 and 2000 will receive a one-time increase" on the
1 March 2024 list: R' = R + 0.4 × (2000 − R) for every rating below 2000.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.rules.rounding import round_half_up

UPLIFT_DATE = "2024-03-01"
CEILING = 2000  # ratings below 2000 are raised
SHARE = 0.4  # by 0.4 × (2000 − R)


def uplifted(rating: float, ceiling: int = CEILING, share: float = SHARE) -> float:
    """R + share × (ceiling − R) below the ceiling; the rating itself from it up."""
    if rating >= ceiling:
        return rating
    return rating + share * (ceiling - rating)


def uplifted_official(rating: float, ceiling: int = CEILING, share: float = SHARE) -> int:
    """The list's whole-number rating after the uplift (rounded half up: 1001 → 1400.6 → 1401)."""
    return round_half_up(uplifted(rating, ceiling, share))


def raised_profile_rating(
    rating: float, rated_on: str | None, in_force: Sequence[tuple[str, int, float]]
) -> float:
    """The FIDE rating a player enters with when the read model does not hold him yet: his
    profile's, raised by each uplift in force (effective date, ceiling, share) dated after it
    (it was on a list before the uplift). Undated: taken as the rating in force, not raised."""
    for effective, ceiling, share in in_force:
        if rated_on is not None and rated_on < effective:
            rating = float(uplifted_official(rating, ceiling, share))
    return rating
