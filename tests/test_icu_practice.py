"""The ICU rating system as applied from 1999 (`icu-1999`), from the ICU's own articles.

Sources: ICU Rating Calculations (Mark Orr, icu.ie/articles/193); ratings.icu.ie articles
7 (Ordering ICU Rated Tournaments), 10 (K-factors), 12 (Bonus Points), 16 (Basic Rating
Formulae), 17 (Unrated or Provisionally Rated Opponents), 18 (Improvements to the ICU Rating
Algorithm).
"""

from datetime import date

import pytest
from projection_helpers import Ledger, round_robin

from ledger.estimate import estimate, load_section
from ledger.rules.icu import practice, section
from ledger.rules.icu.bonus import bonus, threshold
from ledger.rules.icu.practice import rate_section
from ledger.rules.icu.provisional import average_performance, game_performance, iterate
from ledger.rules.icu.section import Player, Section
from ledger.rules.icu.versions import resolve, version_for
from ledger.rules.rounding import round_half_up
from projections import queries
from projections.items import sort_key
from projections.projector import View

START = date(2010, 6, 1)
JUNIOR, ADULT = date(1995, 1, 1), date(1960, 1, 1)
NEW, VETERAN = date(2008, 1, 1), date(1980, 1, 1)


def rated(pid, rating, born=ADULT, started=VETERAN):
    return Player(pid, rating, 100, born=born, started=started)


def rate(players, games, start=START):
    return rate_section(Section(start, start, tuple(players), tuple(games)))


def e(own, opponent):
    return 1 / (1 + 10 ** ((opponent - own) / 400))


# ICU Rating Calculations, "Unrated Players": "the performance rating for one game is R for a
# draw, R + 400 for a win and R - 400 for a loss".
@pytest.mark.parametrize(("score", "performance"), [(1, 2200), (0.5, 1800), (0, 1400)])
def test_a_game_performs_at_the_opponents_rating_plus_or_minus_400(score, performance):
    assert game_performance(1800, score) == performance


def test_an_unrated_players_rating_is_his_average_game_performance():
    # "Their rating after the tournament is their average performance rating": beats 1800
    # (2200), loses to 2000 (1600), draws 1900 (1900): (2200 + 1600 + 1900) / 3 = 1900.
    players = [Player("n", None), rated("a", 1800), rated("b", 2000), rated("c", 1900)]
    n = rate(players, [("n", "a", 1), ("b", "n", 1), ("n", "c", 0.5)]).player("n")
    assert (n.post, n.official, n.published_rating, n.performance) == (1900, 1900, 1900, 1900)
    assert (n.games, n.score, n.rc, n.provisional) == (3, 1.5, 1900, True)


def test_a_provisional_rating_averages_all_games_so_far():
    # "average performance rating for all the games they have played up to and including the
    # tournament": 10 earlier games at 1500, then 2200 and 1400: (15000 + 3600) / 12 = 1550.
    assert average_performance([2200, 1400], 10, 1500) == 1550
    players = [Player("p", 1500, 10), rated("a", 1800), rated("b", 1800)]
    p = rate(players, [("p", "a", 1), ("b", "p", 1)]).player("p")
    assert p.post == 1550 and p.rating_change == 50
    assert p.tournament_performance == 1800  # this tournament alone: (2200 + 1400) / 2


def test_several_unrated_players_converge_together():
    # "if the opponent is unrated ... the rating used is their rating at the end of the
    # tournament"; "iterated until the estimates converge"; articles/18: threshold 0.5.
    # n1 beats a (2400) and draws n2; n2 loses to a (1600) and draws n1. Fixed point:
    # n1 = (2400 + n2)/2, n2 = (1600 + n1)/2, i.e. 2133.33 and 1866.67. The sweeps from no
    # estimate: (2400, 1600), (2000, 2000), (2200, 1800), ... the 12th moves both by 0.39 < 0.5
    # and stops at 2133.203125 and 1866.796875.
    players = [Player("n1", None), Player("n2", None), rated("a", 2000)]
    out = rate(players, [("n1", "a", 1), ("n2", "a", 0), ("n1", "n2", 0.5)])
    n1, n2 = out.player("n1"), out.player("n2")
    assert (n1.post, n2.post) == (2133.203125, 1866.796875)
    assert (n1.official, n2.official) == (2133, 1867)
    assert n1.post == pytest.approx((2400 + n2.post) / 2, abs=0.5)


