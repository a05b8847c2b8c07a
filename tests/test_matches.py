"""Rated individual matches (§7 "Individual matches are rated with the following restrictions")."""

import math
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.uschess.matches import (
    FloorLoweringRequest,
    MatchPlayer,
    NotRateable,
    RatedMatch,
    rate_match,
    three_years_before,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import VERSIONS

V2015, V2020, V2024 = (VERSIONS[n] for n in ("uschess-2015", "uschess-2020", "uschess-2024"))
ON = date(2024, 6, 1)


def rate(first, second, score, games=4, on=ON, system=System.OTBR, version=V2024, dual=False):
    return rate_match(
        first,
        second,
        first_score=score,
        games=games,
        on=on,
        system=system,
        version=version,
        dual_rated=dual,
    )


def spec_change(r0, n, opponent, score, m, k_numerator=800.0):
    """§3 N' and §4.2 K(S − E) written out from the text."""
    n_star = 50 if r0 > 2355 else 50 / math.sqrt(0.662 + 0.00000739 * (2569 - r0) ** 2)
    n_eff = min(n, n_star)
    expected = m / (1 + 10 ** (-(r0 - opponent) / 400))
    return k_numerator / (n_eff + m) * (score - expected)


@pytest.mark.parametrize(
    ("first", "second", "reason"),
    [
        (MatchPlayer(1800, 25), MatchPlayer(1800, 100), "the first player has no established"),
        (MatchPlayer(1800, 100), MatchPlayer(1800, 0), "the second player has no established"),
        (MatchPlayer(1800, 100), MatchPlayer(2201, 100), "the ratings differ by 401"),
        (MatchPlayer(2201, 100), MatchPlayer(1800, 100), "the ratings differ by 401"),
    ],
)
def test_matches_need_established_ratings_at_most_400_apart(first, second, reason):
    # §7: "Both players involved must have an established published rating, with the
    # difference in ratings not to exceed 400 points."
    result = rate(first, second, 2)
    assert isinstance(result, NotRateable)
    assert result.reason.startswith(reason)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (MatchPlayer(1800, 26), MatchPlayer(2200, 26)),
        (MatchPlayer(1799.5, 100), MatchPlayer(2199.6, 100)),
        (MatchPlayer(1800.4, 100), MatchPlayer(2200.4, 100)),
    ],
)
def test_a_difference_of_exactly_400_published_points_is_rated(first, second):
    # §7: "the difference in ratings not to exceed 400 points" (26 games: "more than 25")
    assert isinstance(rate(first, second, 2), RatedMatch)


def test_a_difference_of_401_published_points_is_refused():
    # §7: "the difference in ratings not to exceed 400 points"
    result = rate(MatchPlayer(1799.4, 100), MatchPlayer(2200.0, 100), 2)
    assert result == NotRateable("the ratings differ by 401 points, more than 400")


def test_the_match_change_is_the_standard_formula_without_bonus():
    # §7: "The bonus formula does not apply to matches."; §4.2: Rs = R0 + K(S − E)
    result = rate(MatchPlayer(1800, 100), MatchPlayer(1750, 100), 3)
    assert isinstance(result, RatedMatch)
    first, second = result.first, result.second
    assert first.k == pytest.approx(800 / (first.n_eff + 4))
    assert first.change == pytest.approx(spec_change(1800, 100, 1750, 3, 4))
    assert second.change == pytest.approx(spec_change(1750, 100, 1800, 1, 4))
    assert first.rating == pytest.approx(1800 + first.change)
    assert (first.games_after, second.games_after) == (104, 104)
    assert first.limits_applied == second.limits_applied == ()


