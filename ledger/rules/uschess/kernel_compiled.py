"""The compiled twin of kernel.rate_python (numba; importing this module needs numba).

The same operations in the same order as the pure-Python kernel and the formula modules it
calls (§3 effective_games, §4.1 special_rating, §4.2 k_factor and standard_rating), as scalar
loops without fastmath, so every float is the same bit for bit (tests/test_rating_kernel.py).
A constant exponent would let the compiler turn `x ** 2` into `x * x`, which differs in the
last bit from the C library's pow that Python calls: the exponent 2 is passed in as `two`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from ledger.rules.uschess.columns import MINIMUM_RATING, SPECIAL_UP_TO, Columns
from ledger.rules.uschess.special_formula import EPSILON, KNOT_TOLERANCE, MAX_STEPS, SPECIAL_CAP

NAN = math.nan
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
# _rate's columns: special, m, score, wins, draws, N', N' is N, K, bonus eligible, Steps 3-5,
# expected score and bonus
Rated = tuple[
    Bools,
    Ints,
    Floats,
    Ints,
    Ints,
    Floats,
    Bools,
    Floats,
    Bools,
    Floats,
    Floats,
    Floats,
    Floats,
    Floats,
]


@njit(cache=True)
def _f(
    r: float, prior: float, n_eff: float, opponents: Floats, target: float
) -> float:  # pragma: no cover - compiled
    """§4.1: f(R) = N'·PWe(R, R'_0) + Σ PWe(R, R_i) − S' (special_rating's f)."""
    total = -target
    if r >= prior + 400.0:
        total += n_eff
    elif r > prior - 400.0:
        total += n_eff * (0.5 + (r - prior) / 800.0)
    for t in range(opponents.size):
        ri = opponents[t]
        if r >= ri + 400.0:
            total += 1.0
        elif r > ri - 400.0:
            total += 1.0 * (0.5 + (r - ri) / 800.0)
    return total


@njit(cache=True)
def special(
    r0: float, n_eff: float, opponents: Floats, score: float, history: int
) -> float:  # pragma: no cover - compiled
    """§4.1: special_rating(...).rating; `history` coded as kernel.HISTORIES."""
    if history == 1:
        prior, target = r0 - 400.0, score + n_eff
    elif history == 2:
        prior, target = r0 + 400.0, score
    else:
        prior, target = r0, score + n_eff / 2.0
    # the knots R_i ± 400 and R'_0 ± 400, sorted, each once
    knots = np.empty(2 * opponents.size + 2)
    knots[0], knots[1] = prior - 400.0, prior + 400.0
    for t in range(opponents.size):
        knots[2 * t + 2], knots[2 * t + 3] = opponents[t] - 400.0, opponents[t] + 400.0
    knots.sort()
    count = 1
    for t in range(1, knots.size):
        if knots[t] != knots[count - 1]:
            knots[count] = knots[t]
            count += 1
    knots = knots[:count]
    big_m = prior
    f_m = _f(big_m, prior, n_eff, opponents, target)
    done = False
    for _ in range(MAX_STEPS):
        if f_m > EPSILON:
            i = np.searchsorted(knots, big_m, side="left") - 1
            if i < 0:
                done = True
                break
            z_a = knots[i]
            f_a = _f(z_a, prior, n_eff, opponents, target)
            if abs(f_m - f_a) < EPSILON:
                big_m = z_a
            else:
                m_star = big_m - f_m * ((big_m - z_a) / (f_m - f_a))
                big_m = z_a if m_star < z_a else m_star
        elif f_m < -EPSILON:
            j = np.searchsorted(knots, big_m, side="right")
            if j >= knots.size:
                done = True
                break
            z_b = knots[j]
            f_b = _f(z_b, prior, n_eff, opponents, target)
            if abs(f_b - f_m) < EPSILON:
                big_m = z_b
            else:
                m_star = big_m - f_m * ((z_b - big_m) / (f_b - f_m))
                big_m = z_b if m_star > z_b else m_star
        else:
            done = True
            break
        f_m = _f(big_m, prior, n_eff, opponents, target)
    if not done:
        raise ArithmeticError("special formula did not converge")
    # §4.1 step 4 (special_formula.step_four)
    limit = 400.0 + KNOT_TOLERANCE
    p = 0
    for t in range(opponents.size):
        if abs(big_m - opponents[t]) <= limit:
            p += 1
    if abs(big_m - prior) <= limit:
        p += 1
    if p == 0:
        i = np.searchsorted(knots, big_m, side="left")
        z_a = knots[i - 1] if i > 0 else -np.inf
        j = np.searchsorted(knots, big_m, side="right")
        z_b = knots[j] if j < knots.size else np.inf
        low = z_a if z_a > r0 else r0
        big_m = z_b if z_b < low else low
    if big_m > SPECIAL_CAP:
        big_m = SPECIAL_CAP
    return big_m


@njit(cache=True)
def _rate(
    prior: Floats,
    games: Floats,
    unrated: Bools,
    history: Ints,
    white: Ints,
    black: Ints,
    score: Floats,
    multiplier: float,
    distinct_at_three: bool,
    dual: bool,
    two: float,
) -> Rated:  # pragma: no cover - compiled
    m, start, opponents, results = _games_of(prior.size, white, black, score)
    special_of, total, wins, draws, n_eff, n_is_games, k, eligible = _step_two(
        prior, games, history, m, start, opponents, results, distinct_at_three, dual, two
    )
    step3, against = _step_three(prior, games, unrated, m, start, opponents, total)
    # Steps 4 and 5 (kernel.rate_python): Step 4's expected score and bonus are not kept
    step4, _, _ = _step(
        prior,
        history,
        m,
        start,
        opponents,
        special_of,
        total,
        n_eff,
        k,
        eligible,
        multiplier,
        against,
    )
    after4 = against.copy()
    for i in range(prior.size):
        if m[i]:
            after4[i] = step4[i]
    step5, expected, bonus = _step(
        prior,
        history,
        m,
        start,
        opponents,
        special_of,
        total,
        n_eff,
        k,
        eligible,
        multiplier,
        after4,
    )
    return (
        special_of,
        m,
        total,
        wins,
        draws,
        n_eff,
        n_is_games,
        k,
        eligible,
        step3,
        step4,
        step5,
        expected,
        bonus,
    )


@njit(cache=True)
def _games_of(
    size: int, white: Ints, black: Ints, score: Floats
) -> tuple[Ints, Ints, Ints, Floats]:  # pragma: no cover - compiled
    """Each player's games m, and his opponents and results in the section's order: player
    i's are at start[i]:start[i + 1]."""
    m = np.zeros(size, np.int64)
    for g in range(white.size):
        m[white[g]] += 1
        m[black[g]] += 1
    start = np.zeros(size + 1, np.int64)
    for i in range(size):
        start[i + 1] = start[i] + m[i]
    opponents = np.empty(start[size], np.int64)
    results = np.empty(start[size])
    fill = start[:size].copy()
    for g in range(white.size):  # each player's games in the section's order
        w, b, s = white[g], black[g], score[g]
        opponents[fill[w]], results[fill[w]] = b, s
        fill[w] += 1
        opponents[fill[b]], results[fill[b]] = w, 1.0 - s
        fill[b] += 1
    return m, start, opponents, results