def test_the_iteration_stops_only_when_no_estimate_moves_by_the_threshold():
    results = {"n1": [("a", 1.0), ("n2", 0.5)], "n2": [("a", 0.0), ("n1", 0.5)]}
    loose = iterate(results, {"a": 2000.0}, {}, 0.5, 30)
    tight = iterate(results, {"a": 2000.0}, {}, 1e-9, 100)
    assert tight["n1"] == pytest.approx(6400 / 3) and tight["n2"] == pytest.approx(5600 / 3)
    assert abs(loose["n1"] - tight["n1"]) < 0.5 and loose != tight
    with pytest.raises(ValueError, match="converge"):
        iterate(results, {"a": 2000.0}, {}, 1e-9, 3)


def test_players_without_any_link_to_a_full_rating_are_not_rated():
    # articles/17, "A Constraint": "each unrated or provisionally rated player must have at least
    # one opponent who is either fully rated or who has played a fully rated opponent".
    out = rate([Player("n1", None), Player("n2", None)], [("n1", "n2", 1)])
    assert [o.rated for o in out.players] == [False, False]
    assert out.player("n1").post is None


def test_a_rated_player_counts_a_provisional_opponent_at_his_new_rating():
    # articles/17: start ratings of provisionally rated players are "their new ratings at the end
    # of the tournament". q (1700 over 5 games) loses to a: (5 × 1700 + 1400) / 6 = 1650; a
    # (adult, 30 years' experience, K = 24) gains 24 × (1 − e(1800, 1650)).
    players = [rated("a", 1800), Player("q", 1700, 5)]
    out = rate(players, [("a", "q", 1)])
    assert out.player("q").post == 1650
    a = out.player("a")
    assert (a.games, a.rc, a.k) == (1, 1650, 24)
    assert a.post == pytest.approx(1800 + 24 * (1 - e(1800, 1650)))


def test_the_elo_example_of_the_basic_rating_formulae():
    # articles/16, "Example": 2000, K = 40, beats a 2000 and draws a 2200:
    # "= 2000 + 40 × (1.5 - 0.740) = 2000 + 30.4 = 2030".
    players = [rated("p", 2000, born=JUNIOR, started=NEW), rated("a", 2000), rated("b", 2200)]
    p = rate(players, [("p", "a", 1), ("b", "p", 0.5)]).player("p")
    assert p.k == 40 and p.expected == pytest.approx(0.740, abs=5e-4)
    assert p.rating_change == pytest.approx(30.4, abs=0.05)
    assert p.official == 2030


# articles/10: "if the player's start rating is ≥ 2100, then 16 - otherwise, if the player's age
# is < 21 years, then 40 - otherwise, if the player's experience is < 8 years, then 32 -
# otherwise, 24". As applied in the ICU's rating database, K = 16 only above 2100: every row with
# an old rating of exactly 2100 used 24, 32 or 40 (docs/decisions.md).
@pytest.mark.parametrize(
    ("rating", "born", "started", "k"),
    [
        (2099, JUNIOR, NEW, 40),
        (2100, JUNIOR, NEW, 40),
        (2100, ADULT, NEW, 32),
        (2100, ADULT, VETERAN, 24),
        (2101, ADULT, VETERAN, 16),
        (2099, ADULT, NEW, 32),
        (2099, ADULT, VETERAN, 24),
        # "If date of birth is unknown it defaults to 1950-01-01. If join date is unknown ... it
        # defaults to 1975-01-01": an adult with over 8 years' experience.
        (1800, None, None, 24),
        (1800, JUNIOR, None, 40),
        (1800, None, NEW, 32),
    ],
)
def test_the_k_factor_as_the_ratings_site_defines_it(rating, born, started, k):
    players = [rated("p", rating, born, started), rated("a", rating)]
    assert rate(players, [("p", "a", 0.5)]).player("p").k == k