def test_the_dual_rated_k_applies_only_to_the_systems_the_version_names():
    # §4.2 2015: dual-rated K in every system; 2020+: "In updating the OTBR rating"
    first, second = MatchPlayer(2300, 200), MatchPlayer(2250, 200)
    dual_k = 800 * (6.5 - 0.0025 * 2300)
    for version, system, numerator in [
        (V2015, System.OTBQ, dual_k),
        (V2020, System.OTBQ, 800.0),
        (V2024, System.OTBR, dual_k),
    ]:
        result = rate(first, second, 1, games=2, system=system, version=version, dual=True)
        assert result.first.change == pytest.approx(spec_change(2300, 200, 2250, 1, 2, numerator))


def test_no_player_changes_more_than_50_in_a_match():
    # §7: "The maximum rating change in a match is 50 points"
    result = rate(MatchPlayer(1800, 30), MatchPlayer(2150, 100), 4)
    assert result.first.raw_change == pytest.approx(spec_change(1800, 30, 2150, 4, 4))
    assert result.first.raw_change > 100
    assert result.second.raw_change < -70
    assert (result.first.change, result.second.change) == (50.0, -50.0)
    assert (result.first.rating, result.second.rating) == (1850.0, 2100.0)
    assert result.first.limits_applied == result.second.limits_applied == ("match",)


@pytest.mark.parametrize(
    ("days_ago", "expected", "limits"),
    [
        (0, 20.0, ("match", "180 days")),
        (100, 20.0, ("match", "180 days")),
        (179, 20.0, ("match", "180 days")),
        (180, 50.0, ("match",)),  # 180 days before: outside the window
        (400, 50.0, ("match",)),
    ],
)
def test_the_net_match_change_in_180_days_is_at_most_100(days_ago, expected, limits):
    # §7: "the maximum net rating change in 180 days due to match play is 100 points"
    prior = ((ON - timedelta(days=days_ago), 80.0),)
    result = rate(MatchPlayer(1800, 30, prior_match_changes=prior), MatchPlayer(2150, 100), 4)
    assert result.first.after_match_limit == 50.0
    assert result.first.change == expected
    assert result.first.limits_applied == limits


def test_a_loss_is_limited_by_the_180_day_net_in_the_other_direction():
    # §7: "maximum net rating change in 180 days" — net, in either direction
    prior = ((ON - timedelta(days=10), -60.0), (ON - timedelta(days=5), -30.0))
    result = rate(
        MatchPlayer(1800, 100, prior_match_changes=prior), MatchPlayer(1800, 100), 0, games=2
    )
    assert result.first.after_match_limit < -10
    assert result.first.net_180_days_before == -90.0
    assert result.first.change == -10.0
    assert result.first.limits_applied == ("180 days",)


def test_a_gain_after_losses_uses_the_net_not_the_gross_change():
    # §7: "maximum net rating change" — a gain reduces a net loss
    prior = ((ON - timedelta(days=10), -50.0), (ON - timedelta(days=5), -50.0))
    result = rate(
        MatchPlayer(1800, 100, prior_match_changes=prior), MatchPlayer(1800, 100), 2, games=2
    )
    assert result.first.change == result.first.raw_change > 0
    assert result.first.limits_applied == ()


def test_a_net_already_past_the_limit_does_not_force_a_change_against_the_result():
    # Decision: a net already beyond a limit may only shrink toward it.
    prior = ((ON - timedelta(days=10), 120.0),)
    player = MatchPlayer(1800, 100, prior_match_changes=prior)
    won = rate(player, MatchPlayer(1800, 100), 4).first
    lost = rate(player, MatchPlayer(1800, 100), 0).first
    assert won.change == 0.0
    assert lost.change == lost.after_match_limit


