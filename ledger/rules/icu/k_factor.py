"""ICU rating factor K, from rating, age and playing experience."""

from __future__ import annotations

from datetime import date

# "K = 16 where rating ≥ 2100"
K_RATING = 2100
# "K = 40 where rating < 2100 and age < 21"
JUNIOR_AGE = 21
# "K = 24 where ... playing experience ≥ 8 years"
EXPERIENCED_YEARS = 8


def completed_years(since: date, on: date) -> int:
    """Whole years from `since` to `on`; a 29 February anniversary falls on 1 March."""
    return on.year - since.year - ((on.month, on.day) < (since.month, since.day))


def k_factor(
    rating: float, age: int | None, experience: int | None, above_only: bool = False
) -> int:
    """K by the four ICU cases; an unknown age counts as adult, unknown experience as < 8 years.
    `above_only`: K = 16 only above 2100, as the ICU's rating database applied it from 1999."""
    if rating > K_RATING or (rating == K_RATING and not above_only):
        return 16  # K = 16 where rating ≥ 2100 (in practice: > 2100)
    if age is not None and age < JUNIOR_AGE:
        return 40  # K = 40 where rating < 2100 and age < 21
    if experience is not None and experience >= EXPERIENCED_YEARS:
        return 24  # K = 24 where rating < 2100, age ≥ 21, experience ≥ 8 years
    return 32  # K = 32 where rating < 2100, age ≥ 21, experience < 8 years


def k_on(
    rating: float, born: date | None, started: date | None, on: date, above_only: bool = False
) -> int:
    """K for a section starting on `on`, with age and experience counted in completed years."""
    age = None if born is None else completed_years(born, on)
    experience = None if started is None else completed_years(started, on)
    return k_factor(rating, age, experience, above_only)
