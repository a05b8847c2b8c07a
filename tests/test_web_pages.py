"""The audit site's pages for people (issue 11): the tournaments on the player page, one row per
game on explain, withdrawn sections, the log newest first with filters, the chart's axes."""

from __future__ import annotations

import re

import pytest
from conftest import FEDERATION
from test_web import get

from ledger.entrypoints.web.app import Site
from ledger.entrypoints.web.chart import chart, date_ticks, rating_ticks

MULLER, LOVELACE, BRIAIN, GARCIA = FEDERATION


@pytest.fixture(scope="module")
def site(federation_store):
    return Site(federation_store)


def test_the_player_page_lists_the_tournaments_played_newest_first(site):
    out = get(site, f"/api/players/{MULLER}").json()
    played = out["sections"]
    assert [(t["section_id"], t["end_date"], t["score"], t["games"]) for t in played] == [
        ("MAR", "2024-03-02", 1.0, 2),  # lost to Lovelace, beat Ó Briain
        ("JAN", "2024-01-06", 3.0, 3),
    ]
    assert played[0]["ratings"]["OTBR"]["before"] == played[1]["ratings"]["OTBR"]["after"]
    assert played[1]["ratings"]["OTBR"]["before"] is None
    page = get(site, f"/players/{MULLER}").text
    assert "<a href='/sections/MAR'>MAR</a>" in page
    after = out["ratings"]["OTBR"]["official_rating"]
    assert re.search(rf"OTBR \d+ → {after}<", page)
    assert "OTBR unrated → " in page
    assert "<td>1/2</td>" in page and "<td>3/3</td>" in page


def test_as_of_limits_the_tournaments_to_those_ended_by_then(site):
    played = get(site, f"/api/players/{MULLER}", "as_of=2024-02-01").json()["sections"]
    assert [t["section_id"] for t in played] == ["JAN"]


def test_explain_shows_one_row_per_game_whose_expectancies_add_up_to_e(site):
    out = get(site, f"/api/players/{MULLER}/explain", "system=OTBR&section=JAN").json()
    games = out["games"]
    assert [(g["round"], g["opponent"], g["result"]) for g in games] == [
        (1, LOVELACE, 1.0),
        (2, BRIAIN, 1.0),
        (3, GARCIA, 1.0),
    ]
    assert {g["colour"] for g in games} == {"white"}
    assert out["steps"]["step5"]["opponents"] == {
        g["opponent"]: g["opponent_rating"] for g in games
    }
    if out["result"]["formula"] == "standard":
        assert sum(g["expected"] for g in games) == pytest.approx(out["steps"]["standard"]["E"])
    page = get(site, f"/players/{MULLER}/explain", "system=OTBR&section=JAN").text
    assert "<h2>Games</h2>" in page and "Ada Lovelace" in page


def test_explain_has_no_empty_labels(site):
    page = get(site, f"/players/{MULLER}/explain", "system=OTBR&section=JAN").text
    assert "<dd></dd>" not in page
    assert "<th></th>" not in page


@pytest.mark.parametrize("query", ["system=OTBR&section=MAR", "system=OTBR&item=section:MAR"])
def test_explain_takes_section_as_on_the_command_line_and_item_as_an_alias(site, query):
    out = get(site, f"/api/players/{MULLER}/explain", query).json()
    assert out["item"]["key"] == "section:MAR"


def test_a_withdrawn_section_shows_who_withdrew_it_and_why(site):
    response = get(site, "/sections/MAY")
    assert response.status == 200
    assert "Withdrawn from rating by <span class='actor'>admin</span>" in response.text
    assert "<q class='reason'>not rateable</q>" in response.text
    data = get(site, "/api/sections/MAY").json()
    assert (data["status"], data["withdrawn_by"], data["reason"]) == (
        "withdrawn",
        "admin",
        "not rateable",
    )


def test_the_log_is_newest_first_and_pages_both_ways(site):
    import ledger.entrypoints.web.ledgerlog as web

    size, web.LOG_PAGE = web.LOG_PAGE, 3
    try:
        newest = get(site, "/api/log").json()
        top = newest["entries"][0]["position"]
        older = get(site, "/api/log", f"before={top - 2}").json()
        back = get(site, "/api/log", f"after={top - 3}").json()
        page = get(site, "/log").text
    finally:
        web.LOG_PAGE = size
    assert [x["position"] for x in newest["entries"]] == [top, top - 1, top - 2]
    assert (newest["newer"], newest["older"]) == (False, True)
    assert [x["position"] for x in older["entries"]] == [top - 3, top - 4, top - 5]
    assert older["newer"] is True
    assert [x["position"] for x in back["entries"]] == [top, top - 1, top - 2]
    assert f"href='/log?before={top - 2}' rel='next'>Older entries</a>" in page


@pytest.mark.parametrize(
    ("query", "types", "sections"),
    [
        ("type=SectionSubmitted", ["SectionSubmitted"] * 3, ["MAY", "MAR", "JAN"]),
        ("section=MAY", ["SectionWithdrawn", "SectionSubmitted"], ["MAY", "MAY"]),
        ("type=SectionWithdrawn&section=MAY", ["SectionWithdrawn"], ["MAY"]),
        ("type=NoSuchType", [], []),
    ],
)
def test_the_log_filters_by_type_and_section(site, query, types, sections):
    entries = get(site, "/api/log", query).json()["entries"]
    assert [x["type"] for x in entries] == types
    assert [x["payload"]["section_id"] for x in entries] == sections


def test_the_filtered_log_keeps_its_filter_in_the_page_links(site):
    import ledger.entrypoints.web.ledgerlog as web

    size, web.LOG_PAGE = web.LOG_PAGE, 1
    try:
        page = get(site, "/log", "type=SectionSubmitted").text
    finally:
        web.LOG_PAGE = size
    assert re.search(r"href='/log\?type=SectionSubmitted&amp;before=\d+' rel='next'", page)
    assert "Only entries of type SectionSubmitted" in page


def test_the_legend_has_each_series_colour_and_the_stylesheet_does_not_override_it(site):
    svg = chart({"OTBR": [("2024-01-06", 1500.0)], "OTBQ": [("2024-03-02", 1400.0)]})
    colours = re.findall(r"fill='(#[0-9a-f]{6})' class='legend'", svg)
    assert len(set(colours)) == 2
    css = get(site, "/static/style.css").text
    assert not re.search(r"\.legend[^{]*\{[^}]*fill", css)


@pytest.mark.parametrize(
    ("lo", "hi", "ticks"),
    [
        (1180.0, 1420.0, [1200, 1250, 1300, 1350, 1400]),
        (0.0, 2000.0, [0, 500, 1000, 1500, 2000]),
        (1490.0, 1530.0, [1490, 1500, 1510, 1520, 1530]),
    ],
)
def test_rating_ticks_are_round_numbers(lo, hi, ticks):
    assert rating_ticks(lo, hi) == ticks


@pytest.mark.parametrize(
    ("first", "last", "labels"),
    [
        ("2024-01-06", "2024-03-02", ["2024-02", "2024-03"]),
        ("2020-05-01", "2024-08-01", ["2021", "2022", "2023", "2024"]),
        ("2023-01-14", "2024-06-22", ["2023-04", "2023-07", "2023-10", "2024-01", "2024-04"]),
    ],
)
def test_date_labels_fall_on_round_dates_and_are_not_too_many(first, last, labels):
    from datetime import date

    ticks = date_ticks(date.fromisoformat(first).toordinal(), date.fromisoformat(last).toordinal())
    assert [label for _, label in ticks] == labels
