import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ledger.rules.uschess.special_formula import (
    EPSILON,
    adjusted_prior_and_score,
    pwe,
    special_rating,
    special_value,
    step_four,
)


@pytest.mark.parametrize(
    ("r", "ri", "expected"),
    [
        (1100, 1500, 0.0),  # "0 if R ≤ Ri − 400"
        (1900, 1500, 1.0),  # "1 if R ≥ Ri + 400"
        (1500, 1500, 0.5),  # "0.5 + (R − Ri)/800"
        (1700, 1500, 0.75),
        (1000, 1500, 0.0),
    ],
)
def test_provisional_winning_expectancy(r, ri, expected):
    # §4.1: the definition of PWe(R, R_i).
    assert pwe(r, ri) == expected


@pytest.mark.parametrize(
    ("history", "prior", "score"),
    [
        # §4.1: all wins → R'0 = R0 − 400, S' = S + N'; all losses → R0 + 400, S; else R0, S + N'/2
        ("all_wins", 1100.0, 2.0 + 6.0),
        ("all_losses", 1900.0, 2.0),
        ("mixed", 1500.0, 2.0 + 3.0),
    ],
)
def test_adjusted_prior_and_score(history, prior, score):
    assert adjusted_prior_and_score(1500.0, 6.0, 2.0, history) == (prior, score)


def f(r0, n_eff, opponents, score, history, r):
    # §4.1: f(R) = N' PWe(R, R'0) + Σ PWe(R, R_i) − S'
    prior, target = adjusted_prior_and_score(r0, n_eff, score, history)
    return n_eff * pwe(r, prior) + sum(pwe(r, ri) for ri in opponents) - target


def test_an_unrated_player_who_wins_every_game_is_rated_400_above_the_best_opponent():
    # §4.1 with N' = 0: f(R) = Σ PWe(R, R_i) − m is zero only from max(R_i) + 400 on, and
    # step 4 stops at that knot because |M − R_i| = 400 there.
    result = special_rating(750.0, 0.0, [1200.0, 1400.0, 1350.0], 3.0)
    assert result.rating == 1800.0


def test_an_unrated_players_initial_rating_decides_among_equally_plausible_ratings():
    # §1 Step 1: initial ratings serve "to choose among equally plausible ratings during a
    # rating calculation for an unrated player". With N' = 0 and one loss to 1850.25,
    # f(R) = PWe(R, 1850.25) is zero for every R ≤ 1450.25: the initial 750 stays.
    assert special_rating(750.0, 0.0, [1850.25], 0.0).rating == 750.0
    # An initial rating above that interval comes down to its end, 400 below the opponent.
    assert special_rating(1600.0, 0.0, [1850.25], 0.0).rating == 1450.25


def test_a_knot_400_points_from_an_opponent_is_not_lost_to_floating_point_error():
    # §4.1 step 4: "let p be the number of i for which |M − R_i| ≤ 400". Here the secant step of
    # step 3 lands on the knot R_i + 400 = 2240.18, which floats compute as 2240.1800000000003
    # (|M − R_i| = 400.0000000000003). Read strictly that gives p = 0 and step 4(b) moves M to
    # R0 = 1991.68, 248 points lower; in exact arithmetic p = 4 and the rating is 2240.18.
    result = special_rating(1991.68, 1.0, [1840.18] * 4, 4.0, "all_wins")
    assert result.rating == pytest.approx(2240.18, abs=1e-9)
    assert result.p == 4


def test_step_4b_takes_the_prior_clamped_to_the_knots_around_m():
    # §4.1 step 4(b): with p = 0 "let z_a be the largest value in S_z and z_b be the smallest
    # value in S_z for which z_a < M < z_b": R0 inside → R0, R0 < z_a → z_a, R0 > z_b → z_b.
    knots = [200.0, 600.0, 1000.0, 1400.0, 1600.0, 2400.0]
    assert step_four(1500.0, 1450.0, 3000.0, [1000.0, 2000.0], knots) == (1450.0, 0)
    assert step_four(1500.0, 700.0, 3000.0, [1000.0, 2000.0], knots) == (1400.0, 0)
    assert step_four(1500.0, 2000.0, 3000.0, [1000.0, 2000.0], knots) == (1600.0, 0)
    # p > 0 (an opponent exactly 400 away, or R'0 within 400): "If p > 0, then exit."
    assert step_four(1400.0, 700.0, 3000.0, [1000.0, 2000.0], knots) == (1400.0, 1)
    assert step_four(1500.0, 700.0, 1200.0, [1000.0, 2000.0], knots) == (1500.0, 1)


