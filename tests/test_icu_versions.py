"""The ICU rating algorithm's versions after 2012 (`icu-2012`, `icu-2013`, `icu-2014`).

Source: Improvements to the ICU Rating Algorithm (Mark Orr, ratings.icu.ie/articles/18): "The
old algorithm is deemed to be version 1.0. Subsequent improvements ... are referred to as
versions 1.1, 1.2, 1.3"; the ICU's program (`icu_ratings`, `RatedTournament#rate!`) for what
each version sets. Dates: docs/decisions.md, "ICU algorithm versions".
"""

from datetime import date

import pytest
from projection_helpers import Ledger, round_robin

from ledger.rules.icu import practice
from ledger.rules.icu.algorithm import V1_0, V1_1, V1_2, V1_3
from ledger.rules.icu.practice import rate_section
from ledger.rules.icu.provisional import game_performance
from ledger.rules.icu.section import Player, Section
from ledger.rules.icu.versions import VERSIONS, resolve
from ledger.rules.rounding import round_half_up
from projections.explain import explain, render
from projections.projector import View

START = date(2014, 6, 1)
JUNIOR, ADULT = date(1995, 1, 1), date(1960, 1, 1)
NEW, VETERAN = date(2008, 1, 1), date(1980, 1, 1)
ADULTS = "cdefghij"


def rated(pid, rating, born=ADULT, started=VETERAN):
    return Player(pid, rating, 100, born=born, started=started)


def e(own, opponent):
    return 1 / (1 + 10 ** ((opponent - own) / 400))


def rate(players, games, algorithm):
    return rate_section(Section(START, START, tuple(players), tuple(games)), algorithm)


# articles/18: "remained unchanged between 1999-2012"; versions 1.1, 1.2, 1.3 "in the order they
# were implemented" (dates: docs/decisions.md); a version named is used whatever the date.
@pytest.mark.parametrize(
    ("start", "name"),
    [
        (date(2012, 8, 31), "icu-1999"),
        (date(2012, 9, 1), "icu-2012"),
        (date(2013, 8, 31), "icu-2012"),
        (date(2013, 9, 1), "icu-2013"),
        (date(2014, 2, 13), "icu-2013"),
        (date(2014, 2, 14), "icu-2014"),
        (date(2025, 9, 1), "icu-2014"),
    ],
)
def test_each_algorithm_version_rates_the_sections_from_its_date(start, name):
    assert resolve(start).name == name == resolve(start, "icu").name
    assert resolve(date(2000, 1, 1), name).name == name


# articles/18, Version 1.1: "For the first calculation (before bonuses) the maximum iterations
# are set to 30 and the threshold change to 0.5"; "the maximum number of iterations used (in
# version 1.0) was only 1"; the program: 1.1 iterates 30 times after bonuses, 1.2 sets the
# threshold 0.1, keeps the first bonuses and updates the receivers' ratings, 1.3 iterates 200.
@pytest.mark.parametrize(
    ("name", "algorithm", "sweeps", "threshold", "phase_2_bonuses", "update_bonuses"),
    [
        ("icu-1999", V1_0, (30, 1), 0.5, True, False),
        ("icu-2012", V1_1, (30, 30), 0.5, True, False),
        ("icu-2013", V1_2, (30, 30), 0.1, False, True),
        ("icu-2014", V1_3, (200, 200), 0.1, False, True),
    ],
)
def test_what_each_version_changed(
    name, algorithm, sweeps, threshold, phase_2_bonuses, update_bonuses
):
    assert (algorithm.first_sweeps, algorithm.second_sweeps) == sweeps
    assert algorithm.threshold == threshold
    assert (algorithm.phase_2_bonuses, algorithm.update_bonuses) == (
        phase_2_bonuses,
        update_bonuses,
    )
    assert VERSIONS[name].carries_published  # articles/16: "always rounded to the nearest integer"


