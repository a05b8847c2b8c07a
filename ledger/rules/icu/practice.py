"""The ICU rating system as applied from 1999, algorithm versions 1.0–1.3 (`icu-1999` …).

ICU Rating Calculations (Mark Orr, icu.ie, 2008): "the current ICU rating system (implemented by
Ray O'Brien and in operation since 1999)". Improvements to the ICU Rating Algorithm
(ratings.icu.ie/articles/18): "The algorithm used by the ICU to perform rating calculations
remained unchanged between 1999-2012 ... The old algorithm is deemed to be version 1.0."; the
later versions change only the parameters in `ledger.rules.icu.algorithm`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

from ledger.rules.expectancy import winning_expectancy as game_expectancy
from ledger.rules.fide.section import PlayerOutcome, SectionOutcome, not_rated, results_by_player
from ledger.rules.icu.algorithm import V1_0, Algorithm
from ledger.rules.icu.bonus import bonus
from ledger.rules.icu.k_factor import k_on
from ledger.rules.icu.provisional import FULL_GAMES, Results, game_performance, iterate
from ledger.rules.icu.section import Player, Section
from ledger.rules.rounding import round_half_up

RULES = "icu-1999"
# K-factors (ratings.icu.ie/articles/10): "If date of birth is unknown it defaults to
# 1950-01-01. If join date is unknown ... it defaults to 1975-01-01."
DEFAULT_BORN = date(1950, 1, 1)
DEFAULT_STARTED = date(1975, 1, 1)
# No published ICU rating is negative; the articles are silent (docs/decisions.md).
FLOOR = 0.0
# Unrated or Provisionally Rated Opponents (articles/17), "The Solution": "the start ratings for
# players with full ratings (including foreign players) are held fixed".
FOREIGN = "foreign player: his fixed rating is held, never updated"


@dataclass(frozen=True)
class IcuOutcome(PlayerOutcome):
    """A PlayerOutcome plus the bonus and a full-rated player's tournament performance."""

    bonus: float | None = None
    tournament_performance: float | None = None


def is_full(player: Player) -> bool:
    """A full rating: "20 or more games" (Basic Rating Formulae)."""
    return player.rating is not None and player.rated_games >= FULL_GAMES


def rate_section(
    section: Section, algorithm: Algorithm = V1_0, rules: str = RULES
) -> SectionOutcome:
    """Rate one section as the ICU did: iterate provisional ratings, Elo, bonuses, re-rate."""
    results = results_by_player([p.id for p in section.players], section.games)
    fixed = {p.id: float(p.rating) for p in section.players if p.foreign and p.rating is not None}
    full = {
        p.id: float(p.rating)
        for p in section.players
        if is_full(p) and p.rating is not None and not p.foreign
    }
    held = {**fixed, **full}
    prior = {p.id: (p.rated_games, p.rating) for p in section.players if p.id not in held}
    k = {
        p.id: k_on(
            full[p.id],
            p.born or DEFAULT_BORN,
            p.started or DEFAULT_STARTED,
            section.start,
            above_only=True,  # the rating database: every old rating of exactly 2100 had K > 16
        )
        for p in section.players
        if p.id in full
    }
    # Unrated or Provisionally Rated Opponents: "setting the start ratings of unrated or
    # provisionally rated players to their new ratings at the end of the tournament".
    performance = iterate(results, held, prior, algorithm.threshold, algorithm.first_sweeps)
    seen = held
    change = _changes(results, full, k, seen, performance)
    bonuses = _bonuses(results, full, k, change, seen, performance)
    elo = (seen, performance)  # what the full-rated players' changes were computed against
    if any(bonuses.values()):
        seen, change, performance, bonuses, elo = _re_rate(
            results, full, held, prior, k, change, bonuses, performance, algorithm
        )
    outcomes = []
    for player in section.players:
        pid = player.id
        against = elo if pid in full else (seen, performance)
        faced = _opponents(results[pid], *against)
        who = tuple(o for o, _ in results[pid] if o in against[0] or o in against[1])
        if not faced or pid not in performance:
            outcomes.append(not_rated(pid, player.rating))
        elif pid in fixed:
            outcomes.append(replace(not_rated(pid, player.rating), reason=FOREIGN))
        elif pid in full:
            outcome = _full(
                player, full[pid], change[pid], bonuses[pid], k[pid], faced, performance[pid]
            )
            outcomes.append(replace(outcome, opponents=who, results=tuple(faced)))
        else:
            outcome = _provisional(player, performance[pid], faced)
            outcomes.append(replace(outcome, opponents=who, results=tuple(faced)))
    return SectionOutcome(rules, True, tuple(outcomes))


