"""FIDE 8.3.1–8.3.2 (2022 and 2024 texts): a rated player's ΔR game by game.

"For each game played against a rated player, determine the difference in rating between the
player and their opponent, D" (8.3.1); "Use table 8.1.2 to determine the player's score
probability PD for each game"; "Delta R = score - PD"; "Sigma Delta R = the sum of Delta Rs for a
tournament or Rating Period"; "Sigma Delta R x K = the Rating Change" (8.3.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from ledger.rules.fide.tables import pd_hundredths
from ledger.rules.fide.versions import FideVersion

MAX_DIFFERENCE = 400  # 8.3.1: "more than 400 points ... as though it were ... 400 points"


class GameDelta(NamedTuple):
    """One game: the opponent's rating, D as counted, PD, the score and ΔR = score − PD
    (`hundredths`: ΔR × 100, exact, since the table's PD has two decimals)."""

    opponent: float
    d: float | int  # ±400 (an int) where 8.3.1 caps it
    pd: float
    score: float
    delta: float
    hundredths: int


def uncapped(version: FideVersion, rating: float, day: date, rapid_blitz: bool) -> bool:
    """8.3.1 as amended "Effective from 1 October 2025": "For players rated 2650 and above, the
    difference between ratings shall be used in all cases" (standard only: the rapid and blitz
    text keeps the cap for everyone)."""
    return (
        not rapid_blitz
        and version.no_cap_from is not None
        and version.no_cap_rating is not None
        and day >= version.no_cap_from
        and rating >= version.no_cap_rating
    )


def counted_differences(
    version: FideVersion, rating: float, opponents: Sequence[float], day: date, rapid_blitz: bool
) -> list[float | int]:
    """D for each game as 8.3.1 counts it.

    2024: every D beyond ±400 counts as ±400 (no cap at all for 2650+ from 1 October 2025).
    2022: "In any tournament, a player may benefit from only one upgrade under this rule, for
    the game in which the rating difference is greatest": of the games where he is more than 400
    above his opponent, only the first with the greatest D is capped; games where he is more
    than 400 below are always counted at −400 (the cap is no benefit to him there).
    """
    # a capped D is the int ±MAX_DIFFERENCE (the history's detail shows it so): `float | int`
    raw: list[float | int] = [rating - r for r in opponents]
    if uncapped(version, rating, day, rapid_blitz):
        return raw
    out: list[float | int] = [max(d, -MAX_DIFFERENCE) for d in raw]
    if version.cap == "400-one-upgrade" and not rapid_blitz:
        above = [i for i, d in enumerate(raw) if d > MAX_DIFFERENCE]
        if above:
            best = max(above, key=lambda i: (raw[i], -i))
            out[best] = MAX_DIFFERENCE
        return out
    return [min(d, MAX_DIFFERENCE) for d in out]


def game_deltas(
    version: FideVersion,
    rating: float,
    results: Sequence[tuple[float, float]],
    day: date,
    rapid_blitz: bool = False,
) -> tuple[GameDelta, ...]:
    """8.3.1–8.3.2 b): each (opponent rating, score) game's D, PD and ΔR = score − PD."""
    ds = counted_differences(version, rating, [r for r, _ in results], day, rapid_blitz)
    out = []
    for (opponent, score), d in zip(results, ds, strict=True):
        pd = pd_hundredths(d)
        hundredths = round(score * 100) - pd
        out.append(GameDelta(opponent, d, pd / 100, score, hundredths / 100, hundredths))
    return tuple(out)


def sum_delta(deltas: Sequence[GameDelta]) -> float:
    """8.3.2 c): ΣΔR, summed exactly in hundredths."""
    return sum(g.hundredths for g in deltas) / 100


def rating_change(k: int, hundredths: int) -> float:
    """8.3.2 d): ΣΔR × K, from ΣΔR in hundredths (one rounding, at the end)."""
    return k * hundredths / 100


def round_change(change: float) -> int:
    """8.3.4: "The Rating Change for a Rating Period is rounded to the nearest whole number.
    0.5 is rounded away from zero." (exactly: the float's own value decides)."""
    return int(Decimal(change).quantize(Decimal(1), rounding=ROUND_HALF_UP))
