"""FIDE rating periods: 10.65 for rated players, 10.3 across lists for unrated ones.

A period is what lies between two consecutive published lists (`ledger.rules.rating_lists`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ledger.rules.fide.rated import Change, k_factor, period_rating, period_sum, section_change
from ledger.rules.fide.unrated import (
    MINIMUM_GAMES,
    Performance,
    counted_performances,
    new_rating,
    published_rating,
)


class Tournament(NamedTuple):
    """A rated player's games in one section of the period, each opponent at his list rating.

    `competition` is Rc before the 350-point rule where it is not the opponents' average: in a
    round robin (10.61) "Ra (n+1) − R over n", with R the player's list rating.
    """

    opponents: tuple[float, ...]
    score: float
    competition: float | None = None


@dataclass(frozen=True)
class RatedPeriod:
    """10.65: each tournament's change from Ro, their sum and the rating on the next list."""

    list_rating: float
    k: int
    changes: tuple[Change, ...]
    total: float
    rating: float
    official: int


@dataclass(frozen=True)
class FirstRating:
    """10.3: an unrated player's counted Ru results so far, Rn, and the rating published (or
    None: his results carry on to the next list)."""

    counted: tuple[Performance, ...]
    rating: float | None
    published: int | None


def rate_period(
    list_rating: float,
    tournaments: Sequence[Tournament],
    *,
    games: int,
    reached_2400: bool = False,
) -> RatedPeriod:
    """10.65: Rn = Ro + ΣΔR, every tournament of the period rated from Ro = `list_rating`.

    K (10.641) is the same for the whole period: from the list rating, the rated `games`
    completed before the period and whether his published rating has reached 2400.
    """
    for i, t in enumerate(tournaments):
        if not t.opponents or not 0 <= t.score <= len(t.opponents):
            raise ValueError(f"tournament {i}: needs games and a score from 0 to their number")
    k = k_factor(list_rating, games, reached_2400)
    changes = tuple(
        section_change(
            list_rating,
            k,
            sum(t.opponents) / len(t.opponents) if t.competition is None else t.competition,
            t.opponents,
            t.score,
        )
        for t in tournaments
    )
    total = period_sum(c.change for c in changes)
    return RatedPeriod(
        list_rating=list_rating,
        k=k,
        changes=changes,
        total=total,
        rating=list_rating + total,
        official=period_rating(list_rating, (c.change for c in changes)),  # 10.66
    )


def first_rating(performances: Sequence[Performance], at_least: int | None = None) -> FirstRating:
    """10.3/10.31/10.32: all Ru results of a player unrated until now, over every period since
    his first, in rating order; the rating published on this list, if any.

    `at_least`: the Olympiad entry rating (10.4) when he qualified in one of them.
    """
    counted = tuple(counted_performances(performances))
    rn = new_rating(counted)
    minimum = 0 if at_least is not None else MINIMUM_GAMES  # 10.4 qualifiers: their games
    published = published_rating(counted, minimum_games=minimum)
    if at_least is not None and (published is None or published < at_least):
        published = at_least  # 10.4: "unless that player's performance qualifies for a higher"
    return FirstRating(counted, rn, published)
