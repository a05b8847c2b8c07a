"""Issue 20 (session 6): "`supplement --club CLUB` ... filter the supplement like the list
pages (federation, sex, age group, club)": the same filters, from one place
(projections.list_filters), on the supplement of a date and of a published list."""

from __future__ import annotations

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

ANN, BEA, CY, DEE = "40000001", "40000002", "40000003", "40000004"
PROFILES = {
    ANN: {"club": "Dublin CC", "sex": "w", "birth_date": "2010-03-01", "federation": "IRL"},
    BEA: {"club": "Dublin CC", "sex": "w", "birth_date": "1970-01-01", "federation": "IRL"},
    CY: {"club": "Cork CC", "sex": "m", "birth_date": "2012-07-01", "federation": "ENG"},
    DEE: {"sex": "m", "federation": "IRL", "adult": True},  # no club, no birth date
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Four players, a round robin ending 2024-05-04, the uschess list 2024-06 after it."""
    store = f"sqlite:///{tmp_path_factory.mktemp('supplement') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    try:
        for member, profile in PROFILES.items():
            ledger.register(member, name=f"Player {member}", **profile)
        ledger.submit(round_robin("JUN", list(PROFILES), "2024-05-04"))
    finally:
        ledger.app.close()

    def invoke(*args: str):
        return CliRunner().invoke(app, [*args, "--store", store])

    invoke.store = store

    published = invoke("publish-list", "--family", "uschess", "--name", "2024-06",
                       "--as-of", "2024-06-01", "--actor", "director")  # fmt: skip
    assert published.exit_code == 0, published.output
    return invoke


def shown(run, *filters: str, when: tuple[str, ...] = ("--as-of", "2024-06-01")) -> set[str]:
    out = run("supplement", *when, "--system", "OTBR", "--json", *filters)
    assert out.exit_code == 0, out.output
    return {p["id"] for p in json.loads(out.stdout)["players"]}


def test_the_supplement_without_a_filter_lists_every_rated_member(run):
    assert shown(run) == {ANN, BEA, CY, DEE}


@pytest.mark.parametrize(
    ("filters", "ids"),
    [
        (["--club", "Dublin CC"], {ANN, BEA}),
        (["--club", "Cork CC"], {CY}),
        (["--club", "Galway CC"], set()),
        (["--federation", "IRL"], {ANN, BEA, DEE}),
        (["--sex", "w"], {ANN, BEA}),
        # Age by the list's year (2024): Ann reaches 14, Cy 12, Bea 54; Dee has no birth date
        # and is in no age group (docs/decisions.md, "The web pages as federations publish them").
        (["--age", "U14"], {ANN, CY}),
        (["--age", "U12"], {CY}),
        (["--age", "50+"], {BEA}),
        (["--club", "Dublin CC", "--age", "U14"], {ANN}),
    ],
)
def test_the_supplement_keeps_the_members_each_filter_names(run, filters, ids):
    assert shown(run, *filters) == ids


def test_a_published_list_s_supplement_is_filtered_the_same_way(run):
    assert shown(run, "--club", "Cork CC", when=("--list", "2024-06")) == {CY}


def test_the_filtered_table_and_csv_hold_only_the_kept_members(run):
    table = run("supplement", "--as-of", "2024-06-01", "--club", "Cork CC").stdout.splitlines()
    assert [line.split()[0] for line in table[1:]] == [CY]
    csv = run("supplement", "--as-of", "2024-06-01", "--csv", "--sex", "w").stdout.splitlines()
    assert sorted(line.split(",")[0] for line in csv[1:]) == [ANN, BEA]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (["--sex", "x"], "--sex: 'x' is not one of m, w"),
        (["--age", "U99"], "--age: 'U99' is not one of U8, U10, U12, U14, U16, U18, U20"),
    ],
)
def test_a_filter_the_lists_do_not_know_is_refused_in_one_line(run, filters, message):
    out = run("supplement", "--as-of", "2024-06-01", *filters)
    assert out.exit_code == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_the_list_page_marks_a_provisional_rating_as_the_supplement_does(run):
    # US Chess §1: a rating of 25 games or fewer is provisional, printed `1234P3` in the
    # supplement; the list page printed the bare rating (screenshots, issue 20, session 6).
    from test_web import get

    from ledger.entrypoints.web.app import Site

    table = run("supplement", "--list", "2024-06", "--club", "Cork CC").stdout.splitlines()
    mark = table[1].split()[-2]  # Cy's OTBR: rating and P, then N
    assert mark.endswith("P3")
    site = Site(run.store)
    rows = get(site, "/api/lists/2024-06", "system=OTBR").json()["rows"]
    assert {r["established"] for r in rows} == {False}
    page = get(site, "/lists/2024-06", "system=OTBR").text
    assert f"<td>{mark}</td><td>3</td>" in page
    assert "<b>P</b> provisional" in page
    assert "<a href='/log?after=" in page  # the list's cutoff links its ledger position
