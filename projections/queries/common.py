"""What the reads share: the systems' usual order and the view's rules family."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ledger.rules.family import Family
    from projections.schema import ReadModel, SqlModel


def system_order(view: ReadModel) -> Callable[[str], tuple[int, str]]:
    """The sort key of the view's family's systems in their usual order (`Family.systems`),
    then any other by name."""
    order = _family(view).systems

    def key(system: str) -> tuple[int, str]:
        return (order.index(system), "") if system in order else (len(order), system)

    return key


def _family(view: SqlModel) -> Family:
    """The view's rules family, imported when first asked for."""
    from ledger.rules.families import family

    return family(view.family)
