from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.fide.rated import (
    cap_adjustment,
    capped,
    expected_score,
    k_factor,
    period_rating,
    rating_change,
    round_robin_competition,
)
from ledger.rules.fide.section import Player, Section, rate_section

START, END = date(2003, 3, 1), date(2003, 3, 9)


def rate(fmt, players, games):
    return rate_section(Section(fmt, START, END, tuple(players), tuple(games)))


# FIDE 10.61: "A difference in rating of more than 350 points will be counted for rating purposes
# as though it were a difference of 350 points."
@pytest.mark.parametrize(
    ("opponent", "own", "counted"),
    [
        (2600, 2200, 2550),
        (2551, 2200, 2550),
        (2550, 2200, 2550),
        (1800, 2200, 1850),
        (2100, 2200, 2100),
    ],
)
def test_an_opponent_more_than_350_points_away_counts_as_350_away(opponent, own, counted):
    assert capped(opponent, own) == counted


def test_the_cap_adjustment_is_per_game():
    # 10.68: "Player F, [A] counts as 2500" — F (2150) meets A (2600) once in 9 games.
    assert cap_adjustment(2150, [2600] + [2300] * 8) == pytest.approx(-100 / 9)


def test_round_robin_competition():
    # FIDE 10.61: "Rc = Ra (n+1) - R over n"; 10.68: G (2300) with Ra 2348 → 2353.
    assert round_robin_competition(2348, 2300, 9) == pytest.approx(21180 / 9)


# FIDE 10.641: "K = 25 for a player new to the rating list until he has completed events with a
# total of at least 30 games. K = 15 as long as a player's rating remains under 2400. K = 10 once
# a player's published rating has reached 2400, and he has also completed events with a total of
# at least 30 games. Thereafter it remains permanently at 10."
@pytest.mark.parametrize(
    ("rating", "games", "reached_2400", "k"),
    [
        (2100, 0, False, 25),
        (2300, 29, False, 25),
        (2450, 29, False, 25),
        (2300, 30, False, 15),
        (2399, 200, False, 15),
        (2400, 30, False, 10),
        (2600, 100, False, 10),
        (2350, 100, True, 10),
    ],
)
def test_development_coefficient(rating, games, reached_2400, k):
    assert k_factor(rating, games, reached_2400) == k


def test_expected_score_and_change_of_the_worked_example():
    # FIDE 10.68: "P(D)=0.43. We = 0.43 x 9 = 3.87", "DR = (3-3.87) x 15 = -13.05 for G".
    assert expected_score(43, 9) == pytest.approx(3.87)
    assert rating_change(15, 3, 43, 9) == pytest.approx(-13.05)


# FIDE 10.65: "Rn = Ro + SDR"; 10.66: "Rn is rounded off to the nearest 1 or 0."
@pytest.mark.parametrize(
    ("old", "changes", "rn"),
    [(2300, [-13.05, 8.9], 2296), (2300, [2.5], 2303), (2300, [-2.5], 2298), (2300, [], 2300)],
)
def test_the_period_rating_sums_the_changes_and_rounds(old, changes, rn):
    assert period_rating(old, changes) == rn


def test_a_swiss_player_meets_a_capped_opponent():
    # FIDE 10.61: average of the opponents, 2700 counted as 2650 for a 2300 player; D = 2300 -
    # 2450 = -150 → PD .30 (10.1b "146-153 .70 .30"); K = 15; ΔR = 15 × (1 - .60).
    players = [Player("p", 2300, 40), Player("a", 2700, 40), Player("b", 2250, 40)]
    out = rate("swiss", players, [("p", "a", 0), ("b", "p", 0), ("a", "b", 1)])
    p = out.player("p")
    assert (p.rc_before_cap, p.rc, p.d, p.pd, p.k) == (2475, 2450, -150, 0.30, 15)
    assert p.expected == pytest.approx(0.6)
    assert p.rating_change == pytest.approx(6)
    assert p.post == pytest.approx(2306)
    assert p.official == 2306


def test_a_swiss_game_against_an_unrated_opponent_is_not_counted_for_the_rated_player():
    # FIDE 10.61: Rc is "the average rating of the player's opponent(s)"; an unrated opponent
    # has none (decision, as B.02 6.4 "only the games against rated opponents are counted").
    players = [Player("p", 2300, 40), Player("u", None), Player("a", 2300, 40)]
    out = rate("swiss", players, [("p", "u", 0), ("p", "a", 1)])
    p = out.player("p")
    assert (p.games, p.score, p.rc) == (1, 1, 2300)


def test_a_player_without_counted_games_keeps_his_rating():
    players = [Player("p", 2300, 40), Player("u", None)]
    p = rate("swiss", players, [("p", "u", 1)]).player("p")
    assert (p.rated, p.post, p.official, p.rating_change) == (False, 2300, 2300, 0)


def test_a_scheveningen_with_an_unrated_player_is_not_rated():
    # FIDE 10.67: "Scheveningen tournaments/matches are not rated if unrated players participate."
    players = [Player("a", 2300, 40), Player("b", 2200, 40), Player("u", None)]
    out = rate("scheveningen", players, [("a", "b", 1), ("a", "u", 1)])
    assert out.rated is False and out.reason is not None
    assert out.player("a").rating_change == 0 and out.player("a").rated is False
    assert out.player("u").performance is None


def test_a_scheveningen_of_rated_players_is_rated():
    players = [Player("a", 2300, 40), Player("b", 2300, 40)]
    out = rate("scheveningen", players, [("a", "b", 1)])
    assert out.rated is True
    assert out.player("a").rating_change == pytest.approx(15 * 0.5)


def test_a_round_robin_of_rated_players_uses_the_average_of_the_opponents():
    # FIDE 10.61: "Rc = Ra (n+1) - R over n" with Ra the tournament average.
    ratings = {"a": 2400, "b": 2300, "c": 2200, "d": 2100}
    players = [Player(x, r, 40) for x, r in ratings.items()]
    games = [("a", "b", 0.5), ("a", "c", 1), ("a", "d", 1), ("b", "c", 0.5), ("b", "d", 1)]
    games += [("c", "d", 0)]
    out = rate("round_robin", players, games)
    assert out.ra == 2250 and out.dpa is None
    assert out.player("a").rc == pytest.approx(2200)
    assert out.player("d").rc == pytest.approx(2300)


@given(
    st.integers(1800, 2399),
    st.integers(1800, 2399),
    st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=12),
)
def test_a_match_between_players_with_the_same_k_is_zero_sum(r1, r2, scores):
    # FIDE 10.1b: H and L expectations are mirror images, so K(W - We) cancels out in a match.
    players = [Player("x", r1, 40), Player("y", r2, 40)]
    out = rate("match", players, [("x", "y", s) for s in scores])
    assert out.player("x").rating_change + out.player("y").rating_change == pytest.approx(0)


@pytest.mark.parametrize(
    ("fmt", "games"),
    [
        ("blitz", [("a", "b", 1)]),
        ("swiss", [("a", "z", 1)]),
        ("swiss", [("a", "a", 1)]),
        ("swiss", [("a", "b", 0.3)]),
    ],
)
def test_malformed_sections_are_refused(fmt, games):
    with pytest.raises(ValueError):
        Section(fmt, START, END, (Player("a", 2000), Player("b", 2000)), tuple(games))
