from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.fide.section import Player, Section, rate_section
from ledger.rules.fide.unrated import (
    Performance,
    new_rating,
    olympiad_entry,
    olympiad_qualified,
    performance,
    published_rating,
    tournament_average,
)

START, END = date(2003, 3, 1), date(2003, 3, 9)


def swiss(players, games, **kwargs):
    fmt = kwargs.pop("format", "swiss")
    return rate_section(Section(fmt, START, END, tuple(players), tuple(games), **kwargs))


# FIDE 10.22: "If he scores 50%, then Ru = Rc."
@pytest.mark.parametrize(("score", "games"), [(4.5, 9), (2, 4), (0.5, 1)])
def test_a_fifty_percent_score_performs_at_the_competition(score, games):
    assert performance(2300, score, games) == 2300
    assert performance(2300, score, games, opponents=games) == 2300


# FIDE 10.23: "Ru = Rc + 12.5 for each half point scored over 50%"
@pytest.mark.parametrize(
    ("score", "games", "ru"),
    [(5, 9, 2312.5), (7, 9, 2362.5), (6, 9, 2337.5), (3, 4, 2325), (9, 9, 2412.5)],
)
def test_each_half_point_over_fifty_percent_adds_twelve_and_a_half(score, games, ru):
    assert performance(2300, score, games) == ru
    # the same rule in a round robin: 10.25's n/(n+1) is only for scores below 50%
    assert performance(2300, score, games, opponents=games) == ru


# FIDE 10.24: "If he scores less than 50% in a Swiss or team tournament: Ru = Rc + dp."
@pytest.mark.parametrize(
    ("score", "games", "ru"), [(4, 9, 2257), (2, 9, 2080), (1, 9, 1949), (2, 5, 2228)]
)
def test_below_fifty_percent_in_a_swiss_adds_dp(score, games, ru):
    assert performance(2300, score, games) == ru


# FIDE 10.25: "R(u) = R(c) + d(p) x n/(n+1)" in a round robin.
@pytest.mark.parametrize(
    ("score", "ru"), [(4, 2300 - 43 * 0.9), (2, 2300 - 198), (1, 2300 - 315.9)]
)
def test_below_fifty_percent_in_a_round_robin_scales_dp(score, ru):
    assert performance(2300, score, 9, opponents=9) == pytest.approx(ru)


def test_a_zero_score_performs_800_below_the_competition():
    # FIDE 10.1: "For a zero or 100% score dp is necessarily indeterminate." Decision: dp = -800.
    assert performance(2300, 0, 5) == 1500
    assert performance(2300, 0, 9, opponents=9) == 2300 - 720


def test_the_round_robin_average_of_the_10_68_example():
    # FIDE 10.21b: "Ra = Rar - dpa x n/(n+1)"; 10.68: "Ra = 2375 -29.5 x 9/10", "Ra = 2348".
    assert tournament_average(2375, 29.5, 9) == 2348


def test_the_weighted_average_example_of_10_3():
    # FIDE 10.3: "Rn = [ 2280 x 5 + 2400 x 10 + 2000 x 5 ] / 20 = 2270."
    results = [Performance(2280, 5), Performance(2400, 10), Performance(2000, 5)]
    assert new_rating(results) == 2270
    assert published_rating(results) == 2270


# FIDE 10.31: "Where a player's first performance(s) is less than 2005, the result(s) is ignored."
@pytest.mark.parametrize(
    ("results", "rn"),
    [
        ([(1950, 5), (2200, 9)], 2200),
        ([(1900, 5), (2004, 7), (2100, 10)], 2100),
        ([(2200, 9), (1950, 5)], (2200 * 9 + 1950 * 5) / 14),
        ([(2005, 4), (1900, 4)], (2005 + 1900) / 2),
        ([(1990, 9)], None),
    ],
)
def test_only_leading_performances_under_2005_are_ignored(results, rn):
    assert new_rating(Performance(r, g) for r, g in results) == rn


# FIDE 10.32: "Rn ... is rounded off to the nearest 5 or zero."
@pytest.mark.parametrize(
    ("ru", "published"), [(2272.4, 2270), (2272.5, 2275), (2267.5, 2270), (2312.5, 2315)]
)
def test_the_published_rating_is_rounded_to_the_nearest_five(ru, published):
    assert published_rating([Performance(ru, 9)]) == published


