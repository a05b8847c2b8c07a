"""FIDE by date: fide-2003 (10.0), fide-2022 and fide-2024 (B.02 8.1–8.3, 7.1.4), the K rules,
the 400-point rule, initial ratings, the 8.3.4 rounding and the 1 March 2024 uplift."""

import re
from datetime import date
from pathlib import Path

import pytest

from ledger.rules.fide import modern
from ledger.rules.fide import section as fide
from ledger.rules.fide.initial import PoolEvent, initial_rating, months_before
from ledger.rules.fide.k_factor import k_factor, limited_k
from ledger.rules.fide.per_game import counted_differences, game_deltas, round_change
from ledger.rules.fide.tables import DP, pd_hundredths
from ledger.rules.fide.unrated import Performance, published_rating
from ledger.rules.fide.uplift import uplifted, uplifted_official
from ledger.rules.fide.versions import BY_NAME, resolve

SPEC = Path("/work/shared/specs/fide-rating-regulations-2024.txt")
V2022, V2024 = BY_NAME["fide-2022"], BY_NAME["fide-2024"]


def spec_text() -> str:
    if not SPEC.exists():
        pytest.skip(f"{SPEC} is not on this machine")
    return SPEC.read_text()


def table_811() -> dict[int, int]:
    """8.1.1 as printed: "p dp" pairs, e.g. "1.0  800", ".83  273"."""
    block = spec_text().split("8.1.1")[1].split("8.1.2")[0]
    pairs = re.findall(r"(1\.0|\.\d\d)\s+(-?\d+)", block)
    return {round(float(p) * 100): int(v) for p, v in pairs}


def table_812() -> list[tuple[int, int | None, int]]:
    """8.1.2 as printed: "D  H  L" rows, e.g. "  0-3     .50  .50", " > 735    1.0  .00"."""
    block = spec_text().split("8.1.2")[1].split("8.2 ")[0]
    rows = re.findall(r"(\d+)-(\d+)\s+(\.\d\d)\s+(\.\d\d)", block)
    out = [(int(a), int(b), round(float(h) * 100)) for a, b, h, _ in rows]
    return [*sorted(out), (736, None, 100)]


@pytest.mark.parametrize(
    ("day", "name"),
    [
        (date(2003, 4, 1), "fide-2003"),
        (date(2009, 6, 30), "fide-2003"),
        (date(2022, 1, 1), "fide-2022"),  # "effective from 1 January 2022"
        (date(2024, 2, 29), "fide-2022"),  # "till 29 February 2024"
        (date(2024, 3, 1), "fide-2024"),  # "applied from 1 March 2024"
        (date(2026, 1, 1), "fide-2024"),
    ],
)
def test_a_section_is_rated_under_the_version_in_force_on_its_end_date(day, name):
    assert resolve(day).name == name


def test_table_8_1_1_is_the_one_the_2024_text_prints():
    # 8.1.1: "For a zero or 1.0 score dp is ... shown notionally as 800."
    printed = table_811()
    assert len(printed) == 101
    assert printed == DP


def test_table_8_1_2_is_the_one_the_2024_text_prints():
    for low, high, h in table_812():
        for d in (low, high if high is not None else 2000):
            assert pd_hundredths(d) == h, d  # 8.1.2: the H column
            assert pd_hundredths(-d) == 100 - h, d  # and the L column


