"""The systems a section is rated in by its time control (2020/2024 footnote 1, 2015
introduction); the time control itself is read by ledger/rules/time_controls.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import RuleVersion


@dataclass(frozen=True)
class Range:
    """An interval of mm + ss; `None` for an unbounded side."""

    low: float
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, total: float) -> bool:
        above = total > self.low if self.low_open else total >= self.low
        if self.high is None:
            return above
        return above and (total < self.high if self.high_open else total <= self.high)


BLITZ = Range(5, 10)  # footnote 1: 5 ≤ mm + ss ≤ 10; 2015: "G/5 (or G/3+2) to G/10+0"
QUICK = Range(10, 30, low_open=True, high_open=True)  # footnote 1: 10 < mm + ss < 30
QUICK_TO_65 = Range(10, 65, low_open=True)  # footnote 1: OTBQ "through mm + ss ≤ 65"
REGULAR = Range(30)  # footnote 1: mm + ss ≥ 30; 2015: "G/25+5 or slower"
DUAL = Range(30, 65)  # §4.2: "between mm + ss ≥ 30 and mm + ss ≤ 65"; 2015 "G/30 … to G/60+5"

RANGES: dict[str, dict[System, Range]] = {
    # 2015 intro: both QC systems "G/10+0 through G/60+5"; G/10+0 itself is Blitz (decision).
    "uschess-2015": {
        System.OTBB: BLITZ,
        System.OTBQ: QUICK_TO_65,
        System.OTBR: REGULAR,
        System.OLB: BLITZ,
        System.OLQ: QUICK_TO_65,
    },
    **{
        name: {
            System.OTBB: BLITZ,
            System.OTBQ: QUICK_TO_65,
            System.OTBR: REGULAR,
            System.OLB: BLITZ,
            System.OLQ: QUICK,
            System.OLR: REGULAR,
        }
        for name in ("uschess-2020", "uschess-2024")
    },
}


def rated_systems(tc_total: float, online: bool, version: RuleVersion) -> frozenset[System]:
    """The systems a section with this mm + ss is rated in (empty below every range)."""
    try:
        ranges = RANGES[version.name]
    except KeyError:
        raise ValueError(f"no time-control ranges for rules version {version.name!r}") from None
    return frozenset(
        system
        for system, rng in ranges.items()
        if system.online == online and system in version.systems and tc_total in rng
    )


def is_dual_rated_time_control(tc_total: float) -> bool:
    """§4.2: dual-rated when 30 ≤ mm + ss ≤ 65 (2015: "between G/30 (or G/25+5) to G/60+5")."""
    return tc_total in DUAL


def section_not_rated(total: float | None, online: bool, start: date) -> str | None:
    """Why a section at this mm + ss is rated in no US Chess system (None: it is rated)."""
    if total is None:
        return "the report gives no time control: no US Chess system's range can hold it"
    from ledger.rules.uschess.versions import version_for

    if rated_systems(total, online, version_for(start)):
        return None
    where = "online" if online else "over the board"
    return f"mm + ss = {total:g} {where} is in no US Chess rating system's range (footnote 1)"
