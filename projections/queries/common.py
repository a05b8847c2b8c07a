"""What the reads share: the systems' usual order."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ledger.rules.families import family as rules_family

if TYPE_CHECKING:
    from projections.schema import ReadModel


def system_order(view: ReadModel) -> Callable[[str], tuple[int, str]]:
    """The sort key of the view's family's systems in their usual order (`Family.systems`),
    then any other by name."""
    order = rules_family(view.family).systems

    def key(system: str) -> tuple[int, str]:
        return (order.index(system), "") if system in order else (len(order), system)

    return key