@pytest.mark.parametrize(
    ("rating", "games", "reached_2400", "birth", "k"),
    [
        (1800, 10, False, None, 40),  # "K = 40 ... until ... at least 30 games"
        (1800, 30, False, None, 20),  # "K = 20 as long as a player's rating remains under 2400"
        (2399, 200, False, None, 20),
        (2400, 200, False, None, 10),  # 2400 is not "under 2400"
        (2350, 200, True, None, 10),  # "even if the rating drops below 2400"
        (2299, 200, False, date(2007, 12, 31), 40),  # junior, year of his 18th birthday
        (2299, 200, False, date(2006, 1, 1), 20),  # the year after it
        (2300, 200, False, date(2010, 1, 1), 20),  # "as long as their rating remains under 2300"
        (2410, 5, True, None, 10),  # a published 2400 rating comes first (docs/decisions.md)
        (2410, 5, False, date(2010, 1, 1), 10),  # the list rating is a published rating
    ],
)
def test_the_k_rules_of_8_3_3(rating, games, reached_2400, birth, k):
    for version in (V2022, V2024):
        assert k_factor(version, rating, games, reached_2400, birth, date(2025, 6, 1)) == k


@pytest.mark.parametrize(("k", "n", "limited"), [(20, 39, 17), (40, 17, 40), (40, 18, 38)])
def test_k_times_n_never_exceeds_700(k, n, limited):
    # 8.3.3: "K shall be the largest whole number such that K x n does not exceed 700"
    assert limited_k(V2024, k, n) == limited
    assert limited * n <= 700


@pytest.mark.parametrize(
    ("rating", "day", "d"),
    [
        (2700, date(2025, 9, 30), 400),  # 8.3.1 before the amendment: capped for everyone
        (2700, date(2025, 10, 1), 500),  # "For players rated 2650 and above ... in all cases"
        (2649, date(2025, 10, 1), 400),  # "for players rated below 2650"
    ],
)
def test_the_400_point_rule_and_its_2650_exception(rating, day, d):
    assert counted_differences(V2024, rating, [rating - 500], day, False) == [d]
    # Rapid and blitz keep the cap for everyone.
    assert counted_differences(V2024, rating, [rating - 500], day, True) == [400]


def test_in_2022_a_player_benefits_from_only_one_upgrade_per_tournament():
    # 8.3.1 (2022): "a player may benefit from only one upgrade under this rule, for the game in
    # which the rating difference is greatest"; a lower-rated player is always counted at −400.
    ds = counted_differences(V2022, 2000, [1063, 1299, 1413, 2500], date(2023, 1, 1), False)
    assert ds == [400, 701, 587, -400]
    # The same games under 2024: every difference capped.
    assert counted_differences(V2024, 2000, [1063, 1299, 1413, 2500], date(2024, 5, 1), False) == [
        400,
        400,
        400,
        -400,
    ]


def test_each_game_gives_score_minus_pd():
    # 8.3.2 b): "Delta R = score - PD"; D = 100 → PD .64 (8.1.2 row 99-106).
    (g,) = game_deltas(V2024, 2100, [(2000, 0.5)], date(2024, 5, 1))
    assert (g.d, g.pd, g.delta) == (100, 0.64, -0.14)


@pytest.mark.parametrize(("change", "rounded"), [(-2.5, -3), (2.5, 3), (2.49, 2), (-0.4, 0)])
def test_the_period_change_is_rounded_half_away_from_zero(change, rounded):
    # 8.3.4: "0.5 is rounded away from zero."
    assert round_change(change) == rounded


def test_the_2024_initial_rating_adds_two_hypothetical_draws_against_1800():
    # 8.2.2–8.2.3: 5 games, 3 points, opponents 9507: Ra = 13107/7 = 1872.43, p = 4/7 → .57,
    # dp = 50, Ru = 1922.
    event = PoolEvent(date(2024, 5, 1), ((1900, 1), (1850, 0.5), (1950, 1), (1800, 0), (2007, 0.5)))
    init = initial_rating(V2024, [event], date(2024, 6, 1))
    assert init.ra == pytest.approx(13107 / 7, abs=1e-9)
    assert (init.p, init.dp, init.ru, init.published) == (0.57, 50, 1922, 1922)


def test_the_2024_initial_rating_is_at_most_2200():
    # 8.2.3: "The maximum initial rating is 2200."
    event = PoolEvent(date(2024, 5, 1), tuple((2400, 1.0) for _ in range(5)))
    assert initial_rating(V2024, [event], date(2024, 6, 1)).published == 2200


