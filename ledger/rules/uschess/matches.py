"""Rated individual matches (§7 "Individual matches are rated with the following restrictions")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from ledger.rules.rounding import round_half_up
from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.floor_levels import ABSOLUTE_FLOOR, MATCH_FLOOR_LOWERING
from ledger.rules.uschess.standard_formula import k_factor, standard_rating
from ledger.rules.uschess.systems import System, is_established
from ledger.rules.uschess.versions import RuleVersion

MAX_RATING_DIFFERENCE = 400  # §7: "the difference in ratings not to exceed 400 points"
MATCH_LIMIT = 50.0  # §7: "The maximum rating change in a match is 50 points"
SHORT_WINDOW_DAYS = 180  # §7: "the maximum net rating change in 180 days ... is 100 points"
SHORT_WINDOW_LIMIT = 100.0
LONG_WINDOW_YEARS = 3  # §7: "the maximum net rating change in 3 years ... is 200 points"
LONG_WINDOW_LIMIT = 200.0


@dataclass(frozen=True)
class MatchPlayer:
    """One player before a match: published rating, games N, floor, earlier match changes."""

    rating: float
    games: int
    floor: int = ABSOLUTE_FLOOR
    prior_match_changes: tuple[tuple[date, float], ...] = ()


@dataclass(frozen=True)
class FloorLoweringRequest:
    """§7: a match result below the floor is a request to lower the floor by 100."""

    old_floor: int
    new_floor: int
    rating_if_granted: float


@dataclass(frozen=True)
class MatchPlayerResult:
    """Every value in one player's match rating; `rating` applies unless a request is granted."""

    pre_rating: float
    games_before: int
    n_eff: float
    m: int
    k: float
    expected: float
    score: float
    raw_change: float
    after_match_limit: float
    net_180_days_before: float
    after_180_day_limit: float
    net_3_years_before: float
    after_3_year_limit: float
    limits_applied: tuple[str, ...]
    change: float
    rating: float
    games_after: int
    floor_request: FloorLoweringRequest | None


@dataclass(frozen=True)
class RatedMatch:
    first: MatchPlayerResult
    second: MatchPlayerResult


@dataclass(frozen=True)
class NotRateable:
    reason: str


def refusal(first: MatchPlayer, second: MatchPlayer) -> str | None:
    """§7 restriction 1: both established, published ratings at most 400 apart."""
    for label, player in (("first", first), ("second", second)):
        if not is_established(player.games):
            return f"the {label} player has no established rating ({player.games} games)"
    difference = abs(round_half_up(first.rating) - round_half_up(second.rating))
    if difference > MAX_RATING_DIFFERENCE:
        return f"the ratings differ by {difference} points, more than {MAX_RATING_DIFFERENCE}"
    return None


def three_years_before(on: date) -> date:
    """The same calendar day three years earlier (February 29 becomes February 28)."""
    try:
        return on.replace(year=on.year - LONG_WINDOW_YEARS)
    except ValueError:
        return on.replace(year=on.year - LONG_WINDOW_YEARS, day=on.day - 1)


def net_change(changes: Iterable[tuple[date, float]], after: date, on: date) -> float:
    """Sum of match changes dated after `after` and on or before `on`."""
    return sum((change for day, change in changes if after < day <= on), 0.0)


def within_net_limit(change: float, net: float, limit: float) -> float:
    """Clamp `change` so |net + change| ≤ limit; a net already past it may only shrink."""
    upper = max(0.0, limit - net)
    lower = min(0.0, -limit - net)
    return min(max(change, lower), upper)


def _rate_player(
    player: MatchPlayer,
    opponent: MatchPlayer,
    score: float,
    m: int,
    on: date,
    dual_rated: bool,
) -> MatchPlayerResult:
    n_eff = effective_games(player.games, player.rating)
    # §4.2: K = 800/(N' + m) (or the dual-rated K); §7 restriction 3: no bonus in matches.
    k = k_factor(n_eff, m, player.rating, dual_rated)
    standard = standard_rating(player.rating, [opponent.rating] * m, score, k, None)
    raw = standard.rating - player.rating
    limits: list[str] = []
    # §7: "The maximum rating change in a match is 50 points"
    capped = max(-MATCH_LIMIT, min(MATCH_LIMIT, raw))
    if capped != raw:
        limits.append("match")
    # §7: "the maximum net rating change in 180 days due to match play is 100 points"
    short_net = net_change(player.prior_match_changes, on - timedelta(days=SHORT_WINDOW_DAYS), on)
    short = within_net_limit(capped, short_net, SHORT_WINDOW_LIMIT)
    if short != capped:
        limits.append("180 days")
    # §7: "the maximum net rating change in 3 years due to match play is 200 points"
    long_net = net_change(player.prior_match_changes, three_years_before(on), on)
    long = within_net_limit(short, long_net, LONG_WINDOW_LIMIT)
    if long != short:
        limits.append("3 years")
    result = player.rating + long
    request = None
    if long < 0 and result < player.floor and player.floor > ABSOLUTE_FLOOR:
        # §7 restriction 4: the result is a request to lower the floor by 100.
        # Pending or granted, a loss never raises a rating that already was below the floor.
        new_floor = max(ABSOLUTE_FLOOR, player.floor - MATCH_FLOOR_LOWERING)
        granted = max(result, float(min(player.rating, new_floor)))
        request = FloorLoweringRequest(player.floor, new_floor, granted)
        rating = max(result, float(min(player.rating, player.floor)))
    else:
        rating = max(result, float(ABSOLUTE_FLOOR))
    return MatchPlayerResult(
        pre_rating=player.rating,
        games_before=player.games,
        n_eff=n_eff,
        m=m,
        k=k,
        expected=standard.expected,
        score=score,
        raw_change=raw,
        after_match_limit=capped,
        net_180_days_before=short_net,
        after_180_day_limit=short,
        net_3_years_before=long_net,
        after_3_year_limit=long,
        limits_applied=tuple(limits),
        change=long,
        rating=rating,
        games_after=player.games + m,
        floor_request=request,
    )


def rate_match(
    first: MatchPlayer,
    second: MatchPlayer,
    *,
    first_score: float,
    games: int,
    on: date,
    system: System,
    version: RuleVersion,
    dual_rated: bool = False,
) -> RatedMatch | NotRateable:
    """Rate a match of `games` games played on `on` in which `first` scored `first_score`."""
    if games < 1 or not 0 <= first_score <= games or (2 * first_score) % 1:
        raise ValueError(f"a score of {first_score} in {games} games is impossible")
    reason = refusal(first, second)
    if reason is not None:
        return NotRateable(reason)
    dual = dual_rated and system in version.dual_k_systems
    return RatedMatch(
        _rate_player(first, second, first_score, games, on, dual),
        _rate_player(second, first, games - first_score, games, on, dual),
    )
