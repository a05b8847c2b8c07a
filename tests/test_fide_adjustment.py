"""Updating US Chess ratings from foreign FIDE tournaments (§6)."""

import math
from dataclasses import replace
from datetime import date

import pytest

from ledger.rules.uschess.fide_adjustment import (
    FideAdjustment,
    FideGame,
    FidePlayer,
    NotEligible,
    adjust_for_fide_event,
    ineligibility,
)
from ledger.rules.uschess.versions import resolve

R2015 = resolve(date(2019, 7, 1))
R2020 = resolve(date(2022, 7, 1))
R2024 = resolve(date(2024, 5, 1))
ALL_RULES = [R2015, R2020, R2024]

MASTER = FidePlayer(
    otbr_rating=2250.0, otbr_games=300, member=True, usa_flag=True, fide_rating=2250
)


def player(**changes):
    return replace(MASTER, **changes)


def spec_rating(r0, n, opponents, score, bonus_multiplier):
    """§3 N', §4.2 K and the standard formula with its bonus, written out from the text."""
    n_star = 50 if r0 > 2355 else 50 / math.sqrt(0.662 + 0.00000739 * (2569 - r0) ** 2)
    m = len(opponents)
    k = 800 / (min(n, n_star) + m)
    expected = sum(1 / (1 + 10 ** (-(r0 - ri) / 400)) for ri in opponents)
    change = k * (score - expected)
    bonus = (
        0.0
        if bonus_multiplier is None
        else max(0.0, change - bonus_multiplier * math.sqrt(max(m, 4)))
    )
    return r0 + change + bonus


@pytest.mark.parametrize(
    ("changes", "eligible"),
    [
        # §6: "Members with a FIDE rating of at least 2200 with a 'USA flag' will automatically"
        ({}, (True, True, True)),
        ({"fide_rating": 2200}, (True, True, True)),
        ({"fide_rating": 2199}, (False, False, False)),
        ({"usa_flag": False}, (False, False, False)),
        # "members who are rated under 2200 FIDE or who have no FIDE rating must opt-in"
        ({"fide_rating": 2100}, (False, False, False)),
        ({"fide_rating": 2100, "opted_in": True}, (True, True, True)),
        ({"fide_rating": None, "opted_in": True}, (True, True, True)),
        ({"fide_rating": None, "usa_flag": False, "opted_in": True}, (True, True, True)),
        # 2020+: "Only current US Chess members are eligible"; 2015 names no such condition.
        ({"member": False}, (True, False, False)),
        # 2020+: "Only players with an established US Chess regular rating are eligible"
        ({"otbr_games": 25}, (True, False, False)),
        ({"otbr_games": 26}, (True, True, True)),
        # 2015: "This may include US residents who are not USCF-rated" — nothing to update.
        ({"otbr_rating": None, "otbr_games": 0}, (False, False, False)),
    ],
)
def test_eligibility_for_a_fide_adjustment_by_version(changes, eligible):
    # §6 (2015 vs 2020/2024 eligibility paragraphs)
    for rules, expected in zip(ALL_RULES, eligible, strict=True):
        assert (ineligibility(player(**changes), rules.version) is None) == expected, rules.name


@pytest.mark.parametrize(
    ("changes", "rules", "reason"),
    [
        ({"member": False}, R2024, "not a current US Chess member"),
        ({"otbr_games": 10}, R2020, "the US Chess regular rating is not established (10 games)"),
        ({"otbr_rating": None, "member": False}, R2015, "no US Chess regular (OTBR) rating"),
        ({"fide_rating": 2100}, R2015, "not automatic"),
    ],
)
def test_an_ineligible_player_gets_a_reason(changes, rules, reason):
    result = adjust_for_fide_event(player(**changes), [FideGame(2300, 1.0)], rules)
    assert isinstance(result, NotEligible)
    assert result.reason.startswith(reason)


def test_a_player_with_no_fide_rated_opponent_is_not_adjusted():
    # §6: "Opponents who do not have a FIDE rating are ignored."
    result = adjust_for_fide_event(MASTER, [FideGame(None, 1.0), FideGame(None, 0.5)], R2024)
    assert result == NotEligible("no game against a FIDE-rated opponent")


