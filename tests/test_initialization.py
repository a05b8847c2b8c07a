"""Step 1: initial ratings of unrated players (2015 §2.1–2.6; 2020/2024 §2)."""

import math
from datetime import date, timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ledger.rules.uschess.initialization import (
    ForeignRating,
    PlayerBackground,
    SourceRating,
    age_based_rating,
    age_based_rating_2015,
    age_formula,
    age_formula_2015,
    age_in_years,
    game_factor,
    initialize,
)
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.versions import resolve

OTBR, OTBQ, OTBB = System.OTBR, System.OTBQ, System.OTBB
OLR, OLQ, OLB = System.OLR, System.OLQ, System.OLB

END_2016 = date(2016, 6, 5)
RULES_2015 = resolve(date(2016, 6, 4), "uschess-2015")
DAY = date(2016, 1, 1)


def rating(value, games):
    return SourceRating(value, games, DAY)


def fide(value):
    return ForeignRating(value, DAY)


def cfc(value):
    return ForeignRating(value, DAY)


# --- the 2020/2024 worked example -------------------------------------------------------------

EXAMPLE = PlayerBackground(
    birth_date=date(2000, 7, 1),
    ratings={
        OTBR: SourceRating(1759, 60, date(2018, 3, 25)),
        OTBQ: SourceRating(1643, 40, date(2018, 1, 13)),
        OTBB: SourceRating(1658, 30, date(2016, 7, 16)),
    },
)
EXAMPLE_ROWS = [
    # Source, X_k, Date, G_k, D_k, P_k, Z_k, S_k, W_k as printed in §2
    ("OTBR", 1759, date(2018, 3, 25), 10, 891, 886.52, 2.49, 0.60, 5.98),
    ("OTBQ", 1643, date(2018, 1, 13), 5, 962, 876.80, 2.19, 0.55, 2.74),
    ("OTBB", 1658, date(2016, 7, 16), 10, 1508, 802.05, 2.45, 0.41, 4.15),
]


@pytest.mark.parametrize("version", ["uschess-2020", "uschess-2024"])
def test_the_worked_example_of_section_2_is_reproduced(version):
    # §2 Example: "born July 1, 2000 plays in an OLB tournament ending Sept 1, 2020" … "≈ 1702"
    # and "N = 5.98 + 2.74 + 4.15 = 12.87 rounded down to the maximum of 10".
    result = initialize(OLB, date(2020, 9, 1), resolve(date(2020, 8, 30), version), EXAMPLE)
    assert result.method == "blended"
    assert result.rating == 1702
    assert result.games == 10
    assert round(sum(row.weight for row in result.sources), 2) == 12.87
    table = [
        (
            row.source,
            row.rating,
            row.as_of,
            row.game_factor,
            row.staleness_days,
            round(row.age_rating, 2),
            round(row.z, 2),
            round(row.staleness_factor, 2),
            round(row.weight, 2),
        )
        for row in result.sources
    ]
    assert table == EXAMPLE_ROWS


def test_the_worked_example_would_weigh_otbb_at_5_when_initializing_otbq_or_olq():
    # §2: "For initializing an OLB rating, this is (at most) 10 from an OTBB rating."
    player = PlayerBackground(birth_date=EXAMPLE.birth_date, ratings={OTBB: EXAMPLE.ratings[OTBB]})
    result = initialize(OLQ, date(2020, 9, 1), resolve(date(2020, 8, 30)), player)
    assert result.sources[0].game_factor == 5


# --- 2020/2024 game factors and sources -----------------------------------------------------


@pytest.mark.parametrize(
    ("target", "source", "games", "factor"),
    [
        (OLB, OTBR, 60, 10),  # "For the OTBR rating, this is (at most) 10."
        (OTBQ, OTBR, 60, 10),
        (OLR, OTBR, 60, 10),
        (OLB, OTBR, 7, 7),  # "credited with 7 games under OTBR, … reduced to 7"
        (OLB, OTBB, 30, 10),  # "For initializing an OLB rating, … 10 from an OTBB rating."
        (OLB, OTBB, 8, 8),
        (OLQ, OTBQ, 30, 10),  # "For initializing OLQ rating, … 10 from an OTBQ rating."
        (OLQ, OTBB, 30, 5),  # "For all other US Chess ratings, G_k is (at most) 5."
        (OLB, OTBQ, 30, 5),
        (OTBB, OLB, 30, 5),
        (OTBQ, OLQ, 30, 5),
        (OTBR, OTBQ, 30, 5),
        (OLR, OLQ, 30, 5),
        (OTBR, OTBQ, 3, 3),  # "can be no higher than the number of games actually credited"
        (OTBR, OLR, 1, 1),
    ],
)
def test_game_factor_is_10_or_5_by_source_capped_at_games_credited(target, source, games, factor):
    assert game_factor(target, source, games) == factor


