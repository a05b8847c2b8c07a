"""ICU expected score: wg per game and We per section."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.rules.expectancy import winning_expectancy as game_expectancy  # wg per game


def expected_score(own: float, opponents: Iterable[float]) -> float:
    """We = w1 + w2 + …, the sum of the game expectancies."""
    return sum(game_expectancy(own, r) for r in opponents)
