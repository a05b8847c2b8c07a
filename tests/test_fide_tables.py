import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.fide.tables import DP, PD_BANDS, dp, pd_hundredths, percentage


# FIDE 10.1a: "The table of conversion from percentage score, p, into rating differences, dp"
@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (99, 677),
        (89, 351),
        (84, 284),
        (83, 273),
        (78, 220),
        (67, 125),
        (66, 117),
        (51, 7),
        (50, 0),
        (49, -7),
        (44, -43),
        (33, -125),
        (32, -133),
        (22, -220),
        (16, -284),
        (15, -296),
        (11, -351),
        (1, -677),
    ],
)
def test_dp_matches_the_printed_table(p, expected):
    assert dp(p) == expected


# FIDE 10.1: "For a zero or 100% score dp is necessarily indeterminate." Decision: ±800,
# the values FIDE later printed in those two blank cells (docs/decisions.md).
@pytest.mark.parametrize(("p", "expected"), [(100, 800), (0, -800)])
def test_the_indeterminate_ends_of_the_dp_table_are_800(p, expected):
    assert dp(p) == expected


def test_the_dp_table_covers_every_hundredth():
    # 10.1a lists p from 1.0 down to .00 in steps of .01.
    assert sorted(DP) == list(range(101))


@pytest.mark.parametrize("p", range(101))
def test_dp_is_antisymmetric_about_50_percent(p):
    # 10.1a: the negative half of the table mirrors the positive half (.49 -7 ... .51 7).
    assert dp(p) == -dp(100 - p)


@pytest.mark.parametrize("p", range(1, 100))
def test_the_two_tables_are_mirror_images(p):
    # 10.1: "Thus the two tables are effectively mirror-images."
    assert pd_hundredths(dp(p)) == p


# 10.1b: rows "0-3 .50 .50", "4-10 .51 .49", …, "620-735 .99 .01", "over 735 1.0 .00".
@pytest.mark.parametrize(
    ("d", "high"),
    [
        (0, 50),
        (3, 50),
        (4, 51),
        (10, 51),
        (11, 52),
        (53, 57),
        (54, 58),
        (227, 79),
        (235, 79),
        (236, 80),
        (350, 89),
        (357, 89),
        (358, 90),
        (619, 98),
        (620, 99),
        (735, 99),
        (736, 100),
        (2000, 100),
    ],
)
def test_pd_band_edges(d, high):
    assert pd_hundredths(d) == high
    # 10.1b: the lower-rated player L reads the other column.
    assert pd_hundredths(-d) == 100 - high


# Decision: D is rounded half up to whole points before the lookup (the table is in whole
# points), so 3.4 is read as 3 and 735.5 as 736 ("over 735").
@pytest.mark.parametrize(
    ("d", "pd"),
    [(3.4, 50), (3.5, 51), (-3.5, 49), (53.33, 57), (-53.33, 43), (735.4, 99), (735.5, 100)],
)
def test_a_fractional_difference_is_rounded_to_whole_points(d, pd):
    assert pd_hundredths(d) == pd


def test_the_pd_bands_are_contiguous_from_zero():
    # 10.1b: every whole-point difference belongs to exactly one row.
    assert PD_BANDS[0][0] == 0
    for (_, top, _), (low, _, _) in zip(PD_BANDS, PD_BANDS[1:], strict=False):
        assert low == top + 1
    assert PD_BANDS[-1][1] is None


@given(st.floats(min_value=-3000, max_value=3000, allow_nan=False))
def test_h_and_l_expectations_add_up_to_one(d):
    # 10.1b: PD "for the higher, H, and the lower, L, rated player respectively" (.76/.24 …).
    assert pd_hundredths(d) + pd_hundredths(-d) == 100


@given(st.floats(min_value=0, max_value=1000, allow_nan=False), st.floats(0, 100))
def test_pd_never_falls_as_the_difference_grows(d, extra):
    # 10.1b: the H column rises from .50 to 1.0 down the table.
    assert pd_hundredths(d + extra) >= pd_hundredths(d)


# Decision: p = W/n rounded half up to two decimals; 10.68 reads 8/9 as .89, 7/9 as .78,
# 4/9 as .44 and 2/9 as .22.
@pytest.mark.parametrize(
    ("score", "games", "p"),
    [(8, 9, 89), (7, 9, 78), (6, 9, 67), (4, 9, 44), (2, 9, 22), (1, 9, 11), (1, 8, 13)],
)
def test_a_percentage_score_is_rounded_to_two_decimals(score, games, p):
    assert percentage(score, games) == p


def test_a_percentage_needs_a_game():
    with pytest.raises(ValueError):
        percentage(0, 0)