@pytest.mark.parametrize(
    ("start", "youth", "fide", "converted"),
    [
        # §2.1 (2015 §2.6): 180 + 0.94 × FIDE if FIDE ≤ 2000, else 20 + 1.02 × FIDE
        (date(2024, 2, 29), False, 1800, 180 + 0.94 * 1800),
        (date(2024, 2, 29), False, 2000, 180 + 0.94 * 2000),
        (date(2024, 2, 29), False, 2100, 20 + 1.02 * 2100),
        # §2.1 2024: "As of March 1, 2024": −1073 + 1.5667 × FIDE if FIDE ≤ 2000
        (date(2024, 3, 1), False, 1800, -1073 + 1.5667 * 1800),
        (date(2024, 3, 1), False, 2100, 20 + 1.02 * 2100),
        # §6 youth: 560 + 0.76 × FIDE if FIDE ≤ 2000, else 80 + 1.0 × FIDE
        (date(2024, 2, 29), True, 1800, 560 + 0.76 * 1800),
        (date(2024, 2, 29), True, 2100, 80 + 2100),
        # §6 2024 youth "(effective as of March 1, 2024)": −453 + 1.2667 × FIDE if FIDE ≤ 2000
        (date(2024, 3, 1), True, 1800, -453 + 1.2667 * 1800),
        (date(2024, 3, 1), True, 2100, 80 + 2100),
    ],
)
def test_opponents_fide_ratings_are_converted_by_the_formula_in_force(
    start, youth, fide, converted
):
    # §6: "converted to the US Chess scale using the conversion described in Section 2.1 ...
    # If an event is known to be a youth event ... the following conversion is used"
    result = adjust_for_fide_event(MASTER, [FideGame(fide, 0.5)], resolve(start), youth=youth)
    assert result.opponents_converted == pytest.approx((converted,))
    assert result.youth is youth


def test_the_standard_formula_with_bonus_is_applied_once_to_converted_opponents():
    # §6: "The standard rating formula (with bonus) is then applied ... only once"
    games = [
        FideGame(2300, 1.0),
        FideGame(2350, 1.0),
        FideGame(None, 0.0),
        FideGame(2280, 1.0),
        FideGame(2400, 1.0),
        FideGame(2310, 0.5),
    ]
    result = adjust_for_fide_event(MASTER, games, R2024)
    assert isinstance(result, FideAdjustment)
    converted = [20 + 1.02 * r for r in (2300, 2350, 2280, 2400, 2310)]
    # §4.2: "B = 12 effective February 1, 2023"
    expected = spec_rating(2250.0, 300, converted, 4.5, 12.0)
    assert result.rating == pytest.approx(expected)
    assert result.bonus > 0
    assert result.bonus_multiplier == 12.0
    assert (result.m, result.score, result.ignored_games) == (5, 4.5, 1)
    assert result.automatic


def test_n_increases_by_the_games_against_fide_rated_opponents():
    # §7: "each players' value of N is incremented by m"; §6: unrated opponents "are ignored"
    games = [FideGame(2300, 1.0), FideGame(None, 1.0), FideGame(2200, 0.0)]
    result = adjust_for_fide_event(MASTER, games, R2024)
    assert (result.games_before, result.games_after) == (300, 302)


def test_the_bonus_multiplier_is_the_one_in_force_at_the_tournament_start():
    # §8 2024: "2017-06-01 Bonus point threshold increased to 14."
    games = [FideGame(2400, 1.0) for _ in range(5)]
    result = adjust_for_fide_event(MASTER, games, R2020)
    converted = [20 + 1.02 * 2400] * 5
    assert result.bonus_multiplier == 14.0
    assert result.rating == pytest.approx(spec_rating(2250.0, 300, converted, 5.0, 14.0))


def test_no_bonus_when_an_opponent_is_met_more_than_twice():
    # §4.2: no bonus "if the player competes against any opponent more than twice"
    games = [FideGame(2400, 1.0, "a")] * 3 + [FideGame(2400, 1.0, "b")]
    result = adjust_for_fide_event(MASTER, games, R2024)
    assert (result.most_meetings, result.bonus_eligible, result.bonus) == (3, False, 0.0)
    converted = [20 + 1.02 * 2400] * 4
    assert result.rating == pytest.approx(spec_rating(2250.0, 300, converted, 4.0, None))


def test_games_without_opponent_ids_count_as_distinct_opponents():
    # §4.2: bonus when "the player competes against no player more than twice"
    games = [FideGame(2400, 1.0)] * 4
    result = adjust_for_fide_event(MASTER, games, R2024)
    assert (result.most_meetings, result.bonus_eligible) == (1, True)


@pytest.mark.parametrize(("rules", "eligible"), [(R2015, True), (R2020, True), (R2024, False)])
def test_three_games_with_a_repeated_opponent_lose_the_bonus_only_in_2024(rules, eligible):
    # §4.2 2024: no bonus "if m = 3 and the player competes against any opponent more than once"
    games = [FideGame(2400, 1.0, "a"), FideGame(2400, 1.0, "a"), FideGame(2400, 1.0, "b")]
    result = adjust_for_fide_event(MASTER, games, rules)
    assert result.bonus_eligible is eligible
    assert (result.bonus > 0) is eligible
