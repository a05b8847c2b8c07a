"""Effective number of games N' (§3)."""

import math


def n_star(r0: float) -> float:
    """§3 equation (1): N* = 50/sqrt(0.662 + 0.00000739(2569 − R0)²) if R0 ≤ 2355, else 50."""
    if r0 > 2355:
        return 50.0
    return 50.0 / math.sqrt(0.662 + 0.00000739 * (2569.0 - r0) ** 2)


def effective_games(n: float | int, r0: float) -> float | int:
    """§3: N' is the smaller of N and N* (N itself, an int game count, when smaller)."""
    star = n_star(r0)
    return n if n < star else star
