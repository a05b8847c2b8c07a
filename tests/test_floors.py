"""Rating floors and ceilings (§5; §7 on ceilings, money floors and match floor lowering)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.uschess.floors import (
    Bound,
    FloorState,
    absolute_floor,
    after_section,
    apply_floor_and_ceiling,
    effective_floor,
    floor_components,
    money_floor,
    olm_floor,
    olm_games_after,
    peak_floor,
    with_floor_lowered,
    with_prize,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import VERSIONS

V2015, V2020, V2024 = (VERSIONS[n] for n in ("uschess-2015", "uschess-2020", "uschess-2024"))
ALL_VERSIONS = [V2015, V2020, V2024]


def test_the_absolute_floor_example_gives_124():
    # §5: "3 wins, 1 draw, ... 10 events of at least three ratable games ... AF = ... = 124"
    state = FloorState(wins=3, draws=1, sections_of_three=10)
    for version in ALL_VERSIONS:
        assert absolute_floor(state, System.OTBR, version) == 124


@pytest.mark.parametrize(
    ("wins", "draws", "sections", "expected"),
    [
        (0, 0, 0, 100),
        (12, 1, 0, 150),
        (12, 1, 1, 150),
        (20, 0, 0, 150),
        (0, 0, 49, 149),
        (0, 25, 0, 150),
    ],
)
def test_the_personal_absolute_floor_is_capped_at_150(wins, draws, sections, expected):
    # §5: "a player's absolute floor can never be higher than 150"
    state = FloorState(wins=wins, draws=draws, sections_of_three=sections)
    assert absolute_floor(state, System.OTBQ, V2024) == expected


@pytest.mark.parametrize(
    ("version", "system", "expected"),
    [
        (V2015, System.OLQ, 124),
        (V2015, System.OLB, 124),
        (V2020, System.OLQ, 100),
        (V2020, System.OLR, 100),
        (V2024, System.OLB, 100),
        (V2020, System.OTBB, 124),
        (V2024, System.OTBQ, 124),
    ],
)
def test_online_ratings_get_the_personal_absolute_floor_only_in_2015(version, system, expected):
    # §5 2015: "An individual's personal absolute rating floor"; 2020+: "For OTB ratings, ..."
    state = FloorState(wins=3, draws=1, sections_of_three=10)
    assert absolute_floor(state, system, version) == expected


@pytest.mark.parametrize(
    ("peak", "expected"),
    [
        (1941, 1700),  # §5: "highest rating was 1941 ... yields 1741 ... the floor ... is 1700"
        (1999.51, 1800),  # §5: "1999.51 ... integer-rounded rating of 2000 yields 1800"
        (1999.49, 1700),  # rounds to 1999, 1799 → 1700
        (1999.5, 1800),  # half up: 2000 → 1800
        (1388, None),  # §5: "1388 ... 1188, and the next lowest floor is the ... absolute floor"
        (1399.49, None),
        (1399.5, 1200),
        (1400, 1200),
        (2299, 2000),
        (2300, 2100),
        (2700, 2100),  # §5: "Higher rating floors exist at 1200, 1300, 1400, ..., 2100"
        (None, None),
    ],
)
def test_the_peak_floor_subtracts_200_from_the_rounded_peak_and_takes_the_level_below(
    peak, expected
):
    # §5: "subtracting 200 points from the highest attained established rating after rounding"
    assert peak_floor(peak) == expected


def test_a_peak_below_1400_leaves_the_personal_absolute_floor_in_force():
    # §5: "1388 ... the next lowest floor is the player's absolute floor ... current floor"
    state = FloorState(wins=3, draws=1, sections_of_three=10, peak=1388)
    assert effective_floor(state, System.OTBR, V2024) == (124, Bound.PERSONAL_ABSOLUTE)
    assert apply_floor_and_ceiling(110.0, state, System.OTBR, V2024) == (
        124.0,
        Bound.PERSONAL_ABSOLUTE,
    )


def test_the_peak_floor_of_1941_keeps_the_rating_at_1700():
    # §5: "Thus the player's rating cannot go below 1700."
    state = FloorState(peak=1941)
    assert apply_floor_and_ceiling(1650.2, state, System.OTBR, V2024) == (1700.0, Bound.PEAK)
    assert apply_floor_and_ceiling(1700.4, state, System.OTBR, V2024) == (1700.4, None)


@pytest.mark.parametrize("system", list(System))
def test_online_ratings_keep_the_peak_floor_in_2020(system):
    # §5: "A player with an established rating has a rating floor possibly higher" (any system)
    assert effective_floor(FloorState(peak=1941), system, V2020) == (1700, Bound.PEAK)


@pytest.mark.parametrize(
    ("version", "system", "expected"),
    [
        (V2015, System.OTBR, 2200),
        (V2015, System.OTBQ, 2200),
        (V2015, System.OLB, 2200),
        (V2020, System.OTBR, 2200),
        (V2020, System.OTBQ, None),
        (V2020, System.OLR, None),
        (V2024, System.OTBR, 2200),
        (V2024, System.OTBB, None),
    ],
)
def test_the_olm_floor_is_otbr_only_from_2020(version, system, expected):
    # §5 2015: "A player who earns the original Life Master (OLM) title ... floor of 2200";
    # 2020+: "For OTBR ratings only".
    assert olm_floor(FloorState(olm_games=300), system, version) == expected


def test_the_olm_floor_needs_300_games():
    # §5: "keeps an established rating above 2200 for 300 ... rated games"
    assert olm_floor(FloorState(olm_games=299), System.OTBR, V2024) is None
    state = FloorState(olm_games=300, peak=2450)
    assert effective_floor(state, System.OTBR, V2024) == (2200, Bound.OLM)
    assert apply_floor_and_ceiling(2150.0, state, System.OTBR, V2024) == (2200.0, Bound.OLM)


@pytest.mark.parametrize(
    ("pre_rating", "pre_games", "expected"),
    [
        (2250.0, 100, 290 + 6),
        (2200.5, 100, 290 + 6),  # official 2201: above 2200
        (2200.49, 100, 290),  # official 2200: not above 2200
        (2200.0, 100, 290),
        (2400.0, 25, 290),  # 25 games: not established
        (2400.0, 26, 290 + 6),
        (None, 0, 290),
    ],
)
def test_olm_games_count_when_the_section_starts_with_an_established_rating_above_2200(
    pre_rating, pre_games, expected
):
    # §5: "keeps an established rating above 2200 for 300 (not necessarily consecutive) games"
    assert olm_games_after(290, pre_rating, pre_games, 6) == expected


@pytest.mark.parametrize(
    ("version", "prize", "expected"),
    [
        (V2015, 2000.0, None),  # 2015: "wins over $2,000"
        (V2015, 2000.01, 1800),
        (V2015, 4000.0, 1800),
        (V2020, 2000.01, None),
        (V2020, 3999.99, None),
        (V2020, 4000.0, 1800),  # 2020+: "wins $4,000 or more ... under-1800 ... 1800"
        (V2024, 3999.99, None),
        (V2024, 4000.0, 1800),
    ],
)
def test_the_money_floor_threshold_is_over_2000_in_2015_and_4000_or_more_from_2020(
    version, prize, expected
):
    # §5: "the rating floor is set at the first 100-point level ... no longer eligible"
    assert money_floor(prize, 1800, version) == expected


@pytest.mark.parametrize(
    ("under", "expected"),
    [
        (1800, 1800),  # §5: "in an under-1800 section ... the player's rating floor would be 1800"
        (1850, 1900),
        (1801, 1900),
        (1250, 1300),
        (900, 900),  # §5: "Floors based on cash prizes can be at any 100-point level"
        (2000, 2000),  # §5: "(up to 2000)"
        (2001, None),  # §5: "in an under-2000 context"
        (2200, None),
    ],
)
def test_the_money_floor_is_the_first_100_point_level_that_ends_eligibility(under, expected):
    # §5: "the first 100-point level (up to 2000) which would make the player no longer eligible"
    assert money_floor(4000.0, under, V2024) == expected


def test_a_money_floor_binds_and_the_highest_prize_floor_is_kept():
    # §5: "A player's rating floor can also change if he or she wins a large cash prize."
    state = with_prize(FloorState(peak=1700), 5000.0, 1800, V2024)
    assert state.money_floor == 1800
    assert with_prize(state, 5000.0, 1600, V2024).money_floor == 1800
    assert with_prize(state, 100.0, 2000, V2024).money_floor == 1800
    assert apply_floor_and_ceiling(1750.0, state, System.OTBR, V2024) == (1800.0, Bound.MONEY)


def test_a_director_floor_binds_when_it_is_the_highest():
    # §7: the Executive Director may make adjustments, including "money floors"
    state = FloorState(peak=1941, director_floor=1900)
    assert apply_floor_and_ceiling(1850.0, state, System.OTBR, V2024) == (1900.0, Bound.DIRECTOR)


def test_the_effective_floor_is_the_highest_component():
    # §5: "A player with an established rating has a rating floor possibly higher than the
    # absolute floor."
    state = FloorState(wins=20, peak=1941, money_floor=1600, olm_games=10)
    assert effective_floor(state, System.OTBR, V2024) == (1700, Bound.PEAK)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (FloorState(peak=1941, floor_lowerings=1), (1600, Bound.PEAK)),
        (FloorState(peak=1941, floor_lowerings=2), (1500, Bound.PEAK)),
        (FloorState(olm_games=300, floor_lowerings=1), (2100, Bound.OLM)),
        (FloorState(wins=10, floor_lowerings=1), (100, Bound.ABSOLUTE)),
        (FloorState(peak=1400, floor_lowerings=11), (100, Bound.ABSOLUTE)),
    ],
)
def test_a_granted_match_request_lowers_the_floor_by_100_but_not_below_100(state, expected):
    # §7: "the new floor will be 100 points below the old floor"; §5: no rating below 100
    assert effective_floor(state, System.OTBR, V2024) == expected


def test_granting_a_request_counts_one_lowering():
    # §7: "If the US Chess office grants this request ... the new floor will be 100 points below"
    state = with_floor_lowered(FloorState(peak=1941))
    assert state.floor_lowerings == 1
    assert apply_floor_and_ceiling(1550.0, state, System.OTBR, V2024) == (1600.0, Bound.PEAK)


def test_a_ceiling_caps_the_rating():
    # §7: a rating "ceiling" is "a level above which a player's rating may not rise"
    state = FloorState(ceiling=1500.0)
    assert apply_floor_and_ceiling(1523.7, state, System.OTBR, V2024) == (1500.0, Bound.CEILING)
    assert apply_floor_and_ceiling(1499.9, state, System.OTBR, V2024) == (1499.9, None)


def test_a_ceiling_below_the_floor_wins_but_not_below_100():
    # Decision: the director's ceiling overrides earned floors; §5: none below 100.
    state = FloorState(peak=1941, ceiling=1650.0)
    assert apply_floor_and_ceiling(1600.0, state, System.OTBR, V2024) == (1650.0, Bound.CEILING)
    low = FloorState(ceiling=50.0)
    assert apply_floor_and_ceiling(80.0, low, System.OTBR, V2024) == (100.0, Bound.ABSOLUTE)


def test_a_section_updates_wins_draws_events_of_three_games_and_the_established_peak():
    # §5: N_W "rated games won", N_D "drawn", N_R events "of at least three ratable games";
    # the peak is the "highest attained established rating".
    state = after_section(
        FloorState(), pre_rating=None, pre_games=0, post_rating=900.0, games=3, wins=1, draws=1
    )
    assert (state.wins, state.draws, state.sections_of_three, state.peak) == (1, 1, 1, None)
    state = after_section(
        state, pre_rating=900.0, pre_games=3, post_rating=950.0, games=2, wins=2, draws=0
    )
    assert (state.wins, state.sections_of_three, state.peak) == (3, 1, None)
    state = after_section(
        state, pre_rating=950.0, pre_games=24, post_rating=1000.0, games=2, wins=0, draws=0
    )
    assert state.peak == 1000.0
    state = after_section(
        state, pre_rating=1000.0, pre_games=26, post_rating=990.0, games=4, wins=0, draws=0
    )
    assert (state.peak, state.sections_of_three) == (1000.0, 2)


def test_a_section_counts_olm_games_on_the_pre_section_rating():
    # §5: "keeps an established rating above 2200 for 300 (not necessarily consecutive) games"
    state = after_section(
        FloorState(olm_games=296),
        pre_rating=2210.0,
        pre_games=400,
        post_rating=2190.0,
        games=4,
        wins=0,
        draws=2,
    )
    assert state.olm_games == 300
    assert effective_floor(state, System.OTBR, V2020) == (2200, Bound.OLM)
    state = after_section(
        state, pre_rating=2190.0, pre_games=404, post_rating=2250.0, games=5, wins=5, draws=0
    )
    assert state.olm_games == 300


states = st.builds(
    FloorState,
    wins=st.integers(0, 500),
    draws=st.integers(0, 500),
    sections_of_three=st.integers(0, 200),
    peak=st.none() | st.floats(100, 3000),
    olm_games=st.integers(0, 600),
    money_floor=st.none() | st.integers(1, 20).map(lambda k: 100 * k),
    director_floor=st.none() | st.integers(1, 25).map(lambda k: 100 * k),
    ceiling=st.none() | st.floats(0, 3000),
    floor_lowerings=st.integers(0, 30),
)


@given(
    rating=st.floats(-500, 3500),
    state=states,
    system=st.sampled_from(list(System)),
    version=st.sampled_from(ALL_VERSIONS),
)
def test_no_rating_is_ever_below_100(rating, state, system, version):
    # §5: "No rating can be lower than the absolute rating floor."
    result, _ = apply_floor_and_ceiling(rating, state, system, version)
    assert result >= 100


@given(
    rating=st.floats(-500, 3500),
    state=states,
    system=st.sampled_from(list(System)),
    version=st.sampled_from(ALL_VERSIONS),
)
def test_without_a_ceiling_the_rating_is_never_below_the_effective_floor(
    rating, state, system, version
):
    # §5: "Thus the player's rating cannot go below" the floor.
    state = state._replace(ceiling=None)
    result, bound = apply_floor_and_ceiling(rating, state, system, version)
    floor, _ = effective_floor(state, system, version)
    assert result == max(rating, floor)
    assert (bound is None) == (rating >= floor)


@given(
    state=states.map(lambda s: s._replace(floor_lowerings=0)),
    system=st.sampled_from(list(System)),
    version=st.sampled_from(ALL_VERSIONS),
)
def test_the_effective_floor_is_the_highest_of_the_floor_components(state, system, version):
    # §5: the player's floor is the highest floor that applies (the components, computed apart
    # for the ratings table, and the effective floor, computed inline for every rated player).
    floor, kind = effective_floor(state, system, version)
    components = floor_components(state, system, version)
    assert floor == max(components.values())
    assert components[kind] == floor
