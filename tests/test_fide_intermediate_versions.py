"""FIDE between 10.0 and 2022: fide-2009, fide-2011, fide-2012 and fide-2014 as rows of the
version table, chosen by the section's end date (docs/decisions.md, "FIDE 2009–2021")."""

from datetime import date, timedelta

import pytest

from ledger.rules.fide import modern
from ledger.rules.fide import section as fide
from ledger.rules.fide.initial import PoolEvent, initial_rating
from ledger.rules.fide.k_factor import k_factor
from ledger.rules.fide.versions import BY_NAME, VERSIONS, resolve

# Each version's K (new player, under 2400, 2400 reached, junior) and its source:
# 10.641 (25/15/10); 8.56 "effective from 1 July 2009" ("The K values stay as they are");
# 8.56 as in force until 30 June 2014 ("K = 30 for a player new to the rating list");
# 8.56 from 1 July 2014 (40/20/10, "K = 40 for all players until their 18th birthday");
# 8.3.3 (2022, 2024).
K_TABLE = {
    "fide-2003": (25, 15, 10, None),
    "fide-2009": (25, 15, 10, None),
    "fide-2011": (30, 15, 10, None),
    "fide-2012": (30, 15, 10, None),
    "fide-2014": (40, 20, 10, 40),
    "fide-2022": (40, 20, 10, 40),
    "fide-2024": (40, 20, 10, 40),
}
# D counted for a 2000 who beats a 1500: 350 under 10.61 ("A difference in rating of more
# than 350 points will be counted ... as 350 points"), 400 from 1 July 2009 ("A difference in
# rating of more than 400 points shall be counted ... as though it were ... 400 points"); PD
# from table 8.1(b)/8.1.2: 345–357 → .89, 392–411 → .92.
PD_OF_A_500_POINT_WIN = {"350-rc": 0.89, "400-every-game": 0.92, "400-one-upgrade": 0.92}
# Months between lists: 9.1 "four times a year"; "shortened from three months to two months"
# (1 July 2009); "produce the rating list on a monthly basis ... from July 1st 2012".
LIST_MONTHS = {"fide-2003": 3, "fide-2009": 2, "fide-2011": 2}


def first_day(version):
    """The first section end date a version rates (10.0's text: 2003, the seed's date)."""
    return max(version.start, date(2003, 1, 1))


def test_the_versions_follow_each_other_without_a_gap():
    # Every section end date has exactly one version in force.
    for earlier, later in zip(VERSIONS, VERSIONS[1:], strict=False):
        assert earlier.end is not None and later.start == earlier.end + timedelta(days=1)
    assert VERSIONS[-1].end is None


@pytest.mark.parametrize(
    ("day", "name"),
    [
        (date(2009, 6, 30), "fide-2003"),
        (date(2009, 7, 1), "fide-2009"),  # "effective from July 1st 2009"
        (date(2011, 6, 30), "fide-2009"),
        (date(2011, 7, 1), "fide-2011"),  # K = 30 (secondary source for the date)
        (date(2012, 6, 30), "fide-2011"),
        (date(2012, 7, 1), "fide-2012"),  # "come into effect from July 1st 2012"
        (date(2014, 6, 30), "fide-2012"),
        (date(2014, 7, 1), "fide-2014"),  # "Effective from 1 July 2014"
        (date(2021, 12, 31), "fide-2014"),
        (date(2022, 1, 1), "fide-2022"),
    ],
)
def test_a_section_is_rated_under_the_version_in_force_on_its_end_date(day, name):
    assert resolve(day).name == name


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
def test_each_version_has_the_k_factors_of_its_text(version):
    new, mid, top, junior = K_TABLE[version.name]
    day = first_day(version)
    assert k_factor(version, 1800, 10, False, None, day) == new  # "until ... 30 games"
    assert k_factor(version, 1800, 30, False, None, day) == mid  # "remains under 2400"
    assert k_factor(version, 2350, 30, True, None, day) == top  # "even if ... below 2400"
    teen = date(day.year - 16, 1, 1)
    assert k_factor(version, 2200, 100, False, teen, day) == (junior or mid)  # under 2300


