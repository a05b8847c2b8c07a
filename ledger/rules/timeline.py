"""Parameters that change over time, as dated values."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import date
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Timeline(Generic[T]):
    """Values in force from their dates on; the first entry is in force from date.min."""

    entries: tuple[tuple[date, T], ...]

    def __post_init__(self) -> None:
        dates = [d for d, _ in self.entries]
        if not dates or dates != sorted(dates) or len(set(dates)) != len(dates):
            raise ValueError("timeline dates must be unique and ascending")

    def at(self, day: date) -> T:
        """The value in force for something starting on `day`."""
        i = bisect.bisect_right([d for d, _ in self.entries], day) - 1
        if i < 0:
            raise ValueError(f"no value in force on {day}")
        return self.entries[i][1]

    def amended(self, value: T, effective: date, until: date | None = None) -> Timeline[T]:
        """A new timeline where `value` is in force from `effective` (until `until`, exclusive)."""
        kept = [
            (d, v) for d, v in self.entries if d < effective or (until is not None and d > until)
        ]
        kept.append((effective, value))
        if until is not None:
            kept.append((until, self.at(until)))
        return Timeline(tuple(sorted(kept, key=lambda e: e[0])))
