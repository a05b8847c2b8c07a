"""The special rating formula (§4.1): the root of a piecewise-linear f found knot by knot."""

from __future__ import annotations

import bisect
from typing import Final, NamedTuple

EPSILON: Final = 1e-7  # §4.1: "Let ε = 10^−7 be a tolerance to detect values different from zero"
# Comparisons with the knots R_i ± 400 allow this much floating-point error in rating points, so
# that an M which is a knot in exact arithmetic (400.0000000000003 away in floats) counts as one.
KNOT_TOLERANCE: Final = 1e-9
# §4.1: "If the final value of M is greater than 2700, ... changed to 2700"
SPECIAL_CAP: Final = 2700.0
MAX_STEPS: Final = 10_000


class SpecialResult(NamedTuple):
    rating: float
    adjusted_prior: float
    adjusted_score: float
    p: int
    path: tuple[tuple[str, float], ...]


def pwe(r: float, ri: float) -> float:
    """§4.1: provisional winning expectancy PWe(R, R_i)."""
    if r <= ri - 400.0:
        return 0.0
    if r >= ri + 400.0:
        return 1.0
    return 0.5 + (r - ri) / 800.0


def adjusted_prior_and_score(
    r0: float, n_eff: float, score: float, history: str
) -> tuple[float, float]:
    """§4.1: R'_0 and S' for a player whose previous games were all wins, all losses, or mixed."""
    if history == "all_wins":
        return r0 - 400.0, score + n_eff
    if history == "all_losses":
        return r0 + 400.0, score
    return r0, score + n_eff / 2.0


def special_rating(
    r0: float,
    n_eff: float,
    opponents: list[float],
    score: float,
    history: str = "mixed",
) -> SpecialResult:
    """§4.1 steps 1–4 and the 2700 cap, the search starting at M = R'_0 as the program does.

    §4.1 step 1 gives a closed-form first M and says the implemented program starts from R'_0
    with "the same" final result; where f is zero on a whole interval the two differ, and only
    the start at R'_0 keeps the text's promise that wins never lower a rating
    (docs/decisions.md).
    """
    prior, target = adjusted_prior_and_score(r0, n_eff, score, history)
    path: list[tuple[str, float]] = []
    big_m, p = _search(r0, n_eff, opponents, prior, target, path)
    return SpecialResult(big_m, prior, target, p, tuple(path))


def special_value(
    r0: float, n_eff: float, opponents: list[float], score: float, history: str = "mixed"
) -> float:
    """`special_rating(...).rating` alone (the rating kernel's, per player): the same search,
    without recording its path."""
    prior, target = adjusted_prior_and_score(r0, n_eff, score, history)
    return _search(r0, n_eff, opponents, prior, target, None)[0]


def _search(
    r0: float,
    n_eff: float,
    opponents: list[float],
    prior: float,
    target: float,
    path: list[tuple[str, float]] | None,
) -> tuple[float, int]:
    """§4.1 steps 1–4 and the cap from R'_0 and S': M and p, each step's M added to `path`
    (when given) with its label."""
    # The knots R_i ± 400 and R'_0 ± 400 in order (a knot listed twice finds the same
    # neighbours).
    knots = [prior - 400.0, prior + 400.0]
    for ri in opponents:
        knots.append(ri - 400.0)
        knots.append(ri + 400.0)
    knots.sort()
    searched = _root(prior, n_eff, opponents, target, knots, path)
    big_m, p = step_four(searched, r0, prior, opponents, knots)
    if path is not None and big_m != searched:
        path.append(("4b", big_m))
    if big_m > SPECIAL_CAP:
        big_m = SPECIAL_CAP
        if path is not None:
            path.append(("cap", big_m))
    return big_m, p