def juniors_drawing_each_other():
    """Two juniors (1906, K 40) each beat six adults rated 1800, lose to a seventh and draw each
    other: both earn a bonus, then count for each other at it in the re-rating."""
    players = [rated("A", 1906, JUNIOR, NEW), rated("B", 1906, JUNIOR, NEW)]
    players += [rated(x, 1800) for x in ADULTS]
    games = [(j, x, 1) for j in "AB" for x in ADULTS[:6]]
    games += [("A", "i", 0), ("B", "i", 0), ("A", "B", 0.5)]
    return players, games


def test_version_1_2_keeps_the_first_bonus_where_1_0_and_1_1_award_it_again():
    # articles/12: threshold 1906 + 32 + 3 × (8 − 4) = 1950, the excess rounded, then × 1.25 for
    # K 40. First calculation: the other junior at 1906; re-rating: at his post-bonus rating.
    # 1.0/1.1 compute the bonus again from the re-rated change; 1.2 ("no new bonuses in the
    # second phase") keeps the first.
    first = 40 * (6.5 - 7 * e(1906, 1800) - 0.5)
    first_bonus = round_half_up(1.25 * round_half_up(1906 + first - 1950))
    again = 40 * (6.5 - 7 * e(1906, 1800) - e(1906, 1906 + first + first_bonus))
    again_bonus = round_half_up(1.25 * round_half_up(1906 + again - 1950))
    assert (first_bonus, again_bonus) == (19, 24)
    players, games = juniors_drawing_each_other()
    for algorithm, points in ((V1_0, again_bonus), (V1_1, again_bonus), (V1_2, first_bonus)):
        a = rate(players, games, algorithm).player("A")
        assert a.bonus == points
        assert a.post == pytest.approx(1906 + again + points)


def with_two_unrated_players():
    """The juniors' section with N, who loses to A and draws M, and M, who draws an adult."""
    players, games = juniors_drawing_each_other()
    players += [Player("N", None), Player("M", None)]
    games += [("A", "N", 1), ("N", "M", 0.5), ("M", "j", 0.5)]
    return players, games


def one_more_sweep(out):
    """How far N's and M's ratings move in one more sweep (articles/17, "The Solution"), A counted
    at the rating N faced him at (N's Rc is the average of A's and M's)."""
    n, m = out.player("N"), out.player("M")
    a_seen = 2 * n.rc - m.post
    n_next = (game_performance(a_seen, 0) + game_performance(m.post, 0.5)) / 2
    m_next = (game_performance(n.post, 0.5) + game_performance(1800, 0.5)) / 2
    return max(abs(n_next - n.post), abs(m_next - m.post))


def test_version_1_1_iterates_the_provisional_ratings_after_bonuses_to_a_stable_solution():
    # articles/18, Version 1.1: after bonuses "the maximum number of iterations used (in version
    # 1.0) was only 1. One iteration is usually not enough to reach a stable solution"; "The
    # symptom was provisional ratings which were slightly different from what one would expect".
    players, games = with_two_unrated_players()
    assert one_more_sweep(rate(players, games, V1_0)) > 0.5
    assert one_more_sweep(rate(players, games, V1_1)) < 0.5


def test_version_1_2_counts_a_bonus_receiver_at_his_re_rated_rating():
    # The program's 1.2 ("update bonuses"): after the re-rating, a receiver's rating for his
    # opponents is start + bonus + re-rated change, i.e. the rating he is published at; 1.1
    # kept the first calculation's.
    players, games = with_two_unrated_players()
    for algorithm, published in ((V1_1, False), (V1_2, True)):
        out = rate(players, games, algorithm)
        a_seen = 2 * out.player("N").rc - out.player("M").post
        assert (a_seen == pytest.approx(out.player("A").post)) is published


