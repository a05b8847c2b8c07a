"""ICU practice for unrated and provisional players: averaged per-game performances, iterated.

ICU Rating Calculations (Mark Orr, icu.ie, 2008), "Unrated Players": "Their rating after the
tournament is their average performance rating for all the games they have played up to and
including the tournament. If the opponent's rating is R, then the performance rating for one
game is R for a draw, R + 400 for a win and R - 400 for a loss."
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# Basic Rating Formulae (ratings.icu.ie/articles/16): full ratings are "20 or more games".
FULL_GAMES = 20
# Per-game performance: "R + 400 for a win and R - 400 for a loss".
WIN_MARGIN = 400.0

Results = Mapping[str, Sequence[tuple[str, float]]]


def game_performance(opponent: float, score: float) -> float:
    """R + 400 for a win, R for a draw, R − 400 for a loss."""
    return opponent + (2 * score - 1) * WIN_MARGIN


def average_performance(
    performances: Sequence[float], prior_games: int = 0, prior_rating: float | None = None
) -> float:
    """The average over all games so far: the earlier games weigh in as games × rating."""
    prior = 0.0 if prior_rating is None else prior_games * prior_rating
    return (sum(performances) + prior) / (len(performances) + prior_games)


def _sweep(
    results: Results,
    fixed: Mapping[str, float],
    prior: Mapping[str, tuple[int, float | None]],
    current: Mapping[str, float],
) -> dict[str, float]:
    """One pass: each player's average against the opponents who have a rating or estimate."""
    estimates = {}
    for pid, games in results.items():
        known = [(fixed.get(o, current.get(o)), s) for o, s in games]
        performances = [game_performance(r, s) for r, s in known if r is not None]
        if performances:
            estimates[pid] = average_performance(performances, *prior.get(pid, (0, None)))
    return estimates


def iterate(
    results: Results,
    fixed: Mapping[str, float],
    prior: Mapping[str, tuple[int, float | None]],
    threshold: float,
    max_sweeps: int,
    start: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Every player's performance, estimates fed back until no estimate moves by `threshold`.

    `fixed`: the ratings full-rated players count at for their opponents (held fixed).
    `prior`: (games, rating) of each provisional player before the tournament.
    Unrated or Provisionally Rated Opponents (ratings.icu.ie/articles/17), "The Solution": "The
    new ratings calculated for unrated and provisionally rated players in one iteration provide
    their start ratings for the next iteration while the start ratings for players with full
    ratings ... are held fixed. If the new estimates are not significantly different from the
    previous estimates then an acceptable solution has been found and the iteration halts."
    """
    current = dict(start or {})
    for _ in range(max_sweeps):
        estimates = _sweep(results, fixed, prior, current)
        stable = estimates.keys() == current.keys() and all(
            abs(estimates[p] - current[p]) < threshold for p in estimates
        )
        current = {**current, **estimates}
        if stable:
            return current
    if max_sweeps > 1:
        raise ValueError(f"performance estimates did not converge in {max_sweeps} iterations")
    return current