@pytest.mark.parametrize(
    ("start", "fide_rating", "converted", "factor"),
    [
        # §2.1 (2020): 180 + 0.94 × FIDE if FIDE ≤ 2000, 20 + 1.02 × FIDE if FIDE > 2000
        (date(2024, 2, 29), 1500, 1590.0, 5),
        (date(2024, 2, 29), 2000, 2060.0, 5),
        (date(2024, 2, 29), 2001, 2061.02, 10),
        # §2.1 (2024) "As of March 1, 2024": −1073 + 1.5667 × FIDE if FIDE ≤ 2000
        (date(2024, 3, 1), 1500, 1277.05, 5),
        (date(2024, 3, 1), 2000, 2060.4, 5),
        (date(2024, 3, 1), 2001, 2061.02, 10),
    ],
)
def test_fide_ratings_are_converted_by_the_formula_in_force_with_game_factor_10_over_2000(
    start, fide_rating, converted, factor
):
    # §2.1: "a Game Factor of 10 if the FIDE rating is greater than 2000, and … 5" otherwise.
    end = start + timedelta(days=1)
    player = PlayerBackground(adult=True, fide=ForeignRating(fide_rating, end))
    result = initialize(OTBR, end, resolve(start), player)
    (row,) = result.sources
    assert row.original == fide_rating
    assert row.rating == pytest.approx(converted)
    assert row.game_factor == factor
    # With D_k = 0 the staleness factor is 1, so N = G_k and R0 is X_k rounded.
    assert result.games == factor
    assert result.rating == math.floor(converted + 0.5)


@pytest.mark.parametrize(
    ("start", "cfc_rating", "converted"),
    [
        # §2.2: CFC − 90 if CFC ≤ 1500, 1.1 × CFC − 240 if CFC > 1500 (all three texts)
        (date(2020, 9, 1), 1500, 1410.0),
        (date(2020, 9, 1), 1501, 1411.1),
        (date(2024, 3, 1), 1500, 1410.0),
        (date(2024, 3, 1), 1501, 1411.1),
    ],
)
def test_cfc_ratings_are_converted_with_game_factor_5(start, cfc_rating, converted):
    # §2.2: "This will be treated as having a Game Factor of 5."
    player = PlayerBackground(adult=True, cfc=ForeignRating(cfc_rating, start))
    result = initialize(OTBR, start, resolve(start), player)
    (row,) = result.sources
    assert (row.rating, row.game_factor, result.games) == (pytest.approx(converted), 5, 5)


def test_the_weighted_average_is_rounded_half_up():
    # §2: R0 "rounded to the nearest integer"; §7: "conventional rounding rules".
    end = date(2022, 1, 1)
    player = PlayerBackground(
        adult=True,
        ratings={OTBQ: SourceRating(1500, 5, end), OTBB: SourceRating(1501, 5, end)},
    )
    result = initialize(OTBR, end, resolve(end), player)
    assert result.rating == 1501
    assert result.games == 10


def test_n_is_the_sum_of_weights_rounded_up():
    # §2: N = min(10, ΣW_k) "rounded up to the nearest integer (so it will always be at least 1"
    end = date(2022, 1, 1)
    player = PlayerBackground(adult=True, ratings={OTBQ: SourceRating(1400, 20, date(2021, 1, 1))})
    result = initialize(OTBR, end, resolve(end), player)
    (row,) = result.sources
    # Z = (1400 − 1300)/350, S = exp(.06(Z − 6) × 365/365.25), W = 5S ≈ 3.55
    assert row.weight == pytest.approx(5 * math.exp(0.06 * (100 / 350 - 6) * 365 / 365.25))
    assert result.games == 4


