import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.expectancy import winning_expectancy
from ledger.rules.uschess.standard_formula import (
    bonus_eligible,
    k_factor,
    standard_rating,
)


# §4.2: "The following are example values of K for particular values of N' and m."
@pytest.mark.parametrize(
    ("n_eff", "m", "k"),
    [
        (6, 4, 80),
        (6, 6, 66.67),
        (6, 10, 50),
        (20, 4, 33.33),
        (20, 6, 30.77),
        (20, 10, 26.67),
        (50, 4, 14.81),
        (50, 6, 14.29),
        (50, 10, 13.33),
    ],
)
def test_k_matches_the_table_of_example_values(n_eff, m, k):
    assert k_factor(n_eff, m, 1800) == pytest.approx(k, abs=0.005)


@pytest.mark.parametrize(
    ("rating", "n_eff", "m", "k"),
    [
        # §4.2: "K = 800(6.5 − 0.0025R)/(N' + m) if 2200 < R < 2500"
        (2300, 46, 4, 800 * (6.5 - 0.0025 * 2300) / 50),
        (2499.9, 50, 5, 800 * (6.5 - 0.0025 * 2499.9) / 55),
        # "200/(N' + m) if R ≥ 2500"
        (2500, 50, 5, 200 / 55),
        (2650, 50, 6, 200 / 56),
        # "if the player's rating R is greater than 2200": 2200 itself keeps 800/(N' + m)
        (2200, 40, 4, 800 / 44),
    ],
)
def test_dual_rated_k_for_ratings_over_2200(rating, n_eff, m, k):
    assert k_factor(n_eff, m, rating, dual_rated=True) == pytest.approx(k)


def test_dual_rated_k_is_continuous_at_2500():
    # 800(6.5 − 0.0025 × 2500) = 200: the two pieces of §4.2's formula meet.
    assert k_factor(50, 4, 2500 - 1e-9, True) == pytest.approx(k_factor(50, 4, 2500, True))


def test_non_dual_rated_k_ignores_the_rating():
    # §4.2: K = 800/(N' + m) "with the exception noted below" (dual-rated only).
    assert k_factor(50, 4, 2600) == pytest.approx(800 / 54)


@pytest.mark.parametrize(
    ("m", "most_meetings", "rules_2015_2020", "rules_2024"),
    [
        # 2015/2020: "If both m ≥ 3 and the player competes against no player more than twice"
        # 2024: "If m > 3 and ... no player more than twice, or if m = 3 and ... no player more
        # than once"
        (2, 1, False, False),
        (3, 1, True, True),
        (3, 2, True, False),
        (4, 2, True, True),
        (4, 3, False, False),
        (6, 2, True, True),
        (8, 3, False, False),
    ],
)
def test_bonus_eligibility_per_version(m, most_meetings, rules_2015_2020, rules_2024):
    assert bonus_eligible(m, most_meetings, distinct_at_three=False) is rules_2015_2020
    assert bonus_eligible(m, most_meetings, distinct_at_three=True) is rules_2024


def test_bonus_is_not_awarded_when_an_opponent_is_met_twice_in_three_rounds_under_2024():
    # 2024 §4.2: "if m = 3 and the player competes against any opponent more than once" → no bonus
    assert not bonus_eligible(3, 2, distinct_at_three=True)


@pytest.mark.parametrize(("m", "m_prime"), [(3, 4), (4, 4), (5, 5), (9, 9)])
def test_three_round_sections_count_as_four_rounds_in_the_bonus(m, m_prime):
    # §4.2: "m' = max(m, 4) (3-round events are treated as 4-round events ...)"
    opponents = [1900.0] * m
    result = standard_rating(1500.0, opponents, float(m), 40.0, 12.0)
    change = 40.0 * (m - result.expected)
    assert result.bonus == pytest.approx(change - 12.0 * math.sqrt(m_prime))


def test_bonus_is_zero_when_the_performance_is_not_unusual():
    # §4.2: "max(0, K(S − E) − B√m')"
    assert standard_rating(1500.0, [1500.0] * 4, 2.5, 20.0, 12.0).bonus == 0.0


def test_standard_formula_adds_the_bonus_on_top_of_k_times_s_minus_e():
    # §4.2: Rs = R0 + K(S − E) + max(0, K(S − E) − B√m')
    opponents = [1500.0, 1600.0, 1700.0, 1800.0]
    e = sum(winning_expectancy(1500.0, r) for r in opponents)
    k = 800 / (15 + 4)
    result = standard_rating(1500.0, opponents, 4.0, k, 12.0)
    expected_bonus = max(0.0, k * (4 - e) - 12.0 * 2)
    assert result.expected == pytest.approx(e)
    assert result.bonus == pytest.approx(expected_bonus)
    assert result.rating == pytest.approx(1500 + k * (4 - e) + expected_bonus)
    assert standard_rating(1500.0, opponents, 4.0, k, None).bonus == 0.0


@given(st.floats(0, 3000), st.floats(0, 3000))
def test_winning_expectancies_of_both_players_sum_to_one(r, ri):
    # §4.2: We(R, Ri) = 1/(1 + 10^(−(R − Ri)/400)) is a probability of scoring.
    assert winning_expectancy(r, ri) + winning_expectancy(ri, r) == pytest.approx(1.0)


def test_equal_ratings_expect_half_a_point():
    assert winning_expectancy(1700, 1700) == 0.5
