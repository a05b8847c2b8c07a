"""FIDE 8.56 (2009–2021 texts) and 8.3.3 (2022, 2024): the development coefficient K and the
K × n limit."""

from __future__ import annotations

from datetime import date

from ledger.rules.fide.versions import FideVersion

NEW_PLAYER_GAMES = 30  # 8.3.3: "until they have completed events with at least 30 games"
TOP_RATING = 2400  # 8.3.3: "once a player's published rating has reached 2400"
JUNIOR_AGE = 18  # 8.3.3: "until the end of the year of their 18th birthday"


def is_junior(version: FideVersion, birth: date | None, day: date) -> bool:
    """Whether K may be the junior K on `day` (the section's end).

    8.56 (from 1 July 2014): "until their 18th birthday" (the day before it, the last);
    8.3.3 (2022, 2024): "until the end of the year of their 18th birthday" (31 December)."""
    if birth is None or version.junior_until is None:
        return False
    if version.junior_until == "year-of-18th-birthday":
        return day.year - birth.year <= JUNIOR_AGE
    return (day.year, day.month, day.day) < (birth.year + JUNIOR_AGE, birth.month, birth.day)


def k_factor(
    version: FideVersion,
    rating: float,
    games: int,
    reached_2400: bool,
    birth: date | None,
    day: date,
    listed_k: int | None = None,
) -> int:
    """8.56 / 8.3.3, in this order (docs/decisions.md): K = 10 once a published rating reached
    2400 ("even if the rating drops below 2400"); 40 for a junior "as long as their rating
    remains under 2300"; K new "until they have completed events with at least 30 games"; K
    mid "as long as a player's rating remains under 2400". `rating` is his rating on the list,
    published, so 2400 there has "reached 2400" too. Under 10.0 and fide-2009 (`new_first`) the
    new player's K comes first (10.641's order: 10 needs 2400 and 30 games).

    `listed_k`: his K on FIDE's list (issue 30), telling what the ledger cannot: without a
    birth date, a listed junior K makes him a junior; a listed K other than the new player's
    says he has completed his first 30 games (docs/decisions.md, "FIDE's K column")."""
    new = games < NEW_PLAYER_GAMES and listed_k in (None, version.k_new)
    if version.new_first and new:
        return version.k_new
    if reached_2400 or rating >= TOP_RATING:
        return version.k_top
    junior = is_junior(version, birth, day) if birth else listed_k == version.k_junior
    if (
        version.k_junior is not None
        and version.junior_below is not None
        and junior
        and rating < version.junior_below
    ):
        return version.k_junior
    if new:
        return version.k_new
    return version.k_mid


def limited_k(version: FideVersion, k: int, games: int) -> int:
    """8.3.3: "If the number of games (n) for a player on any list for a rating period
    multiplied by K ... exceeds 700, then K shall be the largest whole number such that
    K x n does not exceed 700." """
    if version.k_times_n is None or games == 0 or k * games <= version.k_times_n:
        return k
    return version.k_times_n // games