def test_the_bonus_example_of_the_article():
    # articles/12: 1906, K 40, 9 rounds, pre-bonus 1975, performance 2109; "threshold: 1906 + 32
    # + (9 − 4) × 3 = 1953"; "bonus points: (1975 − 1953) × 1.25 = 28"; "new rating: 2003".
    assert threshold(1906, 9) == 1953
    assert bonus(1906, 1975 - 1906, 40, 9, 2109) == 28
    assert 1975 + bonus(1906, 1975 - 1906, 40, 9, 2109) == 2003


# articles/12: "full rating ... and a K-factor of 32 or 40", "at least 5 rated games", the
# pre-bonus rating "be less than 2100" and "exceed a threshold"; "If the player's K-factor is 40
# ... increased by 25%"; capped at "2099 or the player's tournament performance rating".
@pytest.mark.parametrize(
    ("pre", "change", "k", "games", "performance", "points"),
    [
        (1906, 69, 32, 9, 2109, 22),  # K 32: no 25 %
        (1906, 69, 24, 9, 2109, 0),  # K 24: not eligible
        (1906, 69, 40, 4, 2109, 0),  # 4 games: not eligible
        (1906, 47, 40, 9, 2109, 0),  # 1953 does not exceed the threshold 1953
        (2000, 100, 40, 5, 2300, 0),  # pre-bonus 2100 is not less than 2100
        (2000, 90, 40, 5, 2300, 9),  # 2090 + 1.25 × (90 − 35) = 2159 > 2099: reduced to 2099
        (1906, 69, 40, 9, 1990, 15),  # 1975 + 28 > performance 1990: reduced to 1990
        (1906, 69.6, 40, 9, 2109, 29),  # round(22.6) = 23, round(28.75) = 29
    ],
)
def test_when_and_how_much_bonus_is_awarded(pre, change, k, games, performance, points):
    assert bonus(pre, change, k, games, performance) == pytest.approx(points)


def test_a_bonus_is_added_and_the_opponents_are_re_rated_against_it():
    # A junior (K 40) at 1906 scores 8.5/9 against 1800s (K 24). Initial: 1906 + 40 × (8.5 − We);
    # bonus 1.25 × round(initial − 1953); "Compensating Opponents": each opponent is then rated
    # against him at that post-bonus rating, so a loser loses 24 × e(1800, post) only.
    players = [rated("a", 1906, JUNIOR, NEW), *(rated(x, 1800) for x in "bcdefghij")]
    games = [("a", x, 1) for x in "bcdefghi"] + [("a", "j", 0.5)]
    out = rate(players, games)
    initial = 1906 + 40 * (8.5 - 9 * e(1906, 1800))
    points = round_half_up(1.25 * round_half_up(initial - 1953))
    a = out.player("a")
    assert a.bonus == points == 75
    assert a.post == pytest.approx(initial + points)
    assert a.tournament_performance == pytest.approx((8 * 2200 + 1800) / 9)
    b = out.player("b")
    assert b.rc == pytest.approx(initial + points)
    assert b.post == pytest.approx(1800 - 24 * e(1800, initial + points))
    assert b.bonus == 0


def test_no_published_rating_is_negative():
    # Decision (the articles are silent): a floor at 0. Two losses to a 300: (−100 −100) / 2.
    players = [Player("n", None), rated("a", 300)]
    n = rate(players, [("n", "a", 0), ("a", "n", 1)]).player("n")
    assert (n.post, n.official, n.published_rating) == (0, 0, 0)


def test_ratings_are_rounded_to_the_nearest_integer_half_up():
    # articles/16: "New ratings are always rounded to the nearest integer"; (2201 + 1800) / 2.
    players = [Player("n", None), rated("a", 1801), rated("b", 1800)]
    n = rate(players, [("n", "a", 1), ("n", "b", 0.5)]).player("n")
    assert n.post == 2000.5 and n.official == 2001