def test_a_rating_six_times_350_above_the_age_rating_does_not_go_stale():
    # §2: Z_k = min(6, (X_k − P_k)/350) and S_k = exp(.06(Z_k − 6) × D_k/365.25)
    end = date(2022, 1, 1)
    player = PlayerBackground(adult=True, ratings={OTBQ: SourceRating(3500, 30, date(2002, 1, 1))})
    (row,) = initialize(OTBR, end, resolve(end), player).sources
    assert (row.age_rating, row.z, row.staleness_factor, row.weight) == (1300.0, 6.0, 1.0, 5.0)


def test_age_rating_of_each_source_is_computed_at_the_date_of_that_rating():
    # §2 step 3: "the age-based initial rating … that would have been computed at the time of
    # that rating"; a rating dated before age 3 falls under "less than 3 years old" (decision).
    player = PlayerBackground(
        birth_date=date(2010, 1, 1),
        ratings={
            OTBQ: SourceRating(600, 10, date(2012, 1, 1)),
            OTBB: SourceRating(700, 10, date(2020, 1, 1)),
        },
    )
    end = date(2022, 1, 1)
    quick, blitz = initialize(OTBR, end, resolve(end), player).sources
    assert quick.age_rating == 750.0
    assert blitz.age_rating == pytest.approx(50 * 3652 / 365.25)


def test_a_source_rating_dated_after_the_tournament_end_has_negative_staleness():
    # §2 step 2: D_k is "the number of days from when that rating was computed to the end date"
    # (decision: taken literally, so S_k > 1 for a later rating).
    end = date(2022, 1, 1)
    player = PlayerBackground(adult=True, ratings={OTBQ: SourceRating(1500, 30, date(2022, 1, 11))})
    (row,) = initialize(OTBR, end, resolve(end), player).sources
    assert row.staleness_days == -10
    assert row.staleness_factor > 1


def test_sources_with_no_games_are_skipped():
    # §2: "The Game Factor … can be no higher than the number of games actually credited".
    end = date(2022, 1, 1)
    player = PlayerBackground(
        birth_date=date(2010, 1, 1),
        ratings={OTBQ: SourceRating(1500, 0, end), OTBB: SourceRating(1200, 4, end)},
    )
    result = initialize(OTBR, end, resolve(end), player)
    assert [row.source for row in result.sources] == ["OTBB"]
    assert (result.rating, result.games) == (1200, 4)


@pytest.mark.parametrize(
    ("player", "expected"),
    [
        (PlayerBackground(birth_date=date(2012, 1, 1)), 50 * 3653 / 365.25),
        (PlayerBackground(adult=True), 1300.0),
        (PlayerBackground(), 750.0),
        (PlayerBackground(birth_date=date(2020, 1, 1), adult=True), 1300.0),
        (PlayerBackground(birth_date=date(2020, 1, 1)), 750.0),
    ],
)
def test_without_other_ratings_the_age_based_rating_is_used_with_n_zero(player, expected):
    # §2: "If none of these ratings exist, the initial rating will be the age-based rating
    # (Section 2.3) with … N, set to 0."
    end = date(2022, 1, 1)
    result = initialize(OLQ, end, resolve(end), player)
    assert (result.rating, result.games, result.sources) == (pytest.approx(expected), 0, ())
    assert result.method == "age-based"


