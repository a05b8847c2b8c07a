"""Player search (issue 11): accents and word order ignored, partial names and ids, paged with
each player's ratings; the same query behind `/players` and `ratings-ledger search`."""

from __future__ import annotations

import json
from contextlib import closing

import pytest
from conftest import FEDERATION
from test_web import get
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from projections import queries
from projections.projector import View
from projections.timetravel import view_at

MULLER, LOVELACE, BRIAIN, GARCIA = FEDERATION


@pytest.fixture(scope="module")
def search(federation_store):
    """`search(text, limit, offset)` on the federation's caught-up read model."""
    from ledger.application import RatingsLedger
    from ledger.evidence import read_verified_entries
    from ledger.store import view_path

    ledger = RatingsLedger(federation_store)
    view = View(view_path(federation_store, None))
    view.catch_up(read_verified_entries(ledger))
    with closing(ledger), closing(view), view_at(ledger, view) as v:
        yield lambda text, limit=50, offset=0: queries.search_players(v, text, limit, offset)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Muller", [MULLER]),
        ("müller", [MULLER]),
        ("MULLER HANS", [MULLER]),
        ("Müller, Hans", [MULLER]),
        ("Garcia, Jose", [GARCIA]),
        ("garcia-marquez", [GARCIA]),
        ("Zoe O Briain", [BRIAIN]),
        ("Briain, Zoë", [BRIAIN]),
        ("love", [LOVELACE]),
        ("ada l", [LOVELACE]),
        ("2000000", [MULLER, LOVELACE, BRIAIN, GARCIA, "20000005"]),
        ("20000003", [BRIAIN]),
        ("Hans Meier", []),
    ],
)
def test_search_ignores_accents_case_word_order_and_finds_partial_names_and_ids(
    search, text, found
):
    assert [p["id"] for p in search(text)["players"]] == found


def test_an_exact_member_id_comes_before_names_that_contain_it(search):
    out = search("20000001")
    assert out["players"][0]["id"] == MULLER


def test_each_result_carries_the_players_current_ratings(search):
    lovelace = search("Lovelace")["players"][0]
    otbr = lovelace["ratings"]["OTBR"]
    assert otbr["official_rating"] == round(otbr["rating"])
    assert otbr["games"] == 5  # three in JAN, two in MAR; MAY was withdrawn
    assert search("20000005")["players"][0]["ratings"] == {}


def test_search_is_paged_with_a_total(search):
    first = search("2000000", limit=2)
    second = search("2000000", limit=2, offset=2)
    assert first["total"] == second["total"] == 5
    assert [p["id"] for p in first["players"] + second["players"]] == [
        MULLER,
        LOVELACE,
        BRIAIN,
        GARCIA,
    ]


def test_the_search_page_says_how_many_more_instead_of_a_silent_cap(federation_store):
    import ledger.entrypoints.web.players as web

    site = Site(federation_store)
    limit, web.SEARCH_LIMIT = web.SEARCH_LIMIT, 2
    try:
        page = get(site, "/players", "q=2000000").text
        rest = get(site, "/players", "q=2000000&offset=2").text
    finally:
        web.SEARCH_LIMIT = limit
    assert "1–2 of 5 players found" in page
    assert "href='/players?q=2000000&amp;offset=2' rel='next'>3 more</a>" in page
    assert "Previous 2" in rest and "1 more" in rest


def test_the_search_page_shows_each_players_ratings(federation_store):
    site = Site(federation_store)
    data = get(site, "/api/players", "q=muller").json()
    official = data["players"][0]["ratings"]["OTBR"]["official_rating"]
    assert f"OTBR {official}" in get(site, "/players", "q=muller").text
    assert data["total"] == 1


def test_search_on_the_command_line_prints_ratings_and_pages(federation_store):
    runner = CliRunner()
    out = runner.invoke(app, ["search", "Muller", "--store", federation_store])
    assert out.exit_code == 0, out.output
    assert out.output.startswith(f"{MULLER}  Hans Müller  OTBR ")
    paged = runner.invoke(
        app, ["search", "2000000", "--limit", "2", "--json", "--store", federation_store]
    )
    data = json.loads(paged.output)
    assert (data["total"], len(data["players"])) == (5, 2)
    text = runner.invoke(app, ["search", "2000000", "--limit", "2", "--store", federation_store])
    assert text.output.splitlines()[-1] == "3 more (--offset 2)"
    none = runner.invoke(app, ["search", "Nobody", "--store", federation_store])
    assert none.output == "no player found for 'Nobody'\n"
