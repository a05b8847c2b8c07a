"""What a FIDE list publishes for the players of its period, under the version in force on the
period's last day: Rn = Ro + ΣΔR (10.65–10.66; 8.3.2–8.3.4 with K × n over the period) or a
first rating (10.3 and 9.14; 8.2 and 7.1.4)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, NamedTuple

from ledger.rules.fide.initial import PoolEvent, initial_rating
from ledger.rules.fide.k_factor import limited_k
from ledger.rules.fide.per_game import rating_change, round_change
from ledger.rules.fide.periods import first_rating
from ledger.rules.fide.rated import period_rating, period_sum
from ledger.rules.fide.state import FideState
from ledger.rules.fide.unrated import Performance
from ledger.rules.fide.versions import FideVersion, resolve
from ledger.rules.rounding import round_half_up


class PeriodResult(NamedTuple):
    """A rated player's list: his rating, the whole number published, K used, and why."""

    rating: float
    official: int
    k: int | None
    detail: dict[str, Any]


def list_version(as_of: str) -> FideVersion:
    """The version that computes a list: the one in force on the last day of its period."""
    return resolve(date.fromisoformat(as_of) - timedelta(days=1))


def period_result(
    version: FideVersion,
    ro: float,
    legacy: Sequence[float],
    per_game: Sequence[tuple[int, int, int]],
) -> PeriodResult:
    """The period of a player rated Ro on the previous list.

    `legacy`: ΔR of sections rated under 10.0 (10.64); `per_game`: (ΣΔR × 100, K before the
    limit, n) of each section rated game by game (8.3.2).
    """
    if not version.per_game:  # 10.65: Rn = Ro + ΣΔR; 10.66: "rounded off to the nearest 1"
        total = period_sum(legacy)
        detail: dict[str, float | None] = {"sections": len(legacy), "total": total}
        return PeriodResult(ro + total, period_rating(ro, legacy), None, detail)
    games = sum(n for _, _, n in per_game)
    base = max((k for _, k, _ in per_game), default=None)
    k = None if base is None else limited_k(version, base, games)  # 8.3.3: K × n ≤ 700
    hundredths = sum(h for h, _, _ in per_game)
    change = math.fsum([*legacy, 0.0 if k is None else rating_change(k, hundredths)])
    official = round_half_up(ro) + round_change(change)  # 8.3.4: the change, 0.5 away from 0
    detail = {
        "sections": len(legacy) + len(per_game),
        "total": change,
        "sum_delta": hundredths / 100,
        "games": games,
        "k_base": base,
    }
    return PeriodResult(float(official), official, k, detail)


def first_list_rating(
    version: FideVersion, state: FideState | None, as_of: str
) -> tuple[int, dict[str, Any]] | None:
    """The first rating a list publishes for an unrated player (his `state` before it), and
    its values; None: his results carry on to the next list."""
    state = state or FideState()
    if version.initial == "10.2":
        first = first_rating([Performance(r, n) for r, n in state.prior or ()])
        if first.published is None:
            return None
        return first.published, {"rn": first.rating, "counted": len(first.counted)}
    events = [
        PoolEvent(date.fromisoformat(end), tuple((r, s) for r, s in results))
        for end, results in state.pool or ()
    ]
    init = initial_rating(version, events, date.fromisoformat(as_of))
    if init.published is None:
        return None
    values = {"ra": init.ra, "p": init.p, "dp": init.dp, "ru": init.ru, "counted": init.games}
    return init.published, values