@njit(cache=True)
def _step_two(
    prior: Floats,
    games: Floats,
    history: Ints,
    m: Ints,
    start: Ints,
    opponents: Ints,
    results: Floats,
    distinct_at_three: bool,
    dual: bool,
    two: float,
) -> tuple[Bools, Floats, Ints, Ints, Floats, Bools, Floats, Bools]:  # pragma: no cover
    """Step 2 (§3) and what the games give each player: special or not, score, wins, draws,
    N' (and whether it is N), and for the standard formula K and bonus eligibility (§4.2)."""
    size = prior.size
    special_of = np.empty(size, np.bool_)
    total, wins, draws = np.zeros(size), np.zeros(size, np.int64), np.zeros(size, np.int64)
    n_eff, n_is_games = np.zeros(size), np.zeros(size, np.bool_)
    k, eligible = np.full(size, NAN), np.zeros(size, np.bool_)
    for i in range(size):
        special_of[i] = games[i] <= SPECIAL_UP_TO or history[i] != 0
        mi = m[i]
        if mi == 0:
            continue
        r0 = prior[i]
        s = 0.0
        for t in range(start[i], start[i + 1]):
            s += results[t]
            if results[t] == 1.0:
                wins[i] += 1
            elif results[t] == 0.5:
                draws[i] += 1
        total[i] = s
        # §3: N* and N' = min(N, N*)
        star = 50.0 if r0 > 2355 else 50.0 / math.sqrt(0.662 + 0.00000739 * (2569.0 - r0) ** two)
        n_is_games[i] = games[i] < star
        n_eff[i] = games[i] if n_is_games[i] else star
        if special_of[i]:
            continue
        # §4.2: K, and whether the bonus applies (the most games against any one opponent)
        if dual and r0 > 2200:
            if r0 < 2500:
                k[i] = 800.0 * (6.5 - 0.0025 * r0) / (n_eff[i] + mi)
            else:
                k[i] = 200.0 / (n_eff[i] + mi)
        else:
            k[i] = 800.0 / (n_eff[i] + mi)
        most = 0
        for t in range(start[i], start[i + 1]):
            met = 0
            for u in range(start[i], start[i + 1]):
                if opponents[u] == opponents[t]:
                    met += 1
            most = max(most, met)
        eligible[i] = not (mi < 3 or most > 2 or (distinct_at_three and mi == 3 and most > 1))
    return special_of, total, wins, draws, n_eff, n_is_games, k, eligible


