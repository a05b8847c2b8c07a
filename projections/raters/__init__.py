"""Each rule family's rater, a module of its own (uschess, fide, icu): the adapter from the
standings before an item to the family's rules (ledger/rules/<family>) and back to history
rows. A family names its rater (`Family.rater`); `rater_for` builds it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from ledger.rules.families import family


def rater_class(name: str) -> Any:
    """The rater class family `name` names."""
    module, _, cls = family(name).rater.partition(":")
    return getattr(importlib.import_module(module), cls)


def rater_for(
    name: str,
    lookup: Callable[[str, str], Any],
    profiles: Mapping[str, Any],
    amendments: tuple[Any, ...] = (),
    explain: bool = False,
    what_if: Any = None,
) -> Any:
    """Family `name`'s rater over `lookup` (each player's standing before the item) and the
    profiles; rules amendments, explain detail and a what-if for the families that take them."""
    return rater_class(name).open(lookup, profiles, amendments, explain, what_if)
