"""FIDE 8.2 and 7.1.4 (2022 and 2024 texts): the initial rating of an unrated player.

An unrated player's results against rated opponents are pooled, event by event, until a list
can publish a rating: at least 5 games against rated opponents (7.1.4), from events "within
consecutive rating periods of not more than 26 months", and a rating of at least the list's
floor (1000 in 2022, 1400 from 2024).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from ledger.rules.fide.tables import dp, percentage
from ledger.rules.fide.versions import FideVersion
from ledger.rules.rounding import round_half_up

HYPOTHETICAL = 1800  # 8.2.2 (2024): "two hypothetical opponents rated 1800"
HYPOTHETICAL_GAMES = 2  # "The result against these two hypothetical opponents is ... a draw."


class PoolEvent(NamedTuple):
    """One event's games against rated opponents: (opponent's rating, own score)."""

    end: date
    results: tuple[tuple[float, float], ...]

    @property
    def score(self) -> float:
        return sum(s for _, s in self.results)


@dataclass(frozen=True)
class InitialRating:
    """8.2: Ra, p, dp and Ru over the pooled games; `published` (7.1.4) or the reason not."""

    games: int
    score: float
    ra: float | None
    p: float | None
    dp: int | None
    ru: int | None
    published: int | None
    reason: str | None


def months_before(day: date, months: int) -> date:
    """The same day `months` earlier (the month's last day where it is shorter)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    month += 1
    for last in (31, 30, 29, 28):
        try:
            return date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise ValueError(f"no day {months} months before {day}")


def pooled(
    version: FideVersion, events: Sequence[PoolEvent], as_of: date | None
) -> list[PoolEvent]:
    """8.2.1: "If an unrated player scores zero in their first event this score is
    disregarded"; 7.1.4: only events within 26 months before the list (`as_of`) are pooled."""
    kept = [e for e in events if e.results]
    if kept and kept[0].score == 0:
        kept = kept[1:]
    if as_of is not None and version.pool_months is not None:
        since = months_before(as_of, version.pool_months)
        kept = [e for e in kept if e.end >= since]
    return kept


def none_pooled(version: FideVersion, events: Sequence[PoolEvent]) -> str:
    """Why no game is pooled: none against a rated opponent, 8.2.1's disregarded first event,
    or 7.1.4's window."""
    played = [e for e in events if e.results]
    if not played:
        return "no games against rated opponents"
    if len(played) == 1:
        return "8.2.1: a score of zero in the first event is disregarded"
    return f"7.1.4: no games against rated opponents within {version.pool_months} months"


def initial_rating(
    version: FideVersion, events: Sequence[PoolEvent], as_of: date | None = None
) -> InitialRating:
    """8.2.2–8.2.3 over the pooled games, and whether 7.1.4 lets a list publish it."""
    results = [r for e in pooled(version, events, as_of) for r in e.results]
    n = len(results)
    score = sum(s for _, s in results)
    if n == 0:
        return InitialRating(0, 0.0, None, None, None, None, None, none_pooled(version, events))
    total = sum(r for r, _ in results)
    if version.initial == "8.2-2024":
        ra = (total + HYPOTHETICAL * HYPOTHETICAL_GAMES) / (n + HYPOTHETICAL_GAMES)  # 8.2.2
        p = percentage(score + HYPOTHETICAL_GAMES / 2, n + HYPOTHETICAL_GAMES)
        difference = dp(p)  # 8.2.3: "Ru = Ra + dp"
        ru = round_half_up(ra + difference)  # "Ru is rounded to the nearest whole number."
    else:
        ra = total / n  # 8.2.2 (2022): "the average rating of the player's rated opponents"
        p = percentage(score, n)
        if 2 * score > n:  # 8.2.3 (2022): "Ru = Ra + 20 for each half point scored over 50%"
            assert version.above_half is not None  # 12.5 (2009), 15 (2011), 20 (2014, 2022)
            difference = round_half_up(version.above_half * (2 * score - n))
        else:
            difference = dp(p) if 2 * score < n else 0  # "If the player scores 50%, Ru = Ra"
        ru = round_half_up(ra + difference)
    if version.max_initial is not None:
        ru = min(ru, version.max_initial)  # 8.2.3: "The maximum initial rating is 2200."
    reason: str | None = None
    if n < version.minimum_games:
        reason = f"7.1.4: {n} games against rated opponents, at least {version.minimum_games}"
    elif ru < version.floor:
        reason = f"7.1.4: initial rating {ru} below {version.floor}"
    published = None if reason else ru
    return InitialRating(n, score, ra, p / 100, difference, ru, published, reason)
