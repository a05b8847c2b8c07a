"""Which players a rating list shows when asked for a federation, sex, age group or club: one
place for the list pages (`/lists/NAME?federation=…`) and the supplement
(`supplement --federation …`), decided in docs/decisions.md ("The web pages as federations
publish them")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Age groups by the age a player reaches in the list's year (the list's year − birth year):
# "U20" holds those who reach at most 20 that year, "50+" those who reach at least 50.
AGE_GROUPS = {
    "U8": (None, 8),
    "U10": (None, 10),
    "U12": (None, 12),
    "U14": (None, 14),
    "U16": (None, 16),
    "U18": (None, 18),
    "U20": (None, 20),
    "50+": (50, None),
    "65+": (65, None),
}
SEXES = {"m": "men", "w": "women"}
FILTERS = ("federation", "sex", "age", "club")


def in_age_group(birth_year: int | None, list_year: int, group: str) -> bool:
    """Whether a player born in `birth_year` is in `group` on a list of `list_year`; one
    with no birth year is in no age group."""
    if birth_year is None:
        return False
    least, most = AGE_GROUPS[group]
    age = list_year - birth_year
    return (least is None or age >= least) and (most is None or age <= most)


def refused(asked: Mapping[str, str | None]) -> str | None:
    """Why the filters asked cannot be applied (a sex or age group the lists do not know),
    as `name: why`; None: they can."""
    if asked.get("sex") is not None and asked["sex"] not in SEXES:
        return f"sex: {asked['sex']!r} is not one of {', '.join(SEXES)}"
    if asked.get("age") is not None and asked["age"] not in AGE_GROUPS:
        return f"age: {asked['age']!r} is not one of {', '.join(AGE_GROUPS)}"
    return None


def kept(row: Mapping[str, Any], asked: Mapping[str, str | None], year: int) -> bool:
    """Whether a list row (its federation, sex, birth year, club) passes every filter asked;
    a filter not asked (None) passes all."""
    return (
        (asked.get("federation") is None or row["federation"] == asked["federation"])
        and (asked.get("sex") is None or row["sex"] == asked["sex"])
        and ((age := asked.get("age")) is None or in_age_group(row["birth_year"], year, age))
        and (asked.get("club") is None or row["club"] == asked["club"])
    )
