"""The sections index (issue 11): newest first, searchable, paged, withdrawn ones included;
on the home page, at `/sections` and as `ratings-ledger sections`."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import FEDERATION
from test_web import get
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site

MULLER, LOVELACE, BRIAIN, GARCIA = FEDERATION


@pytest.fixture(scope="module")
def site(federation_store):
    return Site(federation_store)


def test_the_index_lists_sections_newest_first_with_dates_status_and_players(site):
    out = get(site, "/api/sections").json()
    assert out["total"] == 3
    assert [
        (s["section_id"], s["start_date"], s["status"], s["players"]) for s in out["sections"]
    ] == [
        ("MAY", "2024-05-04", "withdrawn", None),
        ("MAR", "2024-03-02", "submitted", 3),
        ("JAN", "2024-01-06", "submitted", 4),
    ]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("q=mar", ["MAR"]),
        ("from=2024-02-01", ["MAY", "MAR"]),
        ("to=2024-02-01", ["JAN"]),
        (f"player={GARCIA}", ["JAN"]),
        ("q=nothing", []),
    ],
)
def test_the_index_is_searchable_and_filtered(site, query, found):
    assert [s["section_id"] for s in get(site, "/api/sections", query).json()["sections"]] == found


def test_the_index_is_paged_with_the_number_left(site):
    import ledger.entrypoints.web.sections as web

    size, web.SECTIONS_PAGE = web.SECTIONS_PAGE, 2
    try:
        page = get(site, "/sections").text
        last = get(site, "/api/sections", "offset=2").json()
    finally:
        web.SECTIONS_PAGE = size
    assert "href='/sections?offset=2' rel='next'>1 more</a>" in page
    assert [s["section_id"] for s in last["sections"]] == ["JAN"]


def test_the_home_page_shows_the_latest_sections_and_a_search_box(site):
    page = get(site, "/").text
    assert "<input name='q'" in page
    assert page.index("href='/sections/MAY'") < page.index("href='/sections/MAR'")
    assert "All 3 sections" in page


@pytest.mark.parametrize("query", ["from=yesterday", "to=2024-13-01", "offset=-1"])
def test_bad_index_parameters_are_400(site, query):
    assert get(site, "/sections", query).status == 400


@pytest.fixture
def run(federation_store):
    runner = CliRunner()
    return lambda *args: runner.invoke(app, ["sections", *args, "--store", federation_store])


def test_sections_on_the_command_line_lists_newest_first(run):
    out = run()
    assert out.exit_code == 0, out.output
    assert [line.split()[0] for line in out.output.splitlines()] == ["MAY", "MAR", "JAN"]
    assert "JAN  2024-01-06  submitted  4 players  JAN" in out.output


def test_sections_on_the_command_line_filters_by_player_and_dates(run):
    rows = json.loads(run("--player", LOVELACE, "--from", "2024-02-01", "--json").output)
    assert [r["section_id"] for r in rows] == ["MAR"]
    table = list(csv.DictReader(io.StringIO(run("--to", "2024-03-31", "--csv").output)))
    assert [(r["section_id"], r["players"]) for r in table] == [("MAR", "3"), ("JAN", "4")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "May"], "--from: 'May' is not a date"),
        (["--csv", "--json"], "choose one"),
    ],
)
def test_sections_refuses_bad_options_with_one_error_line(run, args, message):
    out = run(*args)
    assert out.exit_code == 2
    assert message in out.output