Ratings = dict[str, float]


def _re_rate(
    results: Results,
    full: dict[str, float],
    held: dict[str, float],
    prior: dict[str, tuple[int, float | None]],
    k: dict[str, int],
    change: dict[str, float],
    bonuses: dict[str, float],
    performance: dict[str, float],
    algorithm: Algorithm,
) -> tuple[Ratings, Ratings, Ratings, Ratings, tuple[Ratings, Ratings]]:
    """Bonus Points, "Compensating Opponents": "the tournament is re-rated from scratch with one
    difference: ... any players who received a bonus start with their post-tournament ratings
    (including bonuses) from the initial calculation." Returns the ratings the provisional
    players were estimated against, the changes, the performances, the bonuses and the ratings
    and estimates the changes were computed against."""
    seen = {p: r + change[p] + bonuses[p] if bonuses.get(p) else r for p, r in held.items()}
    change = _changes(results, full, k, seen, performance)
    elo = (seen, performance)
    if algorithm.update_bonuses:  # 1.2: a receiver counts at start + bonus + re-rated change
        seen = {
            p: full[p] + bonuses[p] + change[p] if bonuses.get(p) else r for p, r in seen.items()
        }
    performance = iterate(
        results, seen, prior, algorithm.threshold, algorithm.second_sweeps, performance
    )
    if algorithm.phase_2_bonuses:
        # Version 1.0 awarded bonuses again after the re-rating; a player who no longer
        # qualifies keeps the first one (the ICU's program, docs/decisions.md).
        again = _bonuses(results, full, k, change, seen, performance)
        bonuses = {p: again[p] or bonuses[p] for p in full}
    return seen, change, performance, bonuses, elo


Faced = list[tuple[float, float]]


def _opponents(
    games: Sequence[tuple[str, float]], seen: Mapping[str, float], estimates: Mapping[str, float]
) -> Faced:
    """(opponent rating, own score) for each game whose opponent has a rating or estimate."""
    known = [(seen.get(o, estimates.get(o)), s) for o, s in games]
    return [(r, s) for r, s in known if r is not None]


def _changes(
    results: Results,
    full: dict[str, float],
    k: dict[str, int],
    seen: dict[str, float],
    performance: dict[str, float],
) -> dict[str, float]:
    """K × (A − E) for every full-rated player, opponents at the ratings `seen` or estimated."""
    return {
        p: sum(
            k[p] * (s - game_expectancy(r, o)) for o, s in _opponents(results[p], seen, performance)
        )
        for p, r in full.items()
    }


def _bonuses(
    results: Results,
    full: dict[str, float],
    k: dict[str, int],
    change: dict[str, float],
    seen: dict[str, float],
    performance: dict[str, float],
) -> dict[str, float]:
    """Each full-rated player's bonus (0 if none) from his change and tournament performance."""
    return {
        p: bonus(r, change[p], k[p], len(_opponents(results[p], seen, performance)), performance[p])
        if p in performance
        else 0
        for p, r in full.items()
    }


def _full(
    player: Player,
    pre: float,
    change: float,
    points: float,
    k: int,
    faced: Faced,
    performance: float,
) -> IcuOutcome:
    """Basic Rating Formulae, "Elo Formulae": R = Ro + K × (A − E); plus any bonus."""
    post = max(pre + change + points, FLOOR)
    return IcuOutcome(
        player=player.id,
        pre=pre,
        post=post,
        official=round_half_up(post),
        rating_change=post - pre,
        games=len(faced),
        score=sum(s for _, s in faced),
        rc=sum(r for r, _ in faced) / len(faced),
        expected=sum(game_expectancy(pre, r) for r, _ in faced),
        k=k,
        bonus=points,
        tournament_performance=performance,
    )


def _provisional(player: Player, rating: float, faced: Faced) -> IcuOutcome:
    """The average of all per-game performances so far."""
    post = max(rating, FLOOR)
    official = round_half_up(post)
    return IcuOutcome(
        player=player.id,
        pre=player.rating,
        post=post,
        official=official,
        rating_change=None if player.rating is None else post - player.rating,
        performance=post,
        published_rating=official,
        games=len(faced),
        score=sum(s for _, s in faced),
        rc=sum(r for r, _ in faced) / len(faced),
        provisional=player.rated_games + len(faced) < FULL_GAMES,
        tournament_performance=sum(game_performance(r, s) for r, s in faced) / len(faced),
    )
