import math
import random
from fractions import Fraction

import pytest

from ledger.rules.rounding import round_half_up, round_to_nearest


# §1: "Official ratings are expressed as rounded to the nearest whole number (1644 and 1431)";
# §7: "rounded to the nearest integer using conventional rounding rules" — halves go up.
@pytest.mark.parametrize(
    ("rating", "official"),
    [
        (1643.759, 1644),
        (1431.034, 1431),
        (1999.51, 2000),
        (1500.5, 1501),
        (1502.5, 1503),
        (1499.4999999999998, 1499),
        (100.0, 100),
    ],
)
def test_official_ratings_round_half_up(rating, official):
    assert round_half_up(rating) == official


def test_banker_rounding_is_not_used_for_even_halves():
    # §7 "conventional rounding rules": 2.5 → 3, where Python's round() gives 2.
    assert round(2.5) == 2
    assert round_half_up(2.5) == 3


@pytest.mark.parametrize(("value", "rounded"), [(2267.5, 2270), (2262.4, 2260), (2272.5, 2275)])
def test_rounding_to_the_nearest_five(value, rounded):
    # FIDE 10.32: "Rn ... is rounded off to the nearest 5 or zero."
    assert round_to_nearest(value, 5) == rounded


def test_a_float_rounds_half_up_as_the_exact_fraction_it_holds():
    # A float takes its own native path; the rounding is the same as of its exact value, at
    # the halves (x.5) and the floats either side of them.
    rng = random.Random(33)
    values = [rng.uniform(-3000.0, 3000.0) for _ in range(2000)]
    halves = [k + 0.5 for k in range(-50, 3000, 7)]
    values += halves + [math.nextafter(h, -math.inf) for h in halves]
    for x in values:
        assert round_half_up(x) == round_half_up(Fraction(x)), x