@pytest.mark.parametrize(
    ("earliest", "expected"),
    [
        (date(2021, 6, 2), 10.0),
        (date(2021, 6, 1), 50.0),  # exactly three years before: outside the window
    ],
)
def test_the_net_match_change_in_3_years_is_at_most_200(earliest, expected):
    # §7: "the maximum net rating change in 3 years due to match play is 200 points"
    prior = (
        (earliest, 50.0),
        (date(2022, 3, 1), 50.0),
        (date(2022, 12, 1), 50.0),
        (date(2023, 8, 1), 40.0),
    )
    result = rate(MatchPlayer(1800, 100, prior_match_changes=prior), MatchPlayer(2150, 100), 4)
    assert result.first.net_180_days_before == 0.0
    assert result.first.after_180_day_limit == 50.0
    assert result.first.change == expected
    if expected == 10.0:
        assert result.first.limits_applied == ("match", "3 years")


def test_three_years_before_a_leap_day_is_february_28():
    assert three_years_before(date(2024, 2, 29)) == date(2021, 2, 28)
    assert three_years_before(ON) == date(2021, 6, 1)


def test_a_match_result_below_the_floor_is_a_request_to_lower_the_floor_by_100():
    # §7: "if a player has a match result that would lower the rating to below that player's
    # floor, this will be treated as a request to have that floor lowered by 100 points"
    result = rate(MatchPlayer(1710, 100, floor=1700), MatchPlayer(1700, 100), 0, games=1)
    first = result.first
    assert first.change == pytest.approx(spec_change(1710, 100, 1700, 0, 1))
    assert first.rating == 1700.0
    assert first.floor_request == FloorLoweringRequest(1700, 1600, 1710 + first.change)
    assert result.second.floor_request is None


def test_a_granted_request_never_goes_below_the_new_floor():
    # §7: "the rating will drop below the old floor and the new floor will be 100 points below";
    # decision: a rating already below the floor is not raised by a loss.
    first = rate(MatchPlayer(1620, 100, floor=1700), MatchPlayer(2000, 100), 0, games=12).first
    assert 1620 + first.change < 1600
    assert first.floor_request == FloorLoweringRequest(1700, 1600, 1600.0)
    assert first.rating == 1620.0


def test_a_result_that_stays_above_the_floor_makes_no_request():
    # §7: a request only for "a match result that would lower the rating to below" the floor
    first = rate(MatchPlayer(1800, 100, floor=1700), MatchPlayer(1800, 100), 0).first
    assert first.floor_request is None
    assert first.rating == pytest.approx(1800 + first.change)


def test_an_impossible_score_is_rejected():
    with pytest.raises(ValueError):
        rate(MatchPlayer(1800, 100), MatchPlayer(1800, 100), 4.5)
    with pytest.raises(ValueError):
        rate(MatchPlayer(1800, 100), MatchPlayer(1800, 100), 1.25)


changes = st.lists(
    st.tuples(
        st.dates(min_value=date(2019, 1, 1), max_value=ON),
        st.floats(-50, 50),
    ),
    max_size=12,
).map(tuple)


@given(
    rating=st.floats(100, 2800),
    gap=st.floats(-400, 400),
    games=st.integers(1, 20),
    n=st.integers(26, 2000),
    opponent_n=st.integers(26, 2000),
    half_points=st.integers(0, 40),
    prior=changes,
    version=st.sampled_from([V2015, V2020, V2024]),
    system=st.sampled_from(list(System)),
    dual=st.booleans(),
)
def test_a_match_change_never_exceeds_50(
    rating, gap, games, n, opponent_n, half_points, prior, version, system, dual
):
    # §7: "The maximum rating change in a match is 50 points"
    first = MatchPlayer(rating, n, prior_match_changes=prior)
    second = MatchPlayer(max(100.0, rating + gap), opponent_n)
    result = rate(first, second, min(half_points / 2, games), games, ON, system, version, dual)
    if isinstance(result, NotRateable):
        return
    for player in (result.first, result.second):
        assert abs(player.change) <= 50
        assert player.rating >= 100
    short, long = result.first.net_180_days_before, result.first.net_3_years_before
    if abs(short) <= 100:
        assert abs(short + result.first.change) <= 100 + 1e-9
    if abs(long) <= 200:
        assert abs(long + result.first.change) <= 200 + 1e-9
