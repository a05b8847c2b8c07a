"""The standard rating formula (§4.2)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple


class StandardResult(NamedTuple):
    rating: float
    k: float
    expected: float
    score: float
    bonus: float


def k_factor(n_eff: float, m: int, rating: float, dual_rated: bool = False) -> float:
    """§4.2: K = 800/(N' + m); for a dual-rated update of a rating over 2200 the reduced K."""
    if dual_rated and rating > 2200:
        if rating < 2500:
            return 800.0 * (6.5 - 0.0025 * rating) / (n_eff + m)
        return 200.0 / (n_eff + m)
    return 800.0 / (n_eff + m)


def bonus_eligible(m: int, most_meetings: int, distinct_at_three: bool) -> bool:
    """§4.2: whether the bonus term applies, given the most games against any one opponent.

    2015/2020: m ≥ 3 and no opponent more than twice. 2024 (`distinct_at_three`): m > 3 and no
    opponent more than twice, or m = 3 and no opponent more than once.
    """
    if m < 3 or most_meetings > 2:
        return False
    return not (distinct_at_three and m == 3 and most_meetings > 1)


def standard_rating(
    r0: float,
    opponents: Sequence[float],
    score: float,
    k: float,
    bonus_multiplier: float | None,
) -> StandardResult:
    """§4.2: Rs = R0 + K(S − E) [+ bonus]; `bonus_multiplier` None when not eligible."""
    rating, expected, bonus = standard_values(r0, list(opponents), score, k, bonus_multiplier)
    return StandardResult(rating, k, expected, score, bonus)


def standard_values(
    r0: float,
    opponents: list[float],
    score: float,
    k: float,
    bonus_multiplier: float | None,
) -> tuple[float, float, float]:
    """`standard_rating`'s rating, E and bonus, as a plain tuple (the kernel's, per player)."""
    expected = 0.0
    for ri in opponents:
        expected += 1.0 / (1.0 + math.pow(10.0, (ri - r0) / 400.0))  # compiled: C's pow
    change = k * (score - expected)
    bonus = 0.0
    if bonus_multiplier is not None:
        # §4.2: bonus = max(0, K(S − E) − B√m'), m' = max(m, 4)
        m = len(opponents)
        m_prime = float(m if m > 4 else 4)  # compiled: a native float, for the native sqrt
        bonus = change - bonus_multiplier * math.sqrt(m_prime)
        if bonus < 0.0:
            bonus = 0.0
    return r0 + change + bonus, expected, bonus