@njit(cache=True)
def _step_three(
    prior: Floats,
    games: Floats,
    unrated: Bools,
    m: Ints,
    start: Ints,
    opponents: Ints,
    total: Floats,
) -> tuple[Floats, Floats]:  # pragma: no cover - compiled
    """Step 3: unrated players with N = 0, N' = 1, against the pre-event (or Step 1) ratings;
    their ratings, and the opponent ratings of Step 4."""
    size = prior.size
    step3 = np.full(size, NAN)
    against = prior.copy()
    for i in range(size):
        if unrated[i] and games[i] == 0 and m[i]:
            opp = np.empty(m[i])
            for t in range(start[i], start[i + 1]):
                opp[t - start[i]] = prior[opponents[t]]
            s3 = special(prior[i], 1.0, opp, total[i], 0)
            step3[i] = against[i] = s3 if s3 >= MINIMUM_RATING else MINIMUM_RATING
    return step3, against


@njit(cache=True)
def _step(
    prior: Floats,
    history: Ints,
    m: Ints,
    start: Ints,
    opponents: Ints,
    special_of: Bools,
    total: Floats,
    n_eff: Floats,
    k: Floats,
    eligible: Bools,
    multiplier: float,
    source: Floats,
) -> tuple[Floats, Floats, Floats]:  # pragma: no cover - compiled
    """Step 4 or 5: each player's new rating against the opponents' ratings `source`, and for
    the standard formula its expected score and bonus (§4.2)."""
    size = prior.size
    new_of, expected, bonus = np.full(size, NAN), np.full(size, NAN), np.full(size, NAN)
    for i in range(size):
        if m[i] == 0:
            continue
        opp = np.empty(m[i])
        for t in range(start[i], start[i + 1]):
            opp[t - start[i]] = source[opponents[t]]
        r0 = prior[i]
        if special_of[i]:
            new = special(r0, n_eff[i], opp, total[i], history[i])
        else:
            # §4.2: Rs = R0 + K(S − E) [+ max(0, K(S − E) − B√m')]
            e = 0.0
            for t in range(opp.size):
                e += 1.0 / (1.0 + 10.0 ** ((opp[t] - r0) / 400.0))
            change = k[i] * (total[i] - e)
            extra = 0.0
            if eligible[i]:
                mi = opp.size
                extra = change - multiplier * math.sqrt(mi if mi > 4 else 4)
                if extra < 0.0:
                    extra = 0.0
            new = r0 + change + extra
            expected[i], bonus[i] = e, extra
        if new < MINIMUM_RATING:
            new = MINIMUM_RATING
        new_of[i] = new
    return new_of, expected, bonus


def _maybe(values: Floats) -> list[float | None]:
    return [None if x != x else x for x in values.tolist()]


def rate_compiled(
    prior: Sequence[float],
    games: Sequence[float],
    unrated: Sequence[bool],
    history: Sequence[int],
    white: Sequence[int],
    black: Sequence[int],
    score: Sequence[float],
    bonus_multiplier: float,
    distinct_at_three: bool,
    dual_rated_k: bool,
) -> Columns:
    """kernel.rate_python's Columns, compiled; pre-ratings must be floats (as rate_event's)."""
    (special_of, m, total, wins, draws, n_eff, n_is_games, k, eligible, *steps) = _rate(
        np.array(prior, np.float64),
        np.array(games, np.float64),
        np.array(unrated, np.bool_),
        np.array(history, np.int64),
        np.array(white, np.int64),
        np.array(black, np.int64),
        np.array(score, np.float64),
        float(bonus_multiplier),
        bool(distinct_at_three),
        bool(dual_rated_k),
        2.0,
    )
    played = m.tolist()
    # N' is N itself (an int stays an int, as effective_games returns it) where N < N*
    n_eff_list = [
        g if same else (x if mi else 0.0)
        for g, same, x, mi in zip(games, n_is_games.tolist(), n_eff.tolist(), played, strict=True)
    ]
    return Columns(
        special_of.tolist(),
        played,
        total.tolist(),
        wins.tolist(),
        draws.tolist(),
        n_eff_list,
        _maybe(k),
        eligible.tolist(),
        *(_maybe(a) for a in steps),
    )
