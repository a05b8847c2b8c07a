"""What the reads share: the systems' usual order and the view's rules family."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.rules.uschess.systems import System

if TYPE_CHECKING:
    from ledger.rules.family import Family
    from projections.schema import ReadModel


def system_order(system: str) -> tuple[int, str]:
    """US Chess systems in their usual order (OTBR, OTBQ, …), then any other by name."""
    order = [str(s) for s in System]
    return (order.index(system), "") if system in order else (len(order), system)


def _family(view: ReadModel) -> Family:
    """The view's rules family, imported when first asked for."""
    from ledger.rules.families import family

    return family(view.family)