# FIDE 10.32: "Only Rn>= 2005 are considered." (compared before rounding: 2004.9 is not.)
@pytest.mark.parametrize(
    ("results", "published"),
    [
        ([(2005, 9)], 2005),
        ([(2004.9, 9)], None),
        ([(2010, 5), (1990, 5)], None),
        ([(2020, 5), (1990, 5)], 2005),
    ],
)
def test_only_a_new_rating_of_at_least_2005_is_published(results, published):
    assert published_rating(Performance(r, g) for r, g in results) == published


@given(st.lists(st.tuples(st.floats(2005, 2800), st.integers(1, 15)), min_size=1, max_size=6))
def test_the_new_rating_lies_within_the_counted_performances(results):
    # FIDE 10.3: Rn is "the weighted average of all his Ru results".
    rn = new_rating(Performance(r, g) for r, g in results)
    assert min(r for r, _ in results) - 1e-6 <= rn <= max(r for r, _ in results) + 1e-6


# FIDE 10.4: "plays in 50% or more of the rounds ... and who scores 50% or better";
# 10.41: a player who qualified "before the last round ... can ignore all his subsequent games".
@pytest.mark.parametrize(
    ("scores", "rounds", "qualified"),
    [
        ([1, 0, 1, 0, 0.5, 0.5, 0.5], 14, True),
        ([1, 1, 1, 1, 1, 1], 14, False),
        ([1, 0, 1, 0, 0.5, 0.5, 0], 14, False),
        ([1, 1, 1, 1, 0, 0, 0.5, 0, 0, 0], 13, True),
        ([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1], 13, False),
        ([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], 13, True),
    ],
)
def test_olympiad_qualification(scores, rounds, qualified):
    assert olympiad_qualified(scores, rounds) is qualified


def test_olympiad_entry_ratings():
    # FIDE 10.4: "entered on the FRL at 2200 (2050 for players in the Women's Olympiad)"
    assert olympiad_entry(womens=False) == 2200
    assert olympiad_entry(womens=True) == 2050


def test_a_swiss_competition_is_the_average_of_the_rated_opponents():
    # FIDE 10.21a: "In a Swiss or Team tournament: this is simply the average rating of his
    # opponents." Decision: a game against another unrated player is not counted.
    players = [
        Player("U", None),
        Player("V", None),
        Player("a", 2200, games=40),
        Player("b", 2300, games=40),
        Player("c", 2400, games=40),
    ]
    games = [("U", "a", 1), ("b", "U", 0.5), ("U", "c", 0.5), ("U", "V", 0)]
    u = swiss(players, games).player("U")
    assert (u.games, u.score, u.rc_before_cap, u.rc) == (3, 2, 2300, 2300)
    assert u.performance == 2312.5  # 10.23: one half point over 50%
    # B.02 9.14b: "a minimum of 9 games played against rated opponents": not yet published
    assert (u.published_rating, u.post, u.official) == (None, None, None)


def test_the_350_point_rule_applies_to_an_unrated_player_from_his_first_ru():
    # FIDE 10.61: "A difference in rating of more than 350 points will be counted ... as 350",
    # applied to unrated players in 10.68 ("Player H, A counts as 2500"). First Ru = Rc = 2325
    # (10.22); 2700 is 375 above it and counts as 2675, so Rc(new) = 2325 - 25/4.
    players = [Player("U", None), *(Player(x, r, 40) for x, r in [("a", 2700), ("b", 2200)])]
    players += [Player("c", 2200, 40), Player("d", 2200, 40)]
    games = [("U", "a", 0), ("U", "b", 1), ("c", "U", 0.5), ("U", "d", 0.5)]
    u = swiss(players, games).player("U")
    assert u.rc_before_cap == 2325
    assert u.performance_before_cap == 2325
    assert u.rc == u.performance == 2318.75


def test_a_zero_first_performance_gives_no_published_rating():
    # FIDE 10.24 with dp = -800 (decision): first Ru = 2300 - 800; the 350-point rule then counts
    # both opponents as 1850 (10.61 as in 10.68), so Ru = 1850 - 800; 10.31 ignores it.
    players = [Player("U", None), Player("a", 2300, 40), Player("b", 2300, 40)]
    u = swiss(players, [("U", "a", 0), ("b", "U", 1)]).player("U")
    assert (u.performance_before_cap, u.rc, u.performance) == (1500, 1850, 1050)
    assert u.published_rating is None and u.post is None and u.official is None


