import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.uschess.effective_games import effective_games, n_star


def test_the_worked_example_gives_twenty_effective_games():
    # §3 Example: "R0 = 1700 based on N = 30 games ... N* = 50/sqrt(6.24) = 20.0 ... N' = 20.0"
    assert n_star(1700) == pytest.approx(20.0, abs=0.05)
    assert effective_games(30, 1700) == pytest.approx(20.0, abs=0.05)


@pytest.mark.parametrize("r0", [2355.01, 2400, 2700])
def test_n_star_is_fifty_above_2355(r0):
    # §3 (1): "50.0 if R0 > 2355"
    assert n_star(r0) == 50.0


def test_n_prime_is_n_when_n_is_smaller():
    # §3: "Define the effective number of games, N', to be the smaller of N and N*."
    assert effective_games(5, 1700) == 5


@given(st.floats(min_value=0, max_value=3000), st.integers(min_value=0, max_value=10_000))
def test_n_prime_is_never_larger_than_fifty(r0, n):
    # §3: "As a result of the formula, N' can be no larger than 50"
    assert effective_games(n, r0) <= 50.0