def test_the_2022_initial_rating_adds_20_per_half_point_over_50_percent():
    # 8.2.3 (2022): "Ru = Ra + 20 for each half point scored over 50%" (no hypothetical games)
    event = PoolEvent(date(2023, 5, 1), ((1900, 1), (1850, 0.5), (1950, 1), (1800, 0), (2007, 0.5)))
    init = initial_rating(V2022, [event], date(2023, 6, 1))
    assert (init.ra, init.ru) == (9507 / 5, round(9507 / 5 + 20))


def test_four_games_publish_no_rating():
    # 7.1.4: "published when it is based on at least 5 games against rated opponents"
    event = PoolEvent(date(2024, 5, 1), tuple((1900, 1.0) for _ in range(4)))
    init = initial_rating(V2024, [event], date(2024, 6, 1))
    assert init.published is None and "at least 5" in (init.reason or "")


def test_an_initial_rating_below_1400_is_not_published():
    # 7.1.4: "The rating must be at least 1400." (2022: 1000)
    first = PoolEvent(date(2024, 4, 1), ((1000, 0.5),))
    event = PoolEvent(date(2024, 5, 1), tuple((1000, 0.0) for _ in range(6)))
    init = initial_rating(V2024, [first, event])
    assert init.ru is not None and init.ru < 1400 and init.published is None


def test_a_zero_score_in_the_first_event_is_disregarded():
    # 8.2.1: "If an unrated player scores zero in their first event this score is disregarded."
    first = PoolEvent(date(2024, 4, 1), tuple((2000, 0.0) for _ in range(5)))
    second = PoolEvent(date(2024, 5, 1), tuple((1500, 0.5) for _ in range(5)))
    init = initial_rating(V2024, [first, second], date(2024, 6, 1))
    assert init.games == 5 and init.ra == (7500 + 3600) / 7


def test_results_older_than_26_months_are_not_pooled():
    # 7.1.4: "tournaments played within consecutive rating periods of not more than 26 months"
    old = PoolEvent(date(2022, 3, 31), tuple((1800, 0.5) for _ in range(3)))
    new = PoolEvent(date(2024, 5, 1), tuple((1800, 0.5) for _ in range(3)))
    assert months_before(date(2024, 6, 1), 26) == date(2022, 4, 1)
    assert initial_rating(V2024, [old, new], date(2024, 6, 1)).games == 3
    assert initial_rating(V2024, [old, new], date(2024, 5, 31)).games == 6


def test_under_10_0_a_rating_needs_nine_games():
    # B.02 9.14b: "a minimum of 9 games played against rated opponents"
    assert published_rating([Performance(2200, 8)]) is None
    assert published_rating([Performance(2200, 4), Performance(2200, 5)]) == 2200


def test_a_match_with_an_unrated_player_is_not_rated():
    # 6.1: "Matches in which one player is unrated shall not be rated."
    s = fide.Section(
        "match",
        date(2024, 5, 1),
        date(2024, 5, 2),
        (fide.Player("a", 2000, 50), fide.Player("b", None)),
        (("a", "b", 1.0), ("b", "a", 0.5)),
    )
    assert not modern.rate(s, V2024).rated


@pytest.mark.parametrize(
    ("rating", "after"), [(1000, 1400), (1500, 1700), (1999, 1999.4), (2000, 2000), (2500, 2500)]
)
def test_the_2024_uplift_raises_every_rating_below_2000_by_four_tenths_of_the_gap(rating, after):
    # FIDE, 1 March 2024: R + 0.4 × (2000 − R) for every rating below 2000.
    assert uplifted(rating) == pytest.approx(after)


def test_the_uplifted_list_rating_is_a_whole_number():
    assert uplifted_official(1001) == 1401  # 1400.6
    assert uplifted_official(1999) == 1999  # 1999.4