def test_the_tournament_with_the_20th_game_is_still_averaged_then_the_rating_is_full():
    # "less than 20 rated games prior to the tournament" are unrated; full ratings "20 or more".
    opponents = [rated(x, 1900) for x in "abc"]
    games = [("p", x, 0.5) for x in "abc"]
    p = rate([Player("p", 1800, 18), *opponents], games).player("p")
    assert p.post == pytest.approx((18 * 1800 + 3 * 1900) / 21) and p.provisional is False
    after = rate([Player("p", p.official, 21), *opponents], games).player("p")
    assert after.k == 24 and after.performance is None  # no dates: joined 1975 by default


# articles/7: "a player's start rating in a tournament is from the last tournament the player
# competed in"; "a different ordering rule, one based on tournament end date rather than start
# date": a league ending in April comes before a tournament started and ended in May.
def test_tournaments_are_rated_in_order_of_end_date():
    league = sort_key("2012-04-28", "2011-10-01", 9)
    congress = sort_key("2012-05-01", "2012-04-29", 1)
    assert league < congress


# ICU Rating Calculations: the system "in operation since 1999"; the 2005 text by name only;
# articles/18: version 1.0 "unchanged between 1999-2012" (the later versions:
# tests/test_icu_versions.py).
@pytest.mark.parametrize(
    ("start", "name", "version"),
    [
        (date(1998, 12, 31), None, section.RULES),
        (date(1999, 1, 1), None, practice.RULES),
        (date(2012, 8, 31), "icu", practice.RULES),
        (date(2024, 6, 1), "icu-2005", section.RULES),
        (date(1990, 6, 1), "icu-1999", practice.RULES),
    ],
)
def test_the_version_is_picked_by_the_section_date_unless_named(start, name, version):
    assert resolve(start, name).name == version
    if name is None:
        assert version_for(start).name == version


def test_an_unknown_icu_version_is_refused():
    with pytest.raises(ValueError, match="unknown ICU rules"):
        resolve(START, "icu-2030")


def test_estimate_picks_the_icu_version_by_date_or_by_name():
    data = {
        "start_date": "2010-06-01",
        "end_date": "2010-06-01",
        "players": [{"id": "n", "unrated": True}, {"id": "a", "rating": 1800, "games": 50}],
        "games": [{"white": "n", "black": "a", "result": "1-0"}],
    }
    by_date = estimate(load_section(data), "icu")
    assert by_date["rules"] == "icu-1999"
    assert by_date["players"][0]["post_rating"] == 2200  # 1800 + 400
    named = estimate(load_section(data), "icu-2005")
    assert named["rules"] == "icu-2005"
    assert named["players"][0]["post_rating"] == 2600  # FIDE's dp(1.00) = +800 (decision)


def test_the_read_model_starts_each_tournament_from_the_published_ratings(ledger, tmp_path):
    # articles/7: the start rating is from the player's last tournament; articles/16: "New
    # ratings are always rounded to the nearest integer". p beats q (1801 + 400) and draws r
    # (1800): 2000.5, published 2001. r (K 24 by the default dates) draws p at 2000.5. Next,
    # p draws r again: (2 × 2001 + r's published rating) / 3.
    p, q, r = "40000001", "40000002", "40000003"
    led = Ledger(ledger)
    led.register(p, q, r, adult=True)
    led.opening(q, "ICU", 1801.0, 100)
    led.opening(r, "ICU", 1800.0, 100)
    first = round_robin("ICU1", [p, q, r], "2024-06-01")
    first["games"] = [
        {"round": 1, "white": p, "black": q, "result": "1-0"},
        {"round": 2, "white": r, "black": p, "result": "1/2-1/2"},
    ]
    second = round_robin("ICU2", [p, r], "2024-07-01")
    second["games"] = [{"round": 1, "white": p, "black": r, "result": "1/2-1/2"}]
    led.submit(first, second)
    view = View(tmp_path / "icu.db", "icu")
    led.catch_up(view)
    after_first, after_second = queries.history(view, p, "ICU")
    assert after_first["post_rating"] == 2001 and after_first["rules"] == "icu-2014"
    r_published = round_half_up(1800 + 24 * (0.5 - e(1800, 2000.5)))
    assert queries.history(view, r, "ICU")[-2]["post_rating"] == r_published
    assert after_second["post_rating"] == round_half_up((2 * 2001 + r_published) / 3)