def test_a_player_already_rated_in_the_target_system_is_not_initialized():
    # §2: "If a player has no rating under a given system" … "the five other US Chess ratings".
    end = date(2022, 1, 1)
    player = PlayerBackground(adult=True, ratings={OTBR: SourceRating(1800, 30, end)})
    with pytest.raises(ValueError, match="already has a OTBR rating"):
        initialize(OTBR, end, resolve(end), player)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([OTBQ, OTBB, OLR, OLQ, OLB]),
            st.floats(100, 2900),
            st.integers(0, 200),
            st.integers(-30, 5000),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda source: source[0],
    ),
    st.one_of(st.none(), st.dates(date(1930, 1, 1), date(2021, 1, 1))),
    st.booleans(),
)
@example(sources=[(System.OTBQ, 206.5, 5, 1)], birth=None, adult=False)  # ΣWX/ΣW = 206.5 exactly
def test_the_blended_rating_lies_between_its_sources_and_n_between_1_and_10(sources, birth, adult):
    # §2: R0 is "the weighted average of the available ratings"; N "will always be at least 1,
    # but can be no more than 10".
    end = date(2022, 1, 1)
    player = PlayerBackground(
        birth_date=birth,
        adult=adult,
        ratings={s: SourceRating(x, g, end - timedelta(days=d)) for s, x, g, d in sources},
    )
    result = initialize(OTBR, end, resolve(end), player)
    if not result.sources:
        assert all(g == 0 for _, _, g, _ in sources)
        return
    xs = [row.rating for row in result.sources]
    assert math.floor(min(xs) + 0.5) <= result.rating <= math.floor(max(xs) + 0.5)
    assert 1 <= result.games <= 10
    for row in result.sources:
        assert row.z <= 6
        assert row.weight == pytest.approx(row.game_factor * row.staleness_factor)


# --- age-based ratings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("age", "expected"),
    [(1.99, 100.0), (2.0, 100.0), (2.5, 125.0), (3.0, 150.0), (26.0, 1300.0), (26.01, 1300.0)],
)
def test_2020_age_formula_at_its_boundaries(age, expected):
    # 2020+ §2.3: 100 if Age < 2; 50 × Age if 2 ≤ Age ≤ 26; 1300 if Age > 26
    assert age_formula(age) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("age", "expected"),
    [(1.99, 1300.0), (2.99, 1300.0), (3.0, 150.0), (10.0, 500.0), (26.0, 1300.0), (26.01, 1300.0)],
)
def test_2015_age_formula_at_its_boundaries(age, expected):
    # 2015 §2.6: 50 × Age if 3 ≤ Age ≤ 26; 1300 otherwise
    assert age_formula_2015(age) == pytest.approx(expected)


def test_age_is_days_over_365_25():
    # §2.3: Age = (Tournament End Date − Birth Date)/365.25
    assert age_in_years(date(2000, 7, 1), date(2018, 3, 25)) == 6476 / 365.25


BORN = date(2010, 1, 1)
JUST_UNDER_3 = BORN + timedelta(days=1095)  # Age 2.998
JUST_OVER_3 = BORN + timedelta(days=1096)  # Age 3.0007
PAST_26 = BORN + timedelta(days=9500)  # Age 26.01


@pytest.mark.parametrize(
    ("birth", "adult", "on", "expected"),
    [
        (BORN, False, JUST_OVER_3, 50 * 1096 / 365.25),
        (BORN, False, PAST_26, 1300.0),
        # 2015 §2.6: "if Age is calculated to be less than 3 … treated as a 26-year old"
        (BORN, False, JUST_UNDER_3, 1300.0),
        (BORN, True, JUST_UNDER_3, 1300.0),
        # 2015 §2.6: no birth date "but is inferred to be an adult … set to be 1300"
        (None, True, JUST_OVER_3, 1300.0),
        # 2015: otherwise the age item does not apply and the list falls to 750
        (None, False, JUST_OVER_3, None),
    ],
)
def test_2015_age_based_rating_with_missing_and_implausible_birth_dates(birth, adult, on, expected):
    assert age_based_rating_2015(birth, adult, on) == (
        expected if expected is None else pytest.approx(expected)
    )


@pytest.mark.parametrize(
    ("birth", "adult", "on", "expected"),
    [
        (BORN, False, JUST_OVER_3, 50 * 1096 / 365.25),
        (BORN, False, PAST_26, 1300.0),
        # 2020+ §2.3: no birth date or Age < 3: adult "treated as a 26 year old (R0 = 1300)",
        # "Otherwise, they are treated as a 15 year old (R0 = 750)".
        (BORN, True, JUST_UNDER_3, 1300.0),
        (BORN, False, JUST_UNDER_3, 750.0),
        (None, True, JUST_OVER_3, 1300.0),
        (None, False, JUST_OVER_3, 750.0),
        (BORN, False, BORN - timedelta(days=1), 750.0),
    ],
)
def test_2020_age_based_rating_with_missing_and_implausible_birth_dates(birth, adult, on, expected):
    assert age_based_rating(birth, adult, on) == pytest.approx(expected)


