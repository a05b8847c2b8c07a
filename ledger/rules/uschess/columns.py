"""What both rating kernels share: the columns they return and the §1 bounds they apply.

kernel.py (the pure-Python definition, and the choice between the two) and kernel_compiled.py
(its numba twin) each import these; neither imports the other's module at load time.
"""

from __future__ import annotations

from typing import Final, NamedTuple

# §1 Steps 3–5: "If the resulting rating ... is less than 100, ... 100"
MINIMUM_RATING: Final = 100.0
SPECIAL_UP_TO: Final = 8  # §1 Step 4: the special formula for "8 or fewer games (N ≤ 8)"


class Columns(NamedTuple):
    """Each player's values, one list per value (None where the step does not apply)."""

    special: list[bool]  # §1 Step 4: N ≤ 8, or all wins or all losses before
    m: list[int]
    score: list[float]
    wins: list[int]
    draws: list[int]
    n_eff: list[float]  # 0.0 for a player without games
    k: list[float | None]  # None: the special formula (§1 Step 4)
    eligible: list[bool]
    step3: list[float | None]
    step4: list[float | None]
    step5: list[float | None]
    expected: list[float | None]  # Step 5's, standard formula only
    bonus: list[float | None]
