"""The ICU rules versions, their start dates, and the one in force for a section's date."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ledger.rules.fide.section import SectionOutcome
from ledger.rules.icu import practice, section
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


VERSIONS: dict[str, IcuVersion] = {
    v.name: v
    for v in (
        # The 2005 text's reading; before 1999 no source describes anything else.
        IcuVersion(section.RULES, date.min, section.rate_section, False),
        # ICU Rating Calculations (Mark Orr): "in operation since 1999". Basic Rating Formulae
        # (ratings.icu.ie/articles/16): "New ratings are always rounded to the nearest integer",
        # and a start rating is the rating after the player's last tournament (articles/7).
        IcuVersion(practice.RULES, date(1999, 1, 1), practice.rate_section, True),
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
