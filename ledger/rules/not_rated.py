"""Why a section is rated by no list of a family: each family's own reason, in one table."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from ledger.rules import icu
from ledger.rules.fide import rate_of_play
from ledger.rules.fide.versions import resolve as fide_version
from ledger.rules.time_controls import known_time_control
from ledger.rules.uschess import time_controls as uschess

NAMES = {"uschess": "US Chess", "fide": "FIDE", "icu": "ICU"}  # each family as it names itself
Reason = Callable[[float | None, bool, date], str | None]
REASONS: dict[str, Reason] = {
    "uschess": uschess.section_not_rated,
    "fide": lambda total, online, day: rate_of_play.section_not_rated(
        total, online, fide_version(day)
    ),
    "icu": lambda total, online, day: icu.section_not_rated(total, online),
}


def section_not_rated(family: str, time_control: str, online: bool, day: date) -> str | None:
    """The family's reason for rating none of a section's games (None: it rates them)."""
    known = known_time_control(time_control)
    return REASONS[family](None if known is None else known.total, online, day)