# --- 2015 priority lists ----------------------------------------------------------------------

CHILD = dict(birth_date=date(2006, 6, 5))  # Age 10.0007 on END_2016
CHILD_RATING = 50 * 3653 / 365.25

PRIORITY_CASES = [
    # §2.1 Regular
    (OTBR, dict(fide=fide(2151), cfc=cfc(1600)), 2214.02, 10, "FIDE", "§2.1 item 1"),
    (OTBR, dict(fide=fide(2150)), 2213.0, 5, "FIDE", "§2.1 item 1"),
    (OTBR, dict(fide=fide(1500)), 1590.0, 5, "FIDE", "§2.1 item 1"),
    (OTBR, dict(cfc=cfc(1501), ratings={OTBQ: rating(1700, 30)}), 1411.1, 5, "CFC", "§2.1 item 2"),
    (OTBR, dict(cfc=cfc(1500)), 1410.0, 0, "CFC", "§2.1 item 2"),
    (OTBR, dict(ratings={OTBQ: rating(1700, 4)}, **CHILD), 1700, 0, "OTBQ", "§2.1 item 3"),
    (OTBR, dict(ratings={OTBQ: rating(1700, 3)}, **CHILD), CHILD_RATING, 0, "age-based", "item 4"),
    (OTBR, dict(ratings={OTBB: rating(1700, 30)}, adult=True), 1300, 0, "age-based", "item 4"),
    (OTBR, dict(ratings={OLQ: rating(1700, 30)}), 750, 0, "default", "§2.1 item 5"),
    # §2.2 QC
    (OTBQ, dict(ratings={OTBR: rating(1800, 4)}, fide=fide(2300)), 1800, 4, "OTBR", "§2.2 item 1"),
    (OTBQ, dict(ratings={OTBR: rating(1800, 30)}), 1800, 10, "OTBR", "§2.2 item 1"),
    (OTBQ, dict(ratings={OTBR: rating(1800, 3)}, fide=fide(2300)), 2366, 10, "FIDE", "item 2"),
    (OTBQ, dict(fide=fide(2000)), 2060.0, 5, "FIDE", "§2.2 item 2"),
    (OTBQ, dict(cfc=cfc(1600)), 1520.0, 5, "CFC", "§2.2 item 3"),
    (OTBQ, dict(cfc=cfc(1400)), 1310.0, 0, "CFC", "§2.2 item 3"),
    (OTBQ, dict(ratings={OTBB: rating(1700, 30)}, **CHILD), CHILD_RATING, 0, "age-based", "item 4"),
    (OTBQ, dict(ratings={OTBB: rating(1700, 30)}), 750, 0, "default", "§2.2 item 5"),
    # §2.3 Blitz
    (OTBB, dict(ratings={OTBR: rating(1800, 26)}, fide=fide(2300)), 1800, 10, "OTBR", "item 1"),
    (OTBB, dict(ratings={OTBR: rating(1800, 25)}, fide=fide(2300)), 2366, 10, "FIDE", "item 2"),
    (OTBB, dict(ratings={OTBR: rating(1800, 25)}, cfc=cfc(1600)), 1520.0, 5, "CFC", "item 3"),
    (OTBB, dict(ratings={OTBR: rating(1800, 25)}), 1800, 10, "OTBR", "§2.3 item 4"),
    (OTBB, dict(ratings={OTBR: rating(1800, 4), OTBQ: rating(1700, 9)}), 1800, 4, "OTBR", "item 4"),
    (OTBB, dict(ratings={OTBR: rating(1800, 3), OTBQ: rating(1700, 4)}), 1700, 0, "OTBQ", "item 5"),
    (OTBB, dict(ratings={OTBQ: rating(1700, 3)}, adult=True), 1300, 0, "age-based", "item 6"),
    (OTBB, dict(ratings={OTBQ: rating(1700, 3)}), 750, 0, "default", "§2.3 item 7"),
    # §2.4 online QC
    (OLQ, dict(ratings={OLB: rating(1500, 1), OTBQ: rating(1700, 30)}), 1500, 10, "OLB", "item 1"),
    (OLQ, dict(ratings={OTBQ: rating(1700, 1), OTBB: rating(1600, 30)}), 1700, 0, "OTBQ", "item 2"),
    (OLQ, dict(ratings={OTBB: rating(1600, 1), OTBR: rating(1800, 30)}), 1600, 0, "OTBB", "item 3"),
    (OLQ, dict(ratings={OTBR: rating(1800, 1)}, fide=fide(2300)), 1800, 0, "OTBR", "§2.4 item 4"),
    (OLQ, dict(fide=fide(2300), cfc=cfc(1600)), 2366, 0, "FIDE", "§2.4 item 5"),
    (OLQ, dict(cfc=cfc(1600)), 1520.0, 0, "CFC", "§2.4 item 6"),
    (OLQ, dict(ratings={OLR: rating(1800, 30)}, **CHILD), CHILD_RATING, 0, "age-based", "item 7"),
    (OLQ, dict(), 750, 0, "default", "§2.4 item 8"),
    # §2.5 online Blitz
    (OLB, dict(ratings={OLQ: rating(1500, 30), OTBB: rating(1600, 30)}), 1500, 0, "OLQ", "item 1"),
    (OLB, dict(ratings={OTBB: rating(1600, 1), OTBQ: rating(1700, 30)}), 1600, 0, "OTBB", "item 2"),
    (OLB, dict(ratings={OTBQ: rating(1700, 1), OTBR: rating(1800, 30)}), 1700, 0, "OTBQ", "item 3"),
    (OLB, dict(ratings={OTBR: rating(1800, 1)}, fide=fide(2300)), 1800, 0, "OTBR", "§2.5 item 4"),
    (OLB, dict(fide=fide(2300), cfc=cfc(1600)), 2366, 0, "FIDE", "§2.5 item 5"),
    (OLB, dict(cfc=cfc(1600)), 1520.0, 0, "CFC", "§2.5 item 6"),
    (OLB, dict(adult=True), 1300, 0, "age-based", "§2.5 item 7"),
    (OLB, dict(birth_date=date(2015, 1, 1)), 1300, 0, "age-based", "§2.5 item 7"),
    (OLB, dict(), 750, 0, "default", "§2.5 item 8"),
]