@pytest.mark.parametrize("algorithm", [V1_0, V1_1, V1_2, V1_3])
def test_a_full_rated_players_change_is_k_times_a_minus_e_against_the_games_listed(algorithm):
    # articles/16: R = Ro + K × (A − E), plus any bonus (articles/12); the games an outcome lists
    # are the ratings that change was computed against, also after the re-rating.
    players, games = with_two_unrated_players()
    for o in rate(players, games, algorithm).players:
        if o.k is not None:
            elo = sum(o.k * (s - e(o.pre, r)) for r, s in o.results)
            assert o.rating_change == pytest.approx(elo + o.bonus)
            assert o.expected == pytest.approx(sum(e(o.pre, r) for r, _ in o.results))


@pytest.mark.parametrize(
    ("algorithm", "n1", "n2"),
    [
        # n1 beats a (2000) and draws n2; n2 loses to a and draws n1: n1 = (2400 + n2)/2,
        # n2 = (1600 + n1)/2. From no estimate each sweep halves the distance to the fixed point
        # (6400/3, 5600/3): the 12th moves both by 0.39 < 0.5; the 14th by 0.098 < 0.1.
        (V1_0, 2133.203125, 1866.796875),
        (V1_2, 2133.30078125, 1866.69921875),
    ],
)
def test_version_1_2_stops_iterating_at_a_change_below_0_1(algorithm, n1, n2):
    players = [Player("n1", None), Player("n2", None), rated("a", 2000)]
    out = rate(players, [("n1", "a", 1), ("n2", "a", 0), ("n1", "n2", 0.5)], algorithm)
    assert (out.player("n1").post, out.player("n2").post) == (n1, n2)


def test_version_1_3_allows_200_iterations():
    # The program's 1.3: at most 200 iterations. Forty unrated players in a chain of draws, the
    # first linked to a full rating by a win over a 2000: each sweep carries the estimate one
    # link further, so 30 sweeps cannot settle it; 200 can, and everyone performs at 2400.
    chain = [f"n{i}" for i in range(40)]
    players = [rated("a", 2000), *(Player(x, None) for x in chain)]
    games = [("n0", "a", 1), *((x, y, 0.5) for x, y in zip(chain, chain[1:], strict=False))]
    with pytest.raises(ValueError, match="did not converge in 30"):
        rate(players, games, V1_2)
    out = rate(players, games, V1_3)
    assert {out.player(x).official for x in chain} == {2400}


def test_the_versions_name_their_outcomes():
    players, games = juniors_drawing_each_other()
    section = Section(START, START, tuple(players), tuple(games))
    assert VERSIONS["icu-2014"].rate(section).rules == "icu-2014"
    assert practice.rate_section(section).rules == "icu-1999"


def test_the_icu_explain_lists_each_game_k_and_the_change(ledger, tmp_path):
    # Issue 19: "its explain lists the games, the opponents' ratings, K and the change". p (1800,
    # K 24 by the default dates) beats q (1700) and draws r (1900) in a 2024 section (icu-2014).
    p, q, r = "40000001", "40000002", "40000003"
    led = Ledger(ledger)
    led.register(p, q, r, adult=True)
    for who, rating in ((p, 1800.0), (q, 1700.0), (r, 1900.0)):
        led.opening(who, "ICU", rating, 100)
    section = round_robin("ICU1", [p, q, r], "2024-06-01", results={(p, r): "1/2-1/2"})
    led.submit(section)
    view = View(tmp_path / "icu.db", "icu")
    led.catch_up(view)
    out = explain(view, p, "ICU", section="ICU1")
    change = 24 * (1.5 - e(1800, 1700) - e(1800, 1900))
    assert out["rules"]["version"] == "icu-2014" and out["result"]["recomputes"]
    assert out["values"]["k"] == 24 and out["values"]["rating_change"] == pytest.approx(change)
    assert out["values"]["games"] == [[q, 1700.0, 1.0], [r, 1900.0, 0.5]]
    assert f'  games: [["{q}", 1700.0, 1.0], ["{r}", 1900.0, 0.5]]' in render(out).splitlines()
