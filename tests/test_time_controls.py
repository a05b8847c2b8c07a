"""Time-control notation and the systems a section is rated in (footnote 1; 2015 introduction)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.rules.time_controls import TimeControl, parse_time_control
from ledger.rules.uschess.systems import System
from ledger.rules.uschess.time_controls import (
    is_dual_rated_time_control,
    rated_systems,
)
from ledger.rules.uschess.versions import VERSIONS

B, Q, R = System.OTBB, System.OTBQ, System.OTBR
OLB, OLQ, OLR = System.OLB, System.OLQ, System.OLR
V2015, V2020, V2024 = (VERSIONS[n] for n in ("uschess-2015", "uschess-2020", "uschess-2024"))


@pytest.mark.parametrize(
    ("text", "mm", "ss"),
    [
        ("G/90;d30", 90, 30),
        ("G/90 d30", 90, 30),
        ("G/3+2", 3, 2),
        ("G/5d0", 5, 0),
        ("G/26d3", 26, 3),
        ("G/60+5", 60, 5),
        ("G/45;inc30", 45, 30),
        ("Game/60", 60, 0),
        ("G/30", 30, 0),
        ("g/30 D5", 30, 5),
        ("G/60 delay 5", 60, 5),
        ("40/120,SD/30;+30", 150, 30),
        ("40/90, SD/30 d5", 120, 5),
        ("40/90+30, SD/30+30", 120, 30),
        ("40/120, 20/60, SD/30;d5", 210, 5),
    ],
)
def test_time_control_notation_gives_total_main_minutes_and_delay(text, mm, ss):
    # Footnote 1: "write mm as the total 'main time' in minutes, and ss as the delay or increment"
    assert parse_time_control(text) == TimeControl(mm, ss)
    assert parse_time_control(text).total == mm + ss


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "G/",
        "blitz",
        "G/90;x30",
        "d5",
        "d5 G/30",
        "G/0",
        "0/90, SD/30",
        "G/30, 40/120",
        "G/60+5 d10",
        "G/90 +",
        "90",
    ],
)
def test_unreadable_time_controls_are_rejected_quoting_the_input(text):
    # Footnote 1 defines mm and ss only for real time controls; garbage must not be rated.
    with pytest.raises(ValueError) as error:
        parse_time_control(text)
    assert repr(text) in str(error.value)


@given(
    st.integers(min_value=1, max_value=600),
    st.integers(min_value=0, max_value=120),
    st.sampled_from(["G/{m}+{s}", "G/{m};d{s}", "G/{m} d{s}", "Game/{m};inc{s}", "G/{m}d{s}"]),
)
def test_every_spelling_of_a_sudden_death_control_reads_the_same(m, s, pattern):
    # Footnote 1: ss is "the delay or increment in seconds", whichever notation is used.
    assert parse_time_control(pattern.format(m=m, s=s)) == TimeControl(m, s)


@given(st.integers(1, 60), st.integers(1, 240), st.integers(1, 120), st.integers(0, 60))
def test_a_multi_period_control_counts_the_main_time_of_every_period(moves, first, sd, bonus):
    # Footnote 1: mm is "the total 'main time' in minutes".
    text = f"{moves}/{first}, SD/{sd};+{bonus}"
    assert parse_time_control(text) == TimeControl(first + sd, bonus)


@pytest.mark.parametrize("version", [V2020, V2024])
@pytest.mark.parametrize(
    ("text", "otb", "online"),
    [
        # Footnote 1: Blitz "such as G/5d0, G/3+2 or G/7d3"; QC "such as G/20+5 or G/26d3".
        ("G/5d0", {B}, {OLB}),
        ("G/3+2", {B}, {OLB}),
        ("G/7d3", {B}, {OLB}),
        ("G/20+5", {Q}, {OLQ}),
        ("G/26d3", {Q}, {OLQ}),
    ],
)
def test_footnote_examples_are_rated_in_the_named_systems(version, text, otb, online):
    total = parse_time_control(text).total
    assert rated_systems(total, online=False, version=version) == otb
    assert rated_systems(total, online=True, version=version) == online


@pytest.mark.parametrize(
    ("text", "otb", "online"),
    [
        # 2015: Blitz "G/5 (or G/3+2) to G/10+0"; QC "G/10+0 through G/60+5";
        # Regular "G/25+5 or slower"; "between G/30 (or G/25+5) and G/60+5 … dual-rated".
        ("G/5", {B}, {OLB}),
        ("G/3+2", {B}, {OLB}),
        ("G/10+0", {B}, {OLB}),
        ("G/25+5", {Q, R}, {OLQ}),
        ("G/30", {Q, R}, {OLQ}),
        ("G/60+5", {Q, R}, {OLQ}),
    ],
)
def test_2015_introduction_examples_are_rated_in_the_named_systems(text, otb, online):
    total = parse_time_control(text).total
    assert rated_systems(total, online=False, version=V2015) == otb
    assert rated_systems(total, online=True, version=V2015) == online


FOOTNOTE_OTB = {4: set(), 5: {B}, 10: {B}, 11: {Q}, 29: {Q}, 30: {Q, R}, 65: {Q, R}, 66: {R}}
FOOTNOTE_ONLINE = {
    4: set(),
    5: {OLB},
    10: {OLB},
    11: {OLQ},
    29: {OLQ},
    30: {OLR},
    65: {OLR},
    66: {OLR},
}
INTRO_2015_ONLINE = {
    4: set(),
    5: {OLB},
    10: {OLB},
    11: {OLQ},
    29: {OLQ},
    30: {OLQ},
    65: {OLQ},
    66: set(),
}
BOUNDARIES = (
    [(V2020, False, t, s) for t, s in FOOTNOTE_OTB.items()]
    + [(V2024, False, t, s) for t, s in FOOTNOTE_OTB.items()]
    + [(V2020, True, t, s) for t, s in FOOTNOTE_ONLINE.items()]
    + [(V2024, True, t, s) for t, s in FOOTNOTE_ONLINE.items()]
    + [(V2015, False, t, s) for t, s in FOOTNOTE_OTB.items()]
    + [(V2015, True, t, s) for t, s in INTRO_2015_ONLINE.items()]
)


@pytest.mark.parametrize(("version", "online", "total", "expected"), BOUNDARIES)
def test_each_range_boundary_is_rated_as_the_text_states(version, online, total, expected):
    # Footnote 1: "5 ≤ mm + ss ≤ 10", "10 < mm + ss < 30", OTBQ "through mm + ss ≤ 65",
    # Regular "mm + ss ≥ 30"; 2015: QC "through G/60+5", Regular "G/25+5 or slower".
    assert rated_systems(total, online=online, version=version) == expected


def test_g10_is_blitz_only_in_2015_although_both_blitz_and_qc_name_it():
    # 2015: Blitz "G/5 (or G/3+2) to G/10+0"; QC "G/10+0 through G/60+5" (decision: Blitz).
    assert rated_systems(10, online=False, version=V2015) == {B}
    assert rated_systems(10.5, online=False, version=V2015) == {Q}


def test_2015_has_no_online_regular_so_slow_online_sections_are_not_rated():
    # 2015: "two of which are for online events: … the online Blitz system, and the online Quick"
    assert rated_systems(90, online=True, version=V2015) == frozenset()
    assert rated_systems(90, online=True, version=V2020) == {OLR}


def test_2015_online_quick_covers_the_dual_range_where_2020_uses_online_regular():
    # 2015: "The two QC systems apply to … G/10+0 through G/60+5"; 2020: online has no dual rating.
    assert rated_systems(45, online=True, version=V2015) == {OLQ}
    assert rated_systems(45, online=True, version=V2020) == {OLR}


@pytest.mark.parametrize(
    ("total", "dual"), [(29, False), (30, True), (45, True), (65, True), (66, False)]
)
def test_dual_rated_time_controls_run_from_30_to_65(total, dual):
    # §4.2: "between mm + ss ≥ 30 and mm + ss ≤ 65 (i.e., dual-rated)"; 2015 "G/30 … to G/60+5"
    assert is_dual_rated_time_control(total) is dual


@given(st.integers(0, 600), st.sampled_from([V2015, V2020, V2024]))
def test_otb_sections_are_rated_in_both_otbq_and_otbr_exactly_when_dual_rated(total, version):
    # Footnote 1: the OTBQ range "overlaps with the OTBR range ('dual rating')".
    systems = rated_systems(total, online=False, version=version)
    assert ({Q, R} <= systems) is is_dual_rated_time_control(total)
    assert (systems == frozenset()) is (total < 5)


@given(st.integers(5, 600), st.sampled_from([V2020, V2024]))
def test_online_sections_from_2020_are_rated_in_exactly_one_system(total, version):
    # Footnote 1: only "The OTBQ ratings also apply" beyond the QC range; online has no dual rating.
    assert len(rated_systems(total, online=True, version=version)) == 1


@given(st.integers(0, 600), st.booleans(), st.sampled_from([V2015, V2020, V2024]))
def test_sections_are_rated_only_in_systems_of_their_kind_and_version(total, online, version):
    # 2015: five systems (no online Regular); 2020+: six systems, three OTB and three online.
    for system in rated_systems(total, online=online, version=version):
        assert system.online is online
        assert system in version.systems
