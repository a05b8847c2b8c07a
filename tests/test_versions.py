from datetime import date

import pytest

from ledger.rules.uschess.versions import Amendment, resolve, version_for


@pytest.mark.parametrize(
    ("start", "multiplier"),
    [
        # 2024 text §8, "apply to all sections with start date at or after the date specified"
        (date(2008, 6, 5), 10.0),
        (date(2008, 6, 6), 6.0),
        (date(2012, 8, 3), 8.0),
        (date(2014, 3, 19), 8.0),
        (date(2014, 3, 20), 10.0),
        (date(2015, 5, 31), 10.0),
        (date(2015, 6, 1), 12.0),
        (date(2017, 6, 1), 14.0),
        (date(2023, 1, 31), 14.0),
        (date(2023, 2, 1), 12.0),  # §4.2: "B = 12 effective February 1, 2023"
        (date(2025, 6, 1), 12.0),
    ],
)
def test_bonus_multiplier_by_section_start_date(start, multiplier):
    assert resolve(start).bonus_multiplier == multiplier


@pytest.mark.parametrize(
    ("start", "name"),
    [
        (date(2015, 1, 7), "uschess-2015"),
        (date(2020, 5, 31), "uschess-2015"),
        (date(2020, 6, 1), "uschess-2020"),  # §8: "2020-06-01 Initialization ... blended"
        (date(2024, 2, 29), "uschess-2020"),
        (date(2024, 3, 1), "uschess-2024"),  # §8: "2024-03-01 Update FIDE-to-USChess conversion"
        # B = 10 for 2025 events is a recorded amendment, not a text (docs/decisions.md)
        (date(2025, 6, 1), "uschess-2024"),
    ],
)
def test_rules_version_is_chosen_by_start_date(start, name):
    assert version_for(start).name == name


@pytest.mark.parametrize(
    ("start", "fide_1800"),
    [
        (date(2024, 2, 29), 180 + 0.94 * 1800),  # 2020 §2.1
        (date(2024, 3, 1), -1073 + 1.5667 * 1800),  # 2024 §2.1: "As of March 1, 2024"
    ],
)
def test_fide_conversion_changes_on_1_march_2024(start, fide_1800):
    assert resolve(start).fide_conversion(1800) == pytest.approx(fide_1800)


def test_an_amendment_changes_the_multiplier_from_its_date_only():
    # Real history: B = 10 for 2025 sections, applied retroactively.
    b10 = Amendment("bonus_multiplier", 10, date(2025, 1, 1), date(2026, 1, 1))
    assert resolve(date(2024, 12, 31), amendments=[b10]).bonus_multiplier == 12.0
    assert resolve(date(2025, 7, 4), amendments=[b10]).bonus_multiplier == 10.0
    assert resolve(date(2026, 1, 1), amendments=[b10]).bonus_multiplier == 12.0


def test_later_amendments_win_over_earlier_ones():
    first = Amendment("bonus_multiplier", 10, date(2025, 1, 1))
    second = Amendment("bonus_multiplier", 11, date(2025, 1, 1))
    assert resolve(date(2025, 3, 1), amendments=[first, second]).bonus_multiplier == 11.0


@pytest.mark.parametrize(
    ("parameter", "value"),
    [("bonus_multiplier", -1), ("bonus_multiplier", "twelve"), ("no_such_thing", 1)],
)
def test_bad_amendments_are_refused(parameter, value):
    with pytest.raises(ValueError):
        Amendment(parameter, value, date(2025, 1, 1))


def test_an_explicit_version_overrides_the_date():
    assert resolve(date(2019, 1, 1), "uschess-2024").version.name == "uschess-2024"
    with pytest.raises(ValueError, match="unknown rules version"):
        resolve(date(2019, 1, 1), "uschess-1999")
