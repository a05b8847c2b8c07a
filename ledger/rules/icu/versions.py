"""The ICU rules versions, their start dates, and the one in force for a section's date."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial

from ledger.rules.fide.section import SectionOutcome
from ledger.rules.icu import practice, section
from ledger.rules.icu.algorithm import V1_1, V1_2, V1_3, Algorithm
from ledger.rules.icu.section import Section

FAMILY = "icu"  # `--rules icu`: the version in force on the section's start date


@dataclass(frozen=True)
class IcuVersion:
    """A named ICU rules version: from when it applies, how it rates a section, and whether
    the next section starts from the published (whole-number) rating or the exact one."""

    name: str
    effective_from: date
    rate: Callable[[Section], SectionOutcome]
    carries_published: bool


def _practice(name: str, effective_from: date, algorithm: Algorithm) -> IcuVersion:
    """The practice's rating with a later algorithm version; ratings carried as published."""
    return IcuVersion(
        name, effective_from, partial(practice.rate_section, algorithm=algorithm, rules=name), True
    )


VERSIONS: dict[str, IcuVersion] = {
    v.name: v
    for v in (
        # The 2005 text's reading; before 1999 no source describes anything else.
        IcuVersion(section.RULES, date.min, section.rate_section, False),
        # ICU Rating Calculations (Mark Orr): "in operation since 1999". Basic Rating Formulae
        # (ratings.icu.ie/articles/16): "New ratings are always rounded to the nearest integer",
        # and a start rating is the rating after the player's last tournament (articles/7).
        IcuVersion(practice.RULES, date(1999, 1, 1), practice.rate_section, True),
        # Improvements to the ICU Rating Algorithm (articles/18, created 18 September 2012,
        # last updated 14 February 2014), versions 1.1–1.3 "in the order they were implemented".
        # The article's dates per version could not be read: 1.1 from the 2012-13 season, the
        # first the ratings site published (AGM 2012 report: "used to publish the September
        # rating list"); 1.2 from the 2013-14 season; 1.3 from the article's last update
        # (docs/decisions.md, "ICU algorithm versions").
        _practice("icu-2012", date(2012, 9, 1), V1_1),
        _practice("icu-2013", date(2013, 9, 1), V1_2),
        _practice("icu-2014", date(2014, 2, 14), V1_3),
    )
}
NAMES = (FAMILY, *VERSIONS)


def version_for(start: date) -> IcuVersion:
    """The latest version whose start date is on or before `start`."""
    return max(
        (v for v in VERSIONS.values() if v.effective_from <= start),
        key=lambda v: v.effective_from,
    )


def resolve(start: date, name: str | None = None) -> IcuVersion:
    """The version named, or (None or "icu") the one in force for a section starting on `start`."""
    if name is None or name == FAMILY:
        return version_for(start)
    if name not in VERSIONS:
        raise ValueError(f"unknown ICU rules {name!r}; known: {', '.join(NAMES)}")
    return VERSIONS[name]