def test_the_search_starts_at_r0_prime_as_the_implemented_program_does():
    # §4.1 step 1: "in the actual implemented rating program, M is set to R'_0, but the final
    # result will be the same". It is not when f is zero on a whole interval. An unrated player
    # with R0 = 1750 (N' = 0) who beats a 1300 has f = 0 from 1700 on: from step 1's formula
    # M = 1700 the search would stop there, from R'_0 = 1750 it stops at once (|M − R'_0| ≤ 400
    # counts towards p). We start at R'_0 (docs/decisions.md).
    result = special_rating(1750.0, 0.0, [1300.0], 1.0)
    assert result.rating == 1750.0
    assert result.path == (("1", 1750.0),)


def test_wins_never_lower_a_special_rating_even_where_step_1s_formula_would():
    # §4.1: "ensuring that a rating does not decrease from wins". Prior games all losses,
    # R0 = 602, N' = 1, five wins against 100, 100, 100, 100 and 201: f = 0 on [601, 602].
    # Step 1's formula starts at M = 600.5 and stops at the knot 601, one point lower after five
    # wins; the implemented program's start at R'_0 = 1002 stops at the knot 602.
    result = special_rating(602.0, 1.0, [100.0] * 4 + [201.0], 5.0, "all_losses")
    assert result.rating == 602.0


def test_special_ratings_above_2700_are_capped():
    # §4.1: "If the final value of M is greater than 2700, the value is changed to 2700."
    result = special_rating(2500.0, 0.0, [2600.0, 2650.0], 2.0)
    assert result.rating == 2700.0
    assert result.path[-1] == ("cap", 2700.0)


def test_all_wins_history_keeps_climbing_on_another_perfect_score():
    # §4.1: R'0 = R0 − 400 and S' = S + N' make f zero only above every knot, so the rating is
    # the highest knot: max(R0, best opponent + 400).
    assert special_rating(1300.0, 5.0, [1200.0, 1250.0], 2.0, "all_wins").rating == 1650.0


ratings = st.floats(min_value=100, max_value=2700, allow_nan=False).map(lambda x: round(x, 3))


@st.composite
def special_cases(draw, outcome=None):
    m = draw(st.integers(min_value=1, max_value=9))
    opponents = draw(st.lists(ratings, min_size=m, max_size=m))
    if outcome is None:
        score = draw(st.integers(min_value=0, max_value=2 * m)) / 2
    else:
        score = float(m) if outcome == "wins" else 0.0
    r0 = draw(ratings)
    # N' = 0 (an unrated player's own first section) has no prior for wins to keep above.
    n_eff = draw(st.sampled_from([0.0, 1.0, 2.5, 4.0, 8.0] if outcome is None else [1.0, 2.5, 8.0]))
    history = "mixed" if n_eff == 0 else draw(st.sampled_from(["mixed", "all_wins", "all_losses"]))
    return r0, n_eff, opponents, score, history


@given(special_cases(outcome="wins"))
def test_a_special_rating_never_falls_after_a_win_only_section(case):
    # §4.1: "the algorithm ... ensuring that a rating does not decrease from wins"
    r0, n_eff, opponents, score, history = case
    assert special_rating(r0, n_eff, opponents, score, history).rating >= r0 - 1e-9


@given(special_cases(outcome="losses"))
def test_a_special_rating_never_rises_after_a_loss_only_section(case):
    # §4.1: "... or increase from losses"
    r0, n_eff, opponents, score, history = case
    assert special_rating(r0, n_eff, opponents, score, history).rating <= r0 + 1e-9


@given(special_cases())
def test_f_is_zero_at_the_special_rating(case):
    # §4.1: "f ... is equal to 0 at the appropriate rating"; step 4 exits with |f(M)| ≤ ε
    # (after step 4(b) or the 2700 cap the rating is no longer a step-4 exit value).
    r0, n_eff, opponents, score, history = case
    result = special_rating(r0, n_eff, opponents, score, history)
    assume(result.path[-1][0] not in ("4b", "cap"))
    assert abs(f(r0, n_eff, opponents, score, history, result.rating)) <= EPSILON * 10


@given(special_cases())
def test_a_better_score_never_gives_a_lower_special_rating(case):
    # §4.1: f is non-decreasing in R and falls with S', so a higher score moves the root up.
    r0, n_eff, opponents, score, history = case
    assume(score + 0.5 <= len(opponents))
    low = special_rating(r0, n_eff, opponents, score, history).rating
    high = special_rating(r0, n_eff, opponents, score + 0.5, history).rating
    assert high >= low - 1e-6


@given(special_cases())
def test_the_kernels_special_value_is_the_special_rating_bit_for_bit(case):
    # The rating kernel's search without its path gives special_rating's rating exactly (the
    # issue: "the same operation order so every float is bit-identical").
    assert float.hex(special_value(*case)) == float.hex(special_rating(*case).rating)
