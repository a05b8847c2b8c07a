"""ICU expected score: wg per game and We per section."""

from __future__ import annotations

from collections.abc import Iterable


def game_expectancy(own: float, opponent: float) -> float:
    """wg = 1/(1 + 10^(Rd/400)) with Rd = opponent's rating − own rating."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - own) / 400.0))


def expected_score(own: float, opponents: Iterable[float]) -> float:
    """We = w1 + w2 + …, the sum of the game expectancies."""
    return sum(game_expectancy(own, r) for r in opponents)