@pytest.mark.parametrize(("system", "background", "r0", "n", "method", "clause"), PRIORITY_CASES)
def test_2015_priority_lists_take_the_first_item_that_applies(
    system, background, r0, n, method, clause
):
    # 2015 §2.1–2.5: "determined in the following order of priority"; N as each item states.
    result = initialize(system, END_2016, RULES_2015, PlayerBackground(**background))
    assert result.rating == pytest.approx(r0)
    assert result.games == n
    assert result.method == method
    assert result.clause.endswith(clause)
    assert result.sources == ()


def test_2015_has_no_online_regular_system_to_initialize():
    # 2015: "five separate rating systems"
    with pytest.raises(ValueError, match="no OLR rating system"):
        initialize(OLR, END_2016, RULES_2015, PlayerBackground())


def test_2015_fide_conversion_follows_the_rules_in_force_for_the_section():
    # 2024 §2.1: "As of March 1, 2024" the FIDE formula changed; the 2015 list uses the one given.
    player = PlayerBackground(fide=fide(1500))
    later = resolve(date(2024, 3, 1), "uschess-2015")
    assert initialize(OTBR, date(2024, 3, 2), later, player).rating == pytest.approx(1277.05)


def test_the_same_player_is_initialized_by_priority_in_2015_and_blended_from_2020():
    # 2024 §8: "2020-06-01 Initialization of ratings blended through other systems."
    player = PlayerBackground(
        birth_date=date(1980, 1, 1),
        fide=ForeignRating(1800, date(2020, 5, 1)),
        ratings={OTBQ: SourceRating(1500, 30, date(2020, 5, 1))},
    )
    end = date(2020, 6, 7)
    old = initialize(OTBR, end, resolve(date(2020, 6, 6), "uschess-2015"), player)
    new = initialize(OTBR, end, resolve(date(2020, 6, 6)), player)
    assert (old.rating, old.games, old.method) == (pytest.approx(1872.0), 5, "FIDE")
    assert new.method == "blended"
    assert [row.source for row in new.sources] == ["OTBQ", "FIDE"]
    assert 1500 < new.rating < 1872
    assert new.games == 10
