"""A two-piece linear rating conversion (US Chess §2.1, §2.2, §6), a value of the rules that
an amendment may change and the door checks (ledger/plausibility.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Conversion:
    """A two-piece linear rating conversion: intercept + slope × rating, split at `split`."""

    split: float
    low: tuple[float, float]
    high: tuple[float, float]

    def __call__(self, rating: float) -> float:
        intercept, slope = self.low if rating <= self.split else self.high
        return intercept + slope * rating
