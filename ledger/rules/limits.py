"""What the read side accepts as a stored value: bounds past which an entry is not rated.

No rating text sets these; they keep a poisoned entry (NaN, 1e300, year 1, round 10^12) from
breaking a read. An entry outside them becomes a "not rated" problem row (docs/decisions.md).
"""

from __future__ import annotations

import math

MAX_RATING = 10_000.0  # every scale in the ledger (US Chess, FIDE, ICU) stays far below this
MAX_GAMES = 10_000_000  # a player's N
MAX_ROUND = 1_000_000  # a game's round number
MAX_AMOUNT = 1e12  # a money-floor prize
FIRST_YEAR, LAST_YEAR = 1800, 2199
# YYYY-MM-DD with the year in FIRST_YEAR..LAST_YEAR (the day itself is checked when parsed)
DATE_PATTERN = r"^(1[89]|2[01])\d\d-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"


def plausible_rating(value: float | None) -> bool:
    """A rating the read model can store: None (unrated) or finite in 0..MAX_RATING."""
    return value is None or (isinstance(value, int | float) and 0.0 <= value <= MAX_RATING)


MAX_PARAMETER = 1e6  # any number in a rules amendment's value
MAX_BONUS_MULTIPLIER = 100.0  # §4.2's B (14, 10, 6 in the texts)


def plausible_parameter(value: object, name: str | None = None) -> bool:
    """Every number in an amendment's value finite and within ±MAX_PARAMETER (a bonus
    multiplier within MAX_BONUS_MULTIPLIER)."""
    if name == "bonus_multiplier" and isinstance(value, int | float):
        return math.isfinite(value) and abs(value) <= MAX_BONUS_MULTIPLIER
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return math.isfinite(value) and abs(value) <= MAX_PARAMETER
    if isinstance(value, dict):
        return all(plausible_parameter(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(plausible_parameter(v) for v in value)
    return True


def finite_numbers(value: object) -> bool:
    """True when every number in a JSON-like value is finite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(finite_numbers(v) for v in value)
    return True
