"""Issue 30, cause 3, on a FIDE ledger with no list published yet. B.02 (2024) 7.2.1:
"Players whose ratings drop below 1400 are shown as unrated on the next list. Thereafter they
are treated in the same manner as any other unrated player." Before any list the ledger's
current standing is the list it would publish: `player`, `list` and the player page say
"unrated (below 1400)" as a published list does (tests/test_fide_floor.py).

Ortiz enters tests/fixtures/lakeside-below-floor-2024.trf at 1401 and loses to Park (2310)
and to Kim (unrated): 8.3.1 counts one game, ΔR = −0.08 × K takes him below 1400."""

import json

import pytest
from test_fide_floor import BELOW, ORTIZ, PARK
from trf_helpers import imported

SECTION = "2024-09-14-lakeside-fide-open-2024"


@pytest.fixture
def cli(ledger, store_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a PostgreSQL store's read model goes in the current folder
    run = imported(store_url, BELOW)
    return lambda *args: run(*args, "--rules-family", "fide")


def test_a_rated_player_below_1400_is_unrated_before_any_list_is_published(cli):
    # 7.2.1: shown as unrated, the floor of the version in force (fide-2024: 1400).
    out = json.loads(cli("player", ORTIZ, "--json"))
    assert out["ratings"] == {} and out["unrated"] == {"FIDE": "unrated (below 1400)"}
    assert "FIDE standard unrated (below 1400)" in cli("player", ORTIZ)
    assert "unrated" not in json.loads(cli("player", PARK, "--json"))


def test_the_rating_list_of_a_day_leaves_him_out_as_a_published_list_does(cli):
    # 7.2.1: "shown as unrated": not a row of the day's list; Park (2310) still is.
    rows = json.loads(cli("list", "--system", "FIDE", "--as-of", "2024-09-20", "--json"))
    assert ORTIZ not in [r["id"] for r in rows]
    assert PARK in [r["id"] for r in rows]


def test_his_history_row_says_below_floor_with_the_rating_the_list_would_have_shown(cli):
    # The row a published list writes for him (formula below_floor, the floor in its detail,
    # the official rating computed): 1401 − 0.08 × 20 = 1399.
    [row] = json.loads(cli("history", ORTIZ, "--system", "FIDE", "--json"))
    assert (row["formula"], row["pre_rating"], row["post_rating"]) == ("below_floor", 1401, None)
    assert row["official_rating"] == 1399 and row["detail"]["below"] == 1400
    out = json.loads(cli("explain", ORTIZ, "--system", "FIDE", "--section", SECTION, "--json"))
    assert out["result"]["recomputes"] is True


def test_the_crosstable_shows_his_ro_and_delta_r_and_that_he_is_now_unrated(cli):
    # 8.3.2: ΔR = K × ΣΔR = 20 × −0.08 (8.3.3: a rating published without a count is past 30
    # games); 7.2.1: the page says "unrated (below 1400)".
    assert "Ro 1401 ΔR -1.60 K 20, unrated (below 1400)" in cli("crosstable", SECTION)


def test_the_player_page_says_unrated_below_1400_before_any_list(cli, store_url, tmp_path):
    # Issue 30: "the page says 'unrated (below 1400)'".
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(store_url, tmp_path / "web-fide.db", "fide")
    assert "FIDE standard: unrated (below 1400)" in get(site, f"/players/{ORTIZ}").text
