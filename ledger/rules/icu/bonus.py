"""ICU bonus points for full-rated players who perform well above expectation.

Bonus Points (ratings.icu.ie/articles/12), "Awarding Bonus Points".
"""

from __future__ import annotations

from ledger.rules.rounding import round_half_up

# "a K-factor of 32 or 40"
BONUS_K = (32, 40)
# "at least 5 rated games in the tournament"
MIN_GAMES = 5
# "the initial calculation ... of the post-tournament rating must be less than 2100"
CEILING = 2100
# "If the new post-tournament rating exceeds either 2099 or the player's tournament performance
# rating then it is reduced to whatever is the lowest of the two."
CAP = 2099
# "the player's pre-tournament rating, plus 32, plus 3 for each game after the fourth"
BASE, PER_GAME, FREE_GAMES = 32, 3, 4
# "If the player's K-factor is 40 (as opposed to 32) then the bonus is increased by 25%."
JUNIOR_K, JUNIOR_FACTOR = 40, 1.25


def threshold(pre: float, games: int) -> float:
    """Pre-tournament rating + 32 + 3 for each game after the fourth."""
    return pre + BASE + PER_GAME * (games - FREE_GAMES)


def bonus(pre: float, change: float, k: int, games: int, performance: float) -> float:
    """The bonus added to `pre + change` (0 when not awarded).

    Whole points as the article's example rounds them ("(1975 − 1953) × 1.25 = 28"): the excess
    over the threshold is rounded, then the 25 % increase. A capped bonus brings the rating to
    the cap exactly.
    """
    post = pre + change
    if k not in BONUS_K or games < MIN_GAMES or not threshold(pre, games) < post < CEILING:
        return 0
    points = round_half_up(post - threshold(pre, games))
    if k == JUNIOR_K:
        points = round_half_up(JUNIOR_FACTOR * points)
    cap = min(CAP, performance)
    if post + points > cap:
        return max(cap - post, 0)
    return points
