"""Issue 30, "pages and explain that add up": "N and Games count games rated", with no
invented "N 30 → 37"; where a player's games before the ledger are not known (his FIDE
rating came without a count: the TRF file's, a profile's), the pages, `explain` and the JSON
say "earlier games not known" beside the count (tests/fixtures/lakeside-fide-open-2024.trf,
summed on the list of 1 October 2024)."""

import json

import test_fide_list_pages
from test_fide_list_pages import KIM, SECTION, SOKOLOV

cli = test_fide_list_pages.cli  # the fixture: the Lakeside file on a ledger with a FIDE list


def test_player_says_his_earlier_games_are_not_known_beside_the_games_rated(cli):
    # 8.3.1 counts Sokolov's two games against rated opponents; the file's 2615 gives no count.
    assert "N=2 (earlier games not known)" in cli("player", SOKOLOV)
    rating = json.loads(cli("player", SOKOLOV, "--json"))["ratings"]["FIDE"]
    assert (rating["games"], rating["earlier_games"]) == (2, "not known")


def test_explain_says_n_counts_the_games_rated_and_the_earlier_ones_are_not_known(cli):
    text = cli("explain", SOKOLOV, "--system", "FIDE", "--section", SECTION)
    assert "N 0 → 2 (earlier games not known)" in text
    out = json.loads(cli("explain", SOKOLOV, "--system", "FIDE", "--section", SECTION, "--json"))
    assert out["result"]["earlier_games"] == "not known"
    assert out["result"]["games_after"] - out["result"]["games_before"] == 2


def test_an_unrated_players_explain_invents_no_earlier_games(cli):
    # Kim had no rating: his games are all the ledger's (8.2), nothing unknown to say.
    out = json.loads(cli("explain", KIM, "--system", "FIDE", "--section", SECTION, "--json"))
    assert "earlier_games" not in out["result"]


def test_the_published_list_says_so_in_its_games_column(cli, store_url, tmp_path):
    rows = json.loads(cli("list", "--system", "FIDE", "--list", "2024-10", "--json"))
    sokolov = next(r for r in rows if r["id"] == SOKOLOV)
    assert (sokolov["games"], sokolov["earlier_games"]) == (2, "not known")
    assert "N 2 (earlier games not known)" in cli("list", "--system", "FIDE", "--list", "2024-10")
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(store_url, tmp_path / "web-fide.db", "fide")
    assert "<td>2 (earlier games not known)</td>" in get(site, "/lists/2024-10").text
    page = get(site, f"/players/{SOKOLOV}").text
    assert "Earlier games" in page and "not known" in page
    explained = get(site, f"/players/{SOKOLOV}/explain", f"system=FIDE&section={SECTION}").text
    assert "N 0 → 2 (earlier games not known)" in explained