def _f(r: float, prior: float, n_eff: float, opponents: list[float], target: float) -> float:
    """§4.1: f(R) = N'·PWe(R, R'_0) + Σ PWe(R, R_i) − S', PWe judged against the knots
    R_i ± 400 (each opponent's weight is 1, so its term is PWe itself). A module function, not
    a closure, over the opponents' ratings themselves: compiled, a direct call allocating
    nothing."""
    total = -target
    if r >= prior + 400.0:
        total += n_eff
    elif r > prior - 400.0:
        total += n_eff * (0.5 + (r - prior) / 800.0)
    for ri in opponents:
        if r >= ri + 400.0:
            total += 1.0
        elif r > ri - 400.0:
            total += 0.5 + (r - ri) / 800.0
    return total


def _root(
    prior: float,
    n_eff: float,
    opponents: list[float],
    target: float,
    knots: list[float],
    path: list[tuple[str, float]] | None,
) -> float:
    """§4.1 steps 1–3: from M = R'_0, knot by knot (or by the secant within one piece) to an M
    with |f(M)| ≤ ε, or to the last knot."""
    # §4.1 step 1: "in the actual implemented rating program, M is set to R'_0"
    big_m = prior
    if path is not None:
        path.append(("1", big_m))
    f_m = _f(big_m, prior, n_eff, opponents, target)
    for _ in range(MAX_STEPS):
        if f_m > EPSILON:
            # §4.1 step 2: move down towards z_a, the largest knot below M.
            i = bisect.bisect_left(knots, big_m) - 1
            if i < 0:
                return big_m
            z_a = knots[i]
            f_a = _f(z_a, prior, n_eff, opponents, target)
            if abs(f_m - f_a) < EPSILON:
                big_m, label, f_m = z_a, "2b:knot", f_a
            else:
                m_star = big_m - f_m * ((big_m - z_a) / (f_m - f_a))
                if m_star < z_a:
                    big_m, label, f_m = z_a, "2b:knot", f_a
                else:
                    f_star = _f(m_star, prior, n_eff, opponents, target)
                    big_m, label, f_m = m_star, "2b:secant", f_star
        elif f_m < -EPSILON:
            # §4.1 step 3: move up towards z_b, the smallest knot above M.
            j = bisect.bisect_right(knots, big_m)
            if j >= len(knots):
                return big_m
            z_b = knots[j]
            f_b = _f(z_b, prior, n_eff, opponents, target)
            if abs(f_b - f_m) < EPSILON:
                big_m, label, f_m = z_b, "3b:knot", f_b
            else:
                m_star = big_m - f_m * ((z_b - big_m) / (f_b - f_m))
                if m_star > z_b:
                    big_m, label, f_m = z_b, "3b:knot", f_b
                else:
                    f_star = _f(m_star, prior, n_eff, opponents, target)
                    big_m, label, f_m = m_star, "3b:secant", f_star
        else:
            return big_m
        if path is not None:
            path.append((label, big_m))
    raise ArithmeticError("special formula did not converge")


def step_four(
    big_m: float, r0: float, prior: float, opponents: list[float], knots: list[float]
) -> tuple[float, int]:
    """§4.1 step 4, given |f(M)| ≤ ε: M and p, or R_0 clamped to the knots around M if p = 0."""
    # §4.1 step 4: p counts the i with |M − R_i| ≤ 400, plus one if |M − R'_0| ≤ 400.
    limit = 400.0 + KNOT_TOLERANCE
    p = 1 if abs(big_m - prior) <= limit else 0
    for ri in opponents:
        if abs(big_m - ri) <= limit:
            p += 1
    if p:
        return big_m, p
    # §4.1 step 4(b): z_a < M < z_b are the knots around M; take R_0 clamped to [z_a, z_b].
    i = bisect.bisect_left(knots, big_m)
    z_a = knots[i - 1] if i > 0 else float("-inf")
    j = bisect.bisect_right(knots, big_m)
    z_b = knots[j] if j < len(knots) else float("inf")
    return min(max(r0, z_a), z_b), p
