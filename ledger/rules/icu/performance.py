"""ICU performance rating formula for new players in their provisional period."""

from __future__ import annotations

from collections.abc import Sequence

from ledger.rules.fide.tables import dp, percentage

# "When sufficient data accrues on their performances against rated players (20 games)".
PROVISIONAL_GAMES = 20


def performance_rating(opponents: Sequence[float], score: float) -> float:
    """Rp = Rc + Dp, Rc the average opponent rating, Dp from the FIDE p → dp table."""
    rc = sum(opponents) / len(opponents)
    return rc + dp(percentage(score, len(opponents)))


def provisional_rating(
    rating: float | None, games: int, performance: float, new_games: int
) -> float:
    """The game-weighted average of the earlier provisional rating and this Rp."""
    if rating is None or games == 0:
        return performance
    return (rating * games + performance * new_games) / (games + new_games)


def is_provisional(games: int) -> bool:
    """Whether a player with `games` games against rated players is still provisional."""
    return games < PROVISIONAL_GAMES
