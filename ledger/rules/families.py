"""The rule families a read model rates under, by name; each one's `Family` is in its package
(`ledger/rules/<name>/family.py`), imported when first asked for."""

from __future__ import annotations

import functools
import importlib

from ledger.rules.family import Family

NAMES: tuple[str, ...] = ("uschess", "fide", "icu")  # a tuple[str, ...]: tests add one
DEFAULT = "uschess"  # the family a command rates under unless told


@functools.cache
def family(name: str) -> Family:
    """The family called `name`; an unknown name is a ValueError naming the known ones."""
    if name not in NAMES:
        raise ValueError(f"unknown rules family {name!r}; known: {', '.join(NAMES)}")
    found: Family = importlib.import_module(f"ledger.rules.{name}.family").FAMILY
    return found


def known(name: str) -> Family | None:
    """The family called `name`, or None."""
    return family(name) if name in NAMES else None


def every() -> tuple[Family, ...]:
    """Every family, in NAMES order."""
    return tuple(family(name) for name in NAMES)


def reads_time_control(rules: str) -> bool:
    """Whether the family a section's `rules` names (the family or one of its versions) needs a
    time control the ledger reads (`Family.reads_time_control`)."""
    named = (f for f in every() if rules == f.name or rules in f.versions)
    return any(f.reads_time_control for f in named)


def parameters() -> tuple[str, ...]:
    """Every rules parameter an amendment may change (`Family.parameters`), families in order."""
    return tuple(name for f in every() for name in f.parameters)


def parse_parameter(name: str, value: object) -> object:
    """An amended parameter's value parsed by the family whose rules have it; ValueError for a
    value it refuses or a parameter no family has (naming the known ones)."""
    # family by family, so a replay of US Chess's amendments imports no other family
    for f in map(family, NAMES):
        if name in f.parameters and f.parse_parameter is not None:
            return f.parse_parameter(name, value)
    raise ValueError(f"unknown rules parameter {name!r}; known: {', '.join(parameters())}")
