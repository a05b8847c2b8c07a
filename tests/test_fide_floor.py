"""Issue 30, cause 3: "7.2.1 is missing for rated players". B.02 (2024) 7.2.1: "Players whose
ratings drop below 1400 are shown as unrated on the next list. Thereafter they are treated in
the same manner as any other unrated player." Every list drops them, under the floor of the
version in force on the list's date, and the page says "unrated (below 1400)".

Ortiz enters tests/fixtures/lakeside-below-floor-2024.trf at 1401 (the lakeside file with his
rating changed) and loses to Park (2310): 8.3.1 counts D as 400, PD .08 (8.1.2), ΔR = −0.08 × K
takes him below 1400 on the list of 1 October 2024."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app
from ledger.rules.fide.versions import BY_NAME

BELOW = Path(__file__).parent / "fixtures" / "lakeside-below-floor-2024.trf"
ORTIZ, PARK = "2000002", "5500012"


def _cli(store_url, trf: Path, name: str, as_of: str):
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--store", store_url])
        assert result.exit_code == 0, result.output
        return result.output

    run("import", "trf", str(trf), "--register-players", "--actor", "director")
    run("publish-list", "--family", "fide", "--name", name, "--as-of", as_of, "--actor", "director")
    return lambda *args: run(*args, "--rules-family", "fide")


@pytest.fixture
def cli(ledger, store_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a PostgreSQL store's read model goes in the current folder
    return _cli(store_url, BELOW, "2024-10", "2024-10-01")


def test_a_rated_player_who_drops_below_1400_is_shown_unrated_on_the_next_list(cli):
    # 7.2.1: "Players whose ratings drop below 1400 are shown as unrated on the next list."
    out = json.loads(cli("player", ORTIZ, "--json"))
    assert out["ratings"] == {} and out["unrated"] == {"FIDE": "unrated (below 1400)"}
    assert "FIDE standard unrated (below 1400)" in cli("player", ORTIZ)
    assert "unrated" not in json.loads(cli("player", PARK, "--json"))


def test_the_player_page_and_the_list_page_say_unrated_below_1400(cli, store_url, tmp_path):
    # Issue 30: "the page says 'unrated (below 1400)'" — the floor of that list.
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(store_url, tmp_path / "web-fide.db", "fide")
    assert "FIDE standard: unrated (below 1400)" in get(site, f"/players/{ORTIZ}").text
    page = get(site, "/lists/2024-10")
    assert page.status == 200 and "unrated (below 1400)" in page.text
    said = get(site, "/api/lists/2024-10").json()
    assert [r["id"] for r in said["unrated"]] == [ORTIZ]
    assert ORTIZ not in [r["id"] for r in said["rows"]]


def test_an_earlier_version_drops_a_rated_player_below_its_own_floor(
    ledger, store_url, tmp_path, monkeypatch
):
    # Issue 30: "Earlier versions' floors (1200, 1000) the same way": under fide-2022 (the 2022
    # text's floor 1000), Ortiz at 1001 loses to Park and the list of 1 October 2023 drops him.
    monkeypatch.chdir(tmp_path)
    text = BELOW.read_text().replace("1401 USA", "1001 USA")
    text = text.replace("2024/09/", "2023/09/").replace("24/09/", "23/09/")
    trf = tmp_path / "below-floor-2023.trf"
    trf.write_text(text)
    cli = _cli(store_url, trf, "2023-10", "2023-10-01")
    assert json.loads(cli("player", ORTIZ, "--json"))["unrated"] == {"FIDE": "unrated (below 1000)"}


@pytest.mark.parametrize(
    ("name", "below"),
    [
        ("fide-2003", 1801),  # 9.21: "Players whose ratings drop below 1801 are listed on the
        # next list as 'delisted'."
        ("fide-2009", 1200),  # July 2009: the floor 1200
        ("fide-2011", 1200),
        ("fide-2012", 1000),  # "from July 1st 2012": the floor 1000
        ("fide-2014", 1000),
        ("fide-2022", 1000),
        ("fide-2024", 1400),  # 7.2.1: "drop below 1400"
    ],
)
def test_each_version_delists_below_the_floor_of_its_text(name, below):
    assert BY_NAME[name].delisted_below == below
