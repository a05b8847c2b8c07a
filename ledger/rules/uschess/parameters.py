"""Parameters that changed over time, as dated timelines (2024 text §8 and §2.1, §6)."""

from __future__ import annotations

from datetime import date

from ledger.rules.conversion import Conversion
from ledger.rules.timeline import Timeline

# §2.1 (2015 §2.6, 2020 §2.1): FIDE → US Chess, replaced "as of March 1, 2024" (2024 §2.1).
FIDE_2015 = Conversion(2000.0, (180.0, 0.94), (20.0, 1.02))
FIDE_2024 = Conversion(2000.0, (-1073.0, 1.5667), (20.0, 1.02))
# §6: youth events (World Youth Championships); new formula "effective as of March 1, 2024".
YOUTH_2015 = Conversion(2000.0, (560.0, 0.76), (80.0, 1.0))
YOUTH_2024 = Conversion(2000.0, (-453.0, 1.2667), (80.0, 1.0))
# §2.2: CFC → US Chess (unchanged in all three texts).
CFC = Conversion(1500.0, (-90.0, 1.0), (-240.0, 1.1))

# each by its name: a number (the multiplier) or a Conversion, as parse_parameter_value checks
BASE_TIMELINES: dict[str, Timeline[object]] = {
    # §8 of the 2024 text ("Bonus point threshold"), §4.2: B = 12 effective February 1, 2023.
    # B = 10 for every 2025 event, decided in 2025 and applied retroactively, is in no text:
    # a ledger records it as the amendment it was (RulesAmended; docs/decisions.md).
    "bonus_multiplier": Timeline(
        (
            (date.min, 10.0),
            (date(2008, 6, 6), 6.0),
            (date(2012, 8, 3), 8.0),
            (date(2014, 3, 20), 10.0),
            (date(2015, 6, 1), 12.0),
            (date(2017, 6, 1), 14.0),
            (date(2023, 2, 1), 12.0),
        )
    ),
    "fide_conversion": Timeline(((date.min, FIDE_2015), (date(2024, 3, 1), FIDE_2024))),
    "youth_conversion": Timeline(((date.min, YOUTH_2015), (date(2024, 3, 1), YOUTH_2024))),
    "cfc_conversion": Timeline(((date.min, CFC),)),
}


def parse_parameter_value(name: str, value: object) -> object:
    """Validate an amended value: a number for the multiplier, a conversion's pieces otherwise."""
    if name not in BASE_TIMELINES:
        raise ValueError(f"unknown rules parameter {name!r}; known: {', '.join(BASE_TIMELINES)}")
    if name == "bonus_multiplier":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"bonus_multiplier must be a number >= 0, got {value!r}")
        return float(value)
    if isinstance(value, Conversion):
        return value
    if isinstance(value, dict):
        try:
            return Conversion(
                float(value["split"]),
                (float(value["low"][0]), float(value["low"][1])),
                (float(value["high"][0]), float(value["high"][1])),
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ValueError(f"{name} must be {{split, low: [a, b], high: [a, b]}}") from exc
    raise ValueError(f"{name} must be {{split, low: [a, b], high: [a, b]}}, got {value!r}")