def test_prior_performances_are_averaged_with_this_one():
    # FIDE 10.3: "the weighted average of all his Ru results" (2280 over 5 games before).
    players = [
        Player("U", None, prior=(Performance(2280, 5),)),
        *(Player(x, 2400, 40) for x in "abcde"),
    ]
    games = [("U", x, 0.5) for x in "abcde"]
    u = swiss(players, games).player("U")
    assert u.performance == 2400
    assert u.post == (2280 * 5 + 2400 * 5) / 10
    assert u.published_rating == 2340


def test_an_olympiad_qualifier_is_entered_at_2200():
    # FIDE 10.4: 3.5/7 of 14 rounds; Ru = Rc = 2000 would be ignored under 10.31.
    players = [Player("U", None), *(Player(x, 2000, 40) for x in "abcdefg")]
    games = [("U", x, s) for x, s in zip("abcdefg", [1, 0, 1, 0, 0.5, 0.5, 0.5], strict=True)]
    u = swiss(players, games, format="olympiad", rounds=14).player("U")
    assert u.performance == 2000
    assert u.published_rating == 2200 and u.official == 2200
    women = swiss(players, games, format="olympiad", rounds=14, womens=True).player("U")
    assert women.published_rating == 2050


def test_an_olympiad_performance_above_2200_is_kept():
    # FIDE 10.4: "unless that player's performance qualifies for a higher rating"
    players = [Player("U", None), *(Player(x, 2400, 40) for x in "abcdefg")]
    games = [("U", x, s) for x, s in zip("abcdefg", [1, 1, 1, 0, 0.5, 0.5, 1], strict=True)]
    u = swiss(players, games, format="olympiad", rounds=14).player("U")
    assert u.performance == 2437.5
    assert u.published_rating == 2440


def test_an_olympiad_player_under_fifty_percent_of_the_rounds_gets_no_entry_rating():
    # FIDE 10.4: "plays in 50% or more of the rounds" — 6 of 14 is not enough.
    players = [Player("U", None), *(Player(x, 2000, 40) for x in "abcdef")]
    games = [("U", x, 0.5) for x in "abcdef"]
    u = swiss(players, games, format="olympiad", rounds=14).player("U")
    assert u.published_rating is None


def test_an_olympiad_section_needs_its_number_of_rounds():
    with pytest.raises(ValueError):
        Section("olympiad", START, END, (Player("a", 2000),), ())


def test_a_newly_rated_player_is_rated_but_counts_as_unrated_for_opponents():
    # FIDE 10.5: "he is rated as a rated player with his current rating, but in the rating of
    # his opponents he is counted as an unrated player."
    players = [
        Player("N", 2100, games=0, newly_rated=True),
        Player("R", 2300, games=40),
        Player("S", 2200, games=40),
    ]
    out = swiss(players, [("N", "R", 0.5), ("S", "N", 0.5), ("R", "S", 1)])
    n, r = out.player("N"), out.player("R")
    assert (n.games, n.rc, n.k) == (2, 2250, 25)
    assert n.rating_change == pytest.approx(25 * (1 - 2 * 0.30))  # D = -150 → PD .30
    assert r.games == 1  # only the game against S counts for R


def test_a_newly_rated_player_in_a_round_robin_counts_through_ra():
    # FIDE 10.5 with 10.21b: N (published 2100 since) is left out of Rar and dpa, counts for his
    # opponents at his Ru from Ra, and is himself rated with Rc = (Ra(n+1) - R)/n (10.61).
    players = [
        Player("a", 2400, 40, reached_2400=True),
        Player("b", 2300, 40),
        Player("c", 2200, 40),
        Player("N", 2100, 0, newly_rated=True),
    ]
    games = [("a", "b", 1), ("a", "c", 1), ("a", "N", 0.5), ("b", "c", 0.5), ("b", "N", 1)]
    out = swiss(players, [*games, ("c", "N", 1)], format="round_robin")
    assert (out.rar, out.dpa) == (2300, 91)  # p: .83 → 273, .50 → 0, .50 → 0
    assert out.ra == 2232  # 2300 - 91 × 3/4 = 2231.75
    n, a = out.player("N"), out.player("a")
    assert n.performance_before_cap == 2232 - 273 * 3 / 4  # 10.25 with p = .17
    assert (n.pre, n.k, n.rc_before_cap) == (2100, 25, (2232 * 4 - 2100) / 3)
    # a (2400) meets N at 2027.25, more than 350 below: N counts as 2050 for a.
    assert a.rc_before_cap == (2232 * 4 - 2400) / 3
    assert a.rc == pytest.approx(a.rc_before_cap + (2050 - 2027.25) / 3)
