"""The six US Chess rating systems."""

from enum import StrEnum
from typing import Final


class System(StrEnum):
    OTBR = "OTBR"
    OTBQ = "OTBQ"
    OTBB = "OTBB"
    OLR = "OLR"
    OLQ = "OLQ"
    OLB = "OLB"

    @property
    def online(self) -> bool:
        return self.value.startswith("OL")


OTB_SYSTEMS = frozenset({System.OTBR, System.OTBQ, System.OTBB})
ONLINE_SYSTEMS = frozenset({System.OLR, System.OLQ, System.OLB})
ESTABLISHED_AFTER: Final = 25  # §1: "established if it is based upon more than 25 games"


def is_established(games: int) -> bool:
    """§1: a rating is established if it is based upon more than 25 games."""
    return games > ESTABLISHED_AFTER
