from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.expectancy import winning_expectancy as game_expectancy
from ledger.rules.icu.expectancy import expected_score
from ledger.rules.icu.k_factor import completed_years, k_factor, k_on
from ledger.rules.icu.performance import is_provisional, performance_rating, provisional_rating
from ledger.rules.icu.section import Player, Section, rate_section

START, END = date(2006, 3, 10), date(2006, 3, 12)
ADULT, VETERAN = date(1960, 1, 1), date(1980, 1, 1)


def rate(players, games):
    return rate_section(Section(START, END, tuple(players), tuple(games)))


# ICU: "If the two players have the same rating then they each have an expected score of 0.5. As
# the rating difference increases, the expected score goes up for the higher-rated player and
# down for the lower-rated", wg = 1/(1 + 10^(Rd/400)) with Rd = opponent − own (decision).
@pytest.mark.parametrize(
    ("own", "opponent", "wg"),
    [(2000, 2000, 0.5), (2200, 2000, 1 / (1 + 10**-0.5)), (2000, 2200, 1 / (1 + 10**0.5))],
)
def test_game_expectancy_favours_the_higher_rated_player(own, opponent, wg):
    assert game_expectancy(own, opponent) == pytest.approx(wg)


def test_the_sign_convention_both_ways():
    # 200 points: the higher-rated player expects about 0.76, the lower-rated about 0.24.
    assert game_expectancy(2200, 2000) == pytest.approx(0.7597, abs=1e-4)
    assert game_expectancy(2000, 2200) == pytest.approx(0.2403, abs=1e-4)


@given(st.floats(0, 3000), st.floats(0, 3000))
def test_the_two_expectations_of_a_game_add_up_to_one(a, b):
    # ICU: "the expected score goes up for the higher-rated player and down for the lower-rated"
    assert game_expectancy(a, b) + game_expectancy(b, a) == pytest.approx(1)


@given(st.floats(0, 3000), st.floats(0, 3000), st.floats(0.1, 500))
def test_expectancy_rises_with_the_own_rating(own, opponent, more):
    assert game_expectancy(own + more, opponent) > game_expectancy(own, opponent)


def test_the_section_expectation_is_the_sum_of_the_games():
    # ICU: "We = w1 + w2 + ..."
    assert expected_score(2000, [2000, 2200]) == pytest.approx(0.5 + 1 / (1 + 10**0.5))


# ICU: "K = 40 where rating < 2100 and age < 21", "K = 32 where rating < 2100 and age ≥ 21 and
# playing experience < 8 years", "K = 24 where ... ≥ 8 years", "K = 16 where rating ≥ 2100".
@pytest.mark.parametrize(
    ("rating", "age", "experience", "k"),
    [
        (2099, 20, 2, 40),
        (2099, 20, 12, 40),
        (2099, 21, 7, 32),
        (2099, 21, 8, 24),
        (1500, 45, 30, 24),
        (2100, 15, 1, 16),
        (2400, 40, 20, 16),
        # decision: an unknown birth date counts as adult, unknown experience as < 8 years
        (1800, None, 10, 24),
        (1800, None, None, 32),
        (1800, 18, None, 40),
    ],
)
def test_rating_factor(rating, age, experience, k):
    assert k_factor(rating, age, experience) == k


# Decision: age and experience in completed years at the section's start date.
@pytest.mark.parametrize(
    ("since", "on", "years"),
    [
        (date(1985, 3, 10), date(2006, 3, 9), 20),
        (date(1985, 3, 10), date(2006, 3, 10), 21),
        (date(2000, 2, 29), date(2021, 2, 28), 20),
        (date(2000, 2, 29), date(2021, 3, 1), 21),
    ],
)
def test_completed_years(since, on, years):
    assert completed_years(since, on) == years


def test_k_uses_age_and_experience_on_the_start_date():
    # 21st birthday on the start date: no longer "age < 21".
    assert k_on(1800, date(1985, 3, 10), date(2000, 1, 1), START) == 32
    assert k_on(1800, date(1985, 3, 11), date(2000, 1, 1), START) == 40
    # 8 years of play completed on the start date: "playing experience ≥ 8 years".
    assert k_on(1800, ADULT, date(1998, 3, 10), START) == 24
    assert k_on(1800, ADULT, date(1998, 3, 11), START) == 32


def test_performance_rating_reads_dp_from_the_fide_table():
    # ICU: "Rp = Rc + Dp"; "Dp is to be read as the difference based on the percentage score P"
    # (FIDE 10.1a: .67 → 125).
    assert performance_rating([1800, 1900, 2000], 2) == 2025
    assert performance_rating([1800, 1900, 2000], 0) == 1100  # dp(.00) = -800 (decision)


