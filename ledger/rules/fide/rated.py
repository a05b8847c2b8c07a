"""FIDE 10.6: the rating change of a rated player."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ledger.rules.fide.tables import pd_hundredths
from ledger.rules.rounding import round_half_up

# 10.61: "A difference in rating of more than 350 points will be counted ... as 350 points".
MAX_DIFFERENCE = 350
# 10.641: K = 25 "until he has completed events with a total of at least 30 games".
NEW_PLAYER_GAMES = 30
# 10.641: K = 10 "once a player's published rating has reached 2400".
K_10_RATING = 2400


def capped(opponent: float, own: float) -> float:
    """10.61: an opponent more than 350 points away counts as exactly 350 points away."""
    return min(max(opponent, own - MAX_DIFFERENCE), own + MAX_DIFFERENCE)


def cap_adjustment(own: float, opponents: Sequence[float]) -> float:
    """10.61: what the 350-point rule adds to Rc, per game: Σ(capped − actual)/n."""
    return sum(capped(r, own) - r for r in opponents) / len(opponents)


def round_robin_competition(ra: float, own: float, opponents: int) -> float:
    """10.61: in a round robin, Rc = (Ra(n+1) − R)/n."""
    return (ra * (opponents + 1) - own) / opponents


def reaches_k_10(published: float) -> bool:
    """10.641: a published rating of 2400 or more sets K to 10 for good."""
    return published >= K_10_RATING


def k_factor(rating: float, games: int, reached_2400: bool) -> int:
    """10.641: K from the games completed before this section and the published rating."""
    if games < NEW_PLAYER_GAMES:
        return 25  # "K = 25 for a player new to the rating list until ... 30 games"
    if reached_2400 or rating >= K_10_RATING:
        return 10  # "once a player's published rating has reached 2400 ... permanently at 10"
    return 15  # "K = 15 as long as a player's rating remains under 2400"


def expected_score(pd_hundredths: int, games: int) -> float:
    """10.64: We = PD × n."""
    return pd_hundredths * games / 100


def rating_change(k: int, score: float, pd_hundredths: int, games: int) -> float:
    """10.64: ΔR = K(W − We), computed in hundredths so that PD × n is exact."""
    return k * (score * 100 - pd_hundredths * games) / 100


class Change(NamedTuple):
    """10.61–10.64 for a rated player in one section: ΔR and every value behind it."""

    rc_before_cap: float
    rc: float
    d: float
    pd_hundredths: int
    expected: float
    k: int
    change: float


def section_change(
    rating: float, k: int, rc_before_cap: float, opponents: Sequence[float], score: float
) -> Change:
    """10.61–10.64: ΔR of a player rated `rating` who scored `score` against `opponents`."""
    games = len(opponents)
    rc = rc_before_cap + cap_adjustment(rating, opponents)  # 10.61: 350-point rule
    d = rating - rc  # 10.63: D = R − Rc
    pd = pd_hundredths(d)
    change = rating_change(k, score, pd, games)  # 10.64: ΔR = K(W − We)
    return Change(rc_before_cap, rc, d, pd, expected_score(pd, games), k, change)


def period_sum(changes: Iterable[float]) -> float:
    """10.65: ΣΔR, correctly rounded (math.fsum), so the sections' order cannot change it."""
    return math.fsum(changes)


def period_rating(old: float, changes: Iterable[float]) -> int:
    """10.65/10.66: Rn = Ro + ΣΔR over the period's sections, rounded to the nearest 1."""
    return round_half_up(old + period_sum(changes))