@pytest.mark.parametrize(("name", "k"), [("fide-2009", 25), ("fide-2012", 10), ("fide-2014", 10)])
def test_k_10_needs_30_games_only_under_the_older_wording(name, k):
    # 10.641 (kept in 2009: "The K values stay as they are"): a new player keeps K 25 until 30
    # games even at 2400. The 8.56 text in force before 1 July 2014 (K = 30) and the 2014 one:
    # "K = 10 once a player's published rating has reached 2400", no games condition.
    version = BY_NAME[name]
    assert k_factor(version, 2410, 12, False, None, version.start) == k


@pytest.mark.parametrize(
    ("name", "day", "k"),
    [
        ("fide-2014", date(2018, 8, 14), 40),  # 8.56 (2014): "until their 18th birthday"
        ("fide-2014", date(2018, 8, 15), 20),  # the birthday itself: no longer
        ("fide-2022", date(2018, 12, 31), 40),  # 8.3.3: "until the end of the year of ..."
    ],
)
def test_the_2014_junior_k_ends_on_the_18th_birthday(name, day, k):
    version = BY_NAME[name]
    assert k_factor(version, 2000, 100, False, date(2000, 8, 15), day) == k


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
def test_the_350_or_400_point_rule_of_each_version(version):
    # A 2000 (K mid) beats a 1500 in a section ending on the version's first day.
    players = (fide.Player("a", 2000, games=100), fide.Player("b", 1500, games=100))
    day = first_day(version)
    section = fide.Section("swiss", day, day, players, (("a", "b", 1.0),))
    outcome = {o.player: o for o in modern.rate(section, version).players}["a"]
    pd = PD_OF_A_500_POINT_WIN[version.cap]
    assert outcome.rating_change == pytest.approx(version.k_mid * (1 - pd), abs=1e-9)


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
def test_each_version_publishes_a_list_as_often_as_its_text_says(version):
    assert version.list_months == LIST_MONTHS.get(version.name, 1)


@pytest.mark.parametrize(
    ("name", "published"),
    [
        ("fide-2009", None),  # 9 games until 30 June 2014
        ("fide-2012", None),
        ("fide-2014", 1600),  # "only 5 games is necessary ... (down from 9 games)"
    ],
)
def test_from_july_2014_five_games_publish_a_first_rating(name, published):
    version = BY_NAME[name]
    event = PoolEvent(version.start, tuple((1600, 0.5) for _ in range(5)))
    assert initial_rating(version, [event], version.start + timedelta(days=31)).published == (
        published
    )


@pytest.mark.parametrize(("name", "published"), [("fide-2011", None), ("fide-2012", 1100)])
def test_the_floor_is_1200_from_2009_and_1000_from_july_2012(name, published):
    # 0.6 (2009): "after 1.7.2009 the floor will be 1200"; "lower the rating floor to 1000 ...
    # from July 1st 2012". Nine draws against 1100: Ru = Ra = 1100.
    version = BY_NAME[name]
    event = PoolEvent(version.start, tuple((1100, 0.5) for _ in range(9)))
    assert initial_rating(version, [event], version.start + timedelta(days=31)).published == (
        published
    )


@pytest.mark.parametrize(
    ("name", "above"),
    [("fide-2009", 50), ("fide-2011", 60), ("fide-2014", 80), ("fide-2022", 80)],
)
def test_a_first_rating_adds_half_the_highest_k_per_half_point_over_50_percent(name, above):
    # 2009: "the value of 0.5 point in a new player's rating calculation will stay as 12.5
    # (half of the highest K value)"; 8.2.3 (2022): "Ru = Ra + 20 for each half point".
    # 6.5 of 9 against 1800: 4 half points over 50 %.
    version = BY_NAME[name]
    results = tuple((1800, s) for s in (1, 1, 1, 1, 1, 1, 0.5, 0, 0))
    event = PoolEvent(version.start, results)
    init = initial_rating(version, [event], version.start + timedelta(days=31))
    assert init.ru == 1800 + above