def test_the_provisional_rating_is_weighted_by_games():
    # Decision: game-weighted average of the earlier provisional rating and this Rp.
    assert provisional_rating(1900, 10, 2025, 3) == pytest.approx((1900 * 10 + 2025 * 3) / 13)
    assert provisional_rating(None, 0, 2025, 3) == 2025


# ICU: "When sufficient data accrues on their performances against rated players (20 games),
# subsequent calculations are taken over by the Continuous Rating Formula."
@pytest.mark.parametrize(("games", "provisional"), [(0, True), (19, True), (20, False)])
def test_the_provisional_period_lasts_20_games(games, provisional):
    assert is_provisional(games) is provisional


def test_an_established_player_uses_the_continuous_formula():
    # ICU: "Rn = Ro + K(W – We)"; K = 24 (adult, 26 years' experience, under 2100).
    players = [
        Player("p", 1800, 50, born=ADULT, started=VETERAN),
        Player("a", 1800, 50, born=ADULT, started=VETERAN),
        Player("b", 2000, 50, born=ADULT, started=VETERAN),
    ]
    p = rate(players, [("p", "a", 1), ("b", "p", 0.5)]).player("p")
    we = 0.5 + 1 / (1 + 10**0.5)
    assert (p.k, p.games, p.score) == (24, 2, 1.5)
    assert p.expected == pytest.approx(we)
    assert p.rating_change == pytest.approx(24 * (1.5 - we))
    assert p.post == pytest.approx(1800 + 24 * (1.5 - we))
    assert p.official == 1818
    assert p.provisional is False and p.performance is None


def test_a_new_player_gets_a_performance_rating():
    # ICU: "New (unrated) players ... are processed by the Performance Rating Formula".
    players = [Player("n", None), *(Player(x, r, 50) for x, r in [("a", 1800), ("b", 1900)])]
    players.append(Player("c", 2000, 50))
    out = rate(players, [("n", "a", 1), ("b", "n", 0), ("n", "c", 0)])
    n = out.player("n")
    assert (n.rc, n.p, n.dp, n.performance) == (1900, 0.67, 125, 2025)
    assert (n.post, n.official, n.published_rating) == (2025, 2025, 2025)
    assert n.provisional is True and n.rating_change is None


def test_the_section_reaching_20_games_is_still_a_performance_then_the_formula_takes_over():
    # Decision: the whole section in which the 20th game is played uses Rp; the next one Rn.
    opponents = [Player(x, 1900, 50, born=ADULT, started=VETERAN) for x in "abc"]
    games = [("n", x, 0.5) for x in "abc"]
    first = rate([Player("n", 1800, 18, born=ADULT, started=VETERAN), *opponents], games)
    n = first.player("n")
    assert n.post == pytest.approx((1800 * 18 + 1900 * 3) / 21)
    assert n.provisional is False
    after = rate([Player("n", n.official, 21, born=ADULT, started=VETERAN), *opponents], games)
    assert after.player("n").k == 24 and after.player("n").performance is None


def test_games_against_players_without_a_rating_do_not_count():
    # ICU: the performance formula needs "performances against rated players"; We needs the
    # opponent's rating (decision: such games count for neither player).
    players = [Player("p", 1800, 50), Player("n", None), Player("a", 1800, 50)]
    out = rate(players, [("p", "n", 0), ("p", "a", 1), ("n", "a", 1)])
    assert out.player("p").games == 1 and out.player("p").score == 1
    assert out.player("n").games == 2 and out.player("n").rc == 1800  # both his opponents rated


def test_a_provisional_opponent_counts_as_rated():
    # Decision: a provisional rating is a rating; the game counts for the established player.
    players = [Player("p", 1800, 50), Player("q", 1700, 5)]
    out = rate(players, [("p", "q", 1)])
    assert out.player("p").games == 1
    assert out.player("q").performance == 1800 - 800


def test_the_official_rating_is_rounded_half_up():
    # Decision (the ICU text gives no rounding): half up, (1900 + 1901) / 2 = 1900.5 → 1901.
    players = [Player("p", 1900, 1), Player("a", 1901, 50)]
    p = rate(players, [("p", "a", 0.5)]).player("p")
    assert p.post == 1900.5 and p.official == 1901


def test_a_player_without_a_rating_cannot_have_rated_games():
    with pytest.raises(ValueError):
        Section(START, END, (Player("n", None, rated_games=3),), ())
