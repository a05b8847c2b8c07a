"""Conventional rounding (half up); Python's round() rounds half to even."""

import math
from fractions import Fraction


def round_half_up(x: float | Fraction) -> int:
    """Nearest integer, halves rounded up (US Chess §1, §7: "conventional rounding rules")."""
    if isinstance(x, float):  # a rating: compiled, in native float arithmetic
        below = math.floor(x)
        return below + 1 if x - below >= 0.5 else below
    whole = math.floor(x)  # an int, for a Fraction (or an int) too
    return whole + 1 if x - whole >= 0.5 else whole


def round_to_nearest(x: float, step: int) -> int:
    """Nearest multiple of step, halves rounded up (FIDE 10.32: "nearest 5 or zero")."""
    return round_half_up(x / step) * step
