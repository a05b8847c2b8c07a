"""A section's time control as every family reads it: main minutes and one delay or increment
(US Chess 2020/2024 footnote 1's mm and ss; the FIDE and ICU families rate by the same total)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    """Footnote 1: mm = total "main time" in minutes, ss = delay or increment in seconds."""

    main_minutes: int
    delay_seconds: int

    @property
    def total(self) -> int:
        """Footnote 1: the ranges are stated in mm + ss."""
        return self.main_minutes + self.delay_seconds


NOT_GIVEN = "not given"  # a section whose report gives no time control: recorded, never rated


def known_time_control(text: str) -> TimeControl | None:
    """The time control, or None when the report did not give one (`NOT_GIVEN`) or gave text
    the ledger cannot read (a family that records a time control as written)."""
    try:
        return parse_time_control(text)
    except ValueError:
        return None


_SEPARATOR = re.compile(r"[\s;,]*")
_PERIOD = re.compile(r"(?:(?P<moves>\d+)|(?P<sudden>game|g|sd))\s*/\s*(?P<minutes>\d+)", re.I)
_BONUS = re.compile(r"(?:delay|inc|d|\+)\s*/?\s*(?P<seconds>\d+)", re.I)


@functools.lru_cache(maxsize=1024)  # a ledger uses a few dozen time controls, again and again
def parse_time_control(text: str) -> TimeControl:
    """Parse `G/90;d30`, `G/3+2`, `40/120,SD/30;+30`…: minutes of all periods summed, one bonus."""
    periods: list[tuple[bool, int]] = []
    bonuses: set[int] = set()
    pos = 0
    while True:
        skipped = _SEPARATOR.match(text, pos)
        assert skipped is not None  # `[\s;,]*` matches nothing too
        pos = skipped.end()
        if pos == len(text):
            break
        period = _PERIOD.match(text, pos)
        bonus = _BONUS.match(text, pos) if period is None else None
        if period is not None:
            if periods and periods[-1][0]:
                raise ValueError(f"time control {text!r}: a period follows sudden death")
            if period["moves"] is not None and int(period["moves"]) == 0:
                raise ValueError(f"time control {text!r}: a period of 0 moves")
            periods.append((period["sudden"] is not None, int(period["minutes"])))
            pos = period.end()
        elif bonus is not None and periods:
            bonuses.add(int(bonus["seconds"]))
            pos = bonus.end()
        else:
            raise ValueError(f"time control {text!r}: cannot read {text[pos:]!r}")
    if not periods:
        raise ValueError(f"time control {text!r}: no period such as G/90 or 40/120")
    if any(minutes == 0 for _, minutes in periods):
        raise ValueError(f"time control {text!r}: a period of 0 minutes")
    if len(bonuses) > 1:
        raise ValueError(f"time control {text!r}: different delays or increments")
    return TimeControl(sum(minutes for _, minutes in periods), bonuses.pop() if bonuses else 0)
