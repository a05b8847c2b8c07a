"""Plausibility at the door: the checks that a write's numbers, dates and texts lie within
their door bounds (ledger/bounds.py; docs/decisions.md, "Plausibility at the door", gives the
reason for each).

The command models (ledger/commands.py) use the constraints below. Today is read here, when a
command is validated, never inside ledger/rules/.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import date

from pydantic import AfterValidator

from ledger.bounds import (
    BONUS_MULTIPLIER,
    EARLIEST_DATE,
    MAX_CONVERSION_SLOPE,
    MAX_EVENT_DAYS,
    MEMBERSHIP_YEARS_AHEAD,
    RATING,
    YEARS_AHEAD,
)
from ledger.rules.conversion import Conversion
from ledger.text import forbidden


def clean(value: str, limit: int) -> str:
    """`value` NFC-normalized and stripped of spaces at the ends; refused if it holds a
    forbidden character, is empty or is longer than `limit`."""
    value = unicodedata.normalize("NFC", value)
    for i, char in enumerate(value):
        if what := forbidden(char):
            name = unicodedata.name(char, "")
            raise ValueError(
                f"{value[:60]!r}{'…' if len(value) > 60 else ''} holds {what} at position "
                f"{i + 1} (U+{ord(char):04X}{' ' + name if name else ''})"
            )
    value = value.strip()
    if not value:
        raise ValueError("must not be empty")
    if len(value) > limit:
        raise ValueError(f"{value[:20]!r}… is {len(value):,} characters; the limit is {limit:,}")
    return value


def text(limit: int) -> AfterValidator:
    """A text of at most `limit` characters (see `clean`)."""
    return AfterValidator(lambda value: clean(value, limit))


def within(value: float, low: float, high: float, what: str) -> None:
    """Refuse a number outside [low, high] (NaN included), naming it as `what`."""
    if not low <= value <= high:
        raise ValueError(f"{what} {value!r} is not between {low:,} and {high:,}")


def years_ahead(years: int) -> date:
    """Today's date `years` years on (28 February for 29 February)."""
    today = date.today()
    try:
        return today.replace(year=today.year + years)
    except ValueError:
        return today.replace(year=today.year + years, day=28)


def _dated(latest: Callable[[], date], what: str) -> AfterValidator:
    def check(value: date) -> date:
        end = latest()
        if not EARLIEST_DATE <= value <= end:
            raise ValueError(f"{value} is not between {EARLIEST_DATE} and {end} ({what})")
        return value

    return AfterValidator(check)


IN_WINDOW = _dated(lambda: years_ahead(YEARS_AHEAD), "at most a year after today")
NOT_FUTURE = _dated(date.today, "not after today")
MEMBERSHIP = _dated(
    lambda: years_ahead(MEMBERSHIP_YEARS_AHEAD), f"at most {MEMBERSHIP_YEARS_AHEAD} years ahead"
)


def check_span(start: date, end: date) -> None:
    """Refuse an event ending more than MAX_EVENT_DAYS after it starts."""
    if (end - start).days > MAX_EVENT_DAYS:
        raise ValueError(
            f"{end} is {(end - start).days:,} days after start_date {start}; a section or "
            f"match lasts at most {MAX_EVENT_DAYS} days"
        )


def check_parameter(name: str, value: object) -> None:
    """Refuse an implausible rules parameter (as `families.parse_parameter` gives it)."""
    if not isinstance(value, Conversion):
        # parse_parameter_value gives a number for every parameter but the conversions
        within(value, 0, BONUS_MULTIPLIER.door, name)  # type: ignore[arg-type]
        return
    within(value.split, 0, RATING.door, f"{name} split")
    for piece, (intercept, slope) in (("low", value.low), ("high", value.high)):
        within(intercept, -RATING.door, RATING.door, f"{name} {piece} intercept")
        within(slope, 0, MAX_CONVERSION_SLOPE, f"{name} {piece} slope")
