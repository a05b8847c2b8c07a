"""FIDE 10.2–10.4: the rating of a previously unrated player."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ledger.rules.fide.tables import dp, percentage
from ledger.rules.rounding import round_half_up, round_to_nearest

# 10.31 / 10.32: "less than 2005 ... is ignored"; "Only Rn >= 2005 are considered".
MINIMUM = 2005
# B.02 9.14b (the same Handbook chapter as 10.0): "a minimum of 9 games played against rated
# opponents" before a rating for a player new to the list is published.
MINIMUM_GAMES = 9
# 10.4: "entered on the FRL at 2200 (2050 for players in the Women's Olympiad)".
OLYMPIAD_ENTRY = 2200
WOMENS_OLYMPIAD_ENTRY = 2050


class Performance(NamedTuple):
    """One Ru result and the number of games it is over (10.3)."""

    rating: float
    games: int


def tournament_average(rar: float, dpa: float, opponents: int) -> int:
    """10.21b: Ra = Rar − dpa × n/(n+1), rounded to a whole number as in the 10.68 example."""
    return round_half_up(rar - dpa * opponents / (opponents + 1))


def performance(
    rc: float | int, score: float, games: int, opponents: int | None = None
) -> float | int:
    """Ru (10.22–10.25); `opponents` is n in a round robin (10.25), None otherwise (10.24).
    An int Rc (a round robin's Ra, 10.21b) gives an int Ru by 10.22 and 10.24."""
    half_points_over = 2 * score - games
    if half_points_over == 0:
        return rc  # 10.22: Ru = Rc
    if half_points_over > 0:
        return rc + 12.5 * half_points_over  # 10.23: Rc + 12.5 per half point over 50%
    difference = dp(percentage(score, games))
    if opponents is None:
        return rc + difference  # 10.24: Ru = Rc + dp
    return rc + difference * opponents / (opponents + 1)  # 10.25: Rc + dp × n/(n+1)


def counted_performances(performances: Iterable[Performance]) -> list[Performance]:
    """10.31: leading performances under 2005 are ignored; games-less results carry no weight."""
    kept: list[Performance] = []
    for p in performances:
        if p.games > 0 and (kept or p.rating >= MINIMUM):
            kept.append(p)
    return kept


def new_rating(performances: Iterable[Performance]) -> float | None:
    """10.3: Rn = the game-weighted average of the counted Ru results; None when there are none."""
    kept = counted_performances(performances)
    games = sum(p.games for p in kept)
    if games == 0:
        return None
    return sum(p.rating * p.games for p in kept) / games


def published_rating(
    performances: Iterable[Performance], minimum_games: int = MINIMUM_GAMES
) -> int | None:
    """10.32: Rn rounded to the nearest 5, published only when Rn >= 2005 and (9.14b) over at
    least 9 games (`minimum_games` 0: an Olympiad qualifier's performance, 10.4)."""
    kept = counted_performances(performances)
    rn = new_rating(kept)
    if rn is None or rn < MINIMUM or sum(p.games for p in kept) < minimum_games:
        return None
    return round_to_nearest(rn, 5)


def olympiad_qualified(scores: Sequence[float], rounds: int) -> bool:
    """10.4/10.41: after some round he has played ≥ 50% of the rounds and scored ≥ 50%.

    `scores` are his game results in round order; 10.41 lets him ignore the games after the
    round where he qualified.
    """
    total = 0.0
    for played, score in enumerate(scores, start=1):
        total += score
        if 2 * played >= rounds and 2 * total >= played:
            return True
    return False


def olympiad_entry(womens: bool) -> int:
    """10.4: the rating a qualifying unrated Olympiad player is entered at, at least."""
    return WOMENS_OLYMPIAD_ENTRY if womens else OLYMPIAD_ENTRY
