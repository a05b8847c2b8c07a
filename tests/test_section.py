from datetime import date

import pytest

from ledger.rules.expectancy import winning_expectancy
from ledger.rules.uschess.effective_games import effective_games
from ledger.rules.uschess.initialization import PlayerBackground, initialize
from ledger.rules.uschess.section import Entrant, Game, initialize_columns, rate_section
from ledger.rules.uschess.special_formula import special_rating
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import resolve


def rate(entrants, games, bonus=12.0, distinct_at_three=True, dual=False):
    return rate_section(entrants, games, bonus, distinct_at_three, dual, explain=True)


def test_two_established_players_follow_steps_4_and_5():
    # §1 Step 4 with pre-event opponent ratings, Step 5 "using the results of Step 4 for the
    # opponents' ratings" while keeping the player's own pre-event rating as R0.
    a, b = rate([Entrant("a", 1500.0, 50), Entrant("b", 1600.0, 60)], [Game(0, 1, 1.0)])
    ka = 800 / (effective_games(50, 1500.0) + 1)
    kb = 800 / (effective_games(60, 1600.0) + 1)
    a4 = 1500 + ka * (1 - winning_expectancy(1500, 1600))
    b4 = 1600 + kb * (0 - winning_expectancy(1600, 1500))
    assert a.step4 == pytest.approx(a4)
    assert b.step4 == pytest.approx(b4)
    assert a.step5 == pytest.approx(1500 + ka * (1 - winning_expectancy(1500, b4)))
    assert b.step5 == pytest.approx(1600 + kb * (0 - winning_expectancy(1600, a4)))
    assert a.post_rating == a.step5
    assert (a.games_after, b.games_after) == (51, 61)  # §7: "N is incremented by m"


def test_step_3_rates_unrated_players_with_n_zero_using_one_effective_game():
    # §1 Step 3: "use the special rating formula ... letting R0 be the initialized rating ...
    # set the number of effective games for these players to 1"; opponents at pre-event ratings.
    players = [Entrant("u", 900.0, 0, unrated=True), Entrant("r", 1400.0, 30)]
    u, r = rate(players, [Game(0, 1, 1.0)])
    assert u.step3 == special_rating(900.0, 1.0, [1400.0], 1.0).rating
    assert r.step3 is None
    # Step 4 for the rated player uses the unrated opponent's Step 3 rating.
    assert r.opponents_step4 == [u.step3]
    # Step 4 for the unrated player uses its own N' = min(N, N*) = 0 and the pre-event 1400.
    assert u.step4 == special_rating(900.0, 0.0, [1400.0], 1.0).rating
    assert u.opponents_step5 == [r.step4]


def test_unrated_players_with_assigned_games_skip_step_3():
    # §1 Step 3 is "for whom Step 1 gives N = 0"; "For unrated opponents who are assigned N > 0
    # in Step 1, use their assigned rating from Step 1."
    players = [Entrant("u", 1700.0, 10, unrated=True), Entrant("r", 1650.0, 40)]
    u, r = rate(players, [Game(0, 1, 0.5)])
    assert u.step3 is None
    assert r.opponents_step4 == [1700.0]
    assert u.formula == "standard"  # N = 10 > 8


def test_the_standard_formula_is_used_when_n_exceeds_8_even_with_few_effective_games():
    # §1 Step 4: "Note that the standard formula is used even if the effective number of games
    # from Step 2 is less than or equal to 8."
    (p, _) = rate([Entrant("p", 100.0, 9), Entrant("q", 350.0, 9)], [Game(0, 1, 1.0)])
    assert p.n_eff <= 8
    assert p.formula == "standard"


@pytest.mark.parametrize(
    ("games", "history", "formula"),
    [
        (8, "mixed", "special"),  # "based upon 8 or fewer games (N ≤ 8)"
        (9, "mixed", "standard"),
        (40, "all_wins", "special"),  # "all wins or all losses ... regardless of the value of N"
        (40, "all_losses", "special"),
    ],
)
def test_formula_choice(games, history, formula):
    (p, _) = rate(
        [Entrant("p", 1500.0, games, history=history), Entrant("q", 1500.0, 30)],
        [Game(0, 1, 0.5)],
    )
    assert p.formula == formula


def test_ratings_never_fall_below_100_after_any_step():
    # §1 Steps 3–5: "If the resulting rating ... is less than 100, then change the rating to 100."
    players = [Entrant("a", 110.0, 20), Entrant("b", 2000.0, 50)]
    a, _ = rate(players, [Game(0, 1, 0.0)] * 2)
    assert a.step4 >= 100.0
    assert a.step5 >= 100.0


def test_a_player_without_games_keeps_the_rating_and_an_unrated_one_stays_unrated():
    # §7: N is incremented by m = 0; no game, no rating change.
    players = [Entrant("a", 1500.0, 30), Entrant("b", 1500.0, 30), Entrant("u", 750.0, 0, True)]
    a, b, u = rate(players, [Game(0, 1, 0.5)])
    assert a.post_rating is not None
    assert u.post_rating is None
    assert u.games_after == 0


def test_bonus_uses_the_multiplier_given_for_the_section():
    # §4.2: bonus = max(0, K(S − E) − B√m'); a 4-0 against stronger players earns it.
    players = [Entrant("p", 1500.0, 30)] + [Entrant(f"o{i}", 1800.0, 40) for i in range(4)]
    games = [Game(0, i, 1.0) for i in range(1, 5)]
    with_12 = rate(players, games, bonus=12.0)[0]
    with_10 = rate(players, games, bonus=10.0)[0]
    assert with_12.bonus > 0
    assert with_10.bonus - with_12.bonus == pytest.approx(2 * 2.0)  # ΔB × √4


def test_wins_losses_and_draws_are_counted():
    players = [Entrant("a", 1500.0, 30), Entrant("b", 1500.0, 30), Entrant("c", 1500.0, 30)]
    a, _, _ = rate(players, [Game(0, 1, 1.0), Game(2, 0, 0.5), Game(0, 2, 0.0)])
    assert (a.wins, a.draws, a.losses, a.score) == (1, 1, 1, 1.5)


def test_step_1_over_columns_initializes_only_the_players_without_a_rating():
    # §1 Step 1: "initialize the ratings of unrated players" (§2); the rated keep their pre-event
    # rating and N. The background of a rated player is never asked for.
    rules, on = resolve(date(2024, 5, 4)), date(2024, 5, 4)
    adult = PlayerBackground(adult=True)
    asked: list[int] = []

    def background(n: int) -> PlayerBackground:
        asked.append(n)
        return adult

    prior = initialize_columns(
        [1500.0, None, 1720.5], [40, 0, 12], [False] * 3, background, rules, System.OTBR, on
    )
    step1 = initialize(System.OTBR, on, rules, adult)
    assert asked == [1]
    # §2.3: an adult without other ratings is rated as a 26-year-old, 1300, with N = 0
    assert step1.rating == 1300.0 and step1.games == 0
    assert prior.rating == [1500.0, step1.rating, 1720.5]
    assert prior.games == [40, step1.games, 12]
    assert prior.unrated == [False, True, False]
    assert prior.inits == {1: step1}
