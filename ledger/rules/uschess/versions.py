"""Named rule versions (structural differences) and rules resolved for one section's date."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Literal, cast

from ledger.rules.conversion import Conversion
from ledger.rules.timeline import Timeline
from ledger.rules.uschess.parameters import BASE_TIMELINES, parse_parameter_value
from ledger.rules.uschess.systems import OTB_SYSTEMS, System


@dataclass(frozen=True)
class RuleVersion:
    """What one text of the US Chess rating system says, where the texts differ."""

    name: str
    effective_from: date
    systems: frozenset[System]
    # §2: 2015 uses per-system priority lists, 2020+ the blended weighted average.
    initialization: Literal["priority", "blended"]
    # §4.2: 2015/2020 award the bonus when m >= 3 and no opponent is met more than twice;
    # 2024 also withholds it when m = 3 and an opponent is met more than once.
    bonus_needs_distinct_opponents_at_three: bool
    # §4.2: 2015 states the dual-rated K for any system; 2020+ "in updating the OTBR rating".
    dual_k_systems: frozenset[System]
    # §5: 2015 gives every rating the personal absolute floor; 2020+ "For OTB ratings".
    absolute_floor_systems: frozenset[System]
    # §5: 2015 gives every system the OLM floor; 2020+ "For OTBR ratings only".
    olm_floor_systems: frozenset[System]
    # §5: 2015 "wins over $2,000"; 2020+ "wins $4,000 or more".
    money_floor_amount: float
    money_floor_inclusive: bool
    # §6: 2020+ "Only players with an established US Chess regular rating" and "current members".
    fide_adjustment_needs_established: bool
    fide_adjustment_needs_membership: bool


ALL = frozenset(System)

VERSIONS: dict[str, RuleVersion] = {
    v.name: v
    for v in (
        RuleVersion(
            name="uschess-2015",
            effective_from=date.min,
            systems=frozenset(ALL - {System.OLR}),
            initialization="priority",
            bonus_needs_distinct_opponents_at_three=False,
            dual_k_systems=ALL,
            absolute_floor_systems=ALL,
            olm_floor_systems=ALL,
            money_floor_amount=2000.0,
            money_floor_inclusive=False,
            fide_adjustment_needs_established=False,
            fide_adjustment_needs_membership=False,
        ),
        RuleVersion(
            name="uschess-2020",
            effective_from=date(2020, 6, 1),
            systems=ALL,
            initialization="blended",
            bonus_needs_distinct_opponents_at_three=False,
            dual_k_systems=frozenset({System.OTBR}),
            absolute_floor_systems=OTB_SYSTEMS,
            olm_floor_systems=frozenset({System.OTBR}),
            money_floor_amount=4000.0,
            money_floor_inclusive=True,
            fide_adjustment_needs_established=True,
            fide_adjustment_needs_membership=True,
        ),
        RuleVersion(
            name="uschess-2024",
            effective_from=date(2024, 3, 1),
            systems=ALL,
            initialization="blended",
            bonus_needs_distinct_opponents_at_three=True,
            dual_k_systems=frozenset({System.OTBR}),
            absolute_floor_systems=OTB_SYSTEMS,
            olm_floor_systems=frozenset({System.OTBR}),
            money_floor_amount=4000.0,
            money_floor_inclusive=True,
            fide_adjustment_needs_established=True,
            fide_adjustment_needs_membership=True,
        ),
    )
}


def version_for(start: date) -> RuleVersion:
    """The version in force for a section starting on `start`."""
    current = VERSIONS["uschess-2015"]
    for v in VERSIONS.values():
        if v.effective_from <= start and v.effective_from >= current.effective_from:
            current = v
    return current


@dataclass(frozen=True)
class Amendment:
    """A parameter taking a value from `effective` (to `until`, exclusive), e.g. B = 10 for 2025."""

    parameter: str
    value: object
    effective: date
    until: date | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", parse_parameter_value(self.parameter, self.value))
        if self.until is not None and self.until <= self.effective:
            raise ValueError("an amendment's until date must be after its effective date")


@dataclass(frozen=True)
class Rules:
    """The rules in force for one section: a version plus the parameters on its start date."""

    version: RuleVersion
    on: date
    bonus_multiplier: float
    fide_conversion: Conversion
    youth_conversion: Conversion
    cfc_conversion: Conversion
    amendments: tuple[Amendment, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.version.name


def timelines(amendments: Iterable[Amendment] = ()) -> dict[str, Timeline[object]]:
    """The base timelines with amendments applied in the order given (later ones win)."""
    result = dict(BASE_TIMELINES)
    for a in amendments:
        result[a.parameter] = result[a.parameter].amended(a.value, a.effective, a.until)
    return result


def resolve(start: date, version: str | None = None, amendments: Iterable[Amendment] = ()) -> Rules:
    """Rules for a section starting on `start` (§8: changes apply by section start date)."""
    amendments = tuple(amendments)
    return resolve_in(start, version, amendments, timelines(amendments))


def resolve_in(
    start: date,
    version: str | None,
    amendments: tuple[Amendment, ...],
    lines: dict[str, Timeline[object]],
) -> Rules:
    """`resolve` given the amendments' timelines (`timelines(amendments)`), which a replay
    makes once rather than once a start date."""
    if version is None:
        chosen = version_for(start)
    elif version in VERSIONS:
        chosen = VERSIONS[version]
    else:
        raise ValueError(f"unknown rules version {version!r}; known: {', '.join(VERSIONS)}")
    # each timeline holds its parameter's kind of value (parse_parameter_value checks amended ones)
    return Rules(
        version=chosen,
        on=start,
        bonus_multiplier=cast(float, lines["bonus_multiplier"].at(start)),
        fide_conversion=cast(Conversion, lines["fide_conversion"].at(start)),
        youth_conversion=cast(Conversion, lines["youth_conversion"].at(start)),
        cfc_conversion=cast(Conversion, lines["cfc_conversion"].at(start)),
        amendments=amendments,
    )
