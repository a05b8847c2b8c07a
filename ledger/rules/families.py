"""The rule families a read model rates under, by name (each one's `Family` in its package)."""

from __future__ import annotations

from ledger.rules.family import Family
from ledger.rules.fide.family import FAMILY as FIDE
from ledger.rules.icu.family import FAMILY as ICU
from ledger.rules.uschess.family import FAMILY as USCHESS

FAMILIES: dict[str, Family] = {f.name: f for f in (USCHESS, FIDE, ICU)}
NAMES = tuple(FAMILIES)
DEFAULT = USCHESS.name  # the family a command rates under unless told


def family(name: str) -> Family:
    """The family called `name`; an unknown name is a ValueError naming the known ones."""
    found = FAMILIES.get(name)
    if found is None:
        raise ValueError(f"unknown rules family {name!r}; known: {', '.join(NAMES)}")
    return found


def reads_time_control(rules: str) -> bool:
    """Whether the family a section's `rules` names (the family or one of its versions) needs a
    time control the ledger reads (`Family.reads_time_control`)."""
    named = (f for f in FAMILIES.values() if rules == f.name or rules in f.versions)
    return any(f.reads_time_control for f in named)
