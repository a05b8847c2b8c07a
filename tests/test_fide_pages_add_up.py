"""Issue 30, cause 6: the FIDE pages add up, on a real tournament file
(tests/fixtures/lakeside-fide-open-2024.trf, rated under fide-2024 and summed on the list of
1 October 2024)."""

import json
from pathlib import Path

import test_fide_list_pages
from test_fide_list_pages import SECTION, SOKOLOV
from typer.testing import CliRunner

from ledger.entrypoints.cli import app

cli = test_fide_list_pages.cli  # the fixture: the Lakeside file on a ledger with a FIDE list


def test_w_d_l_are_the_players_results_not_only_the_games_against_rated_opponents(cli):
    # Issue 30: "W/D/L are the results". Sokolov beat Chen, beat the unrated Kim and drew Park:
    # 2/1/0, though his rating counts only the two games against rated opponents (8.3.1).
    assert "W/D/L=2/1/0" in cli("player", SOKOLOV)


def test_n_counts_the_games_rated_not_thirty_invented_for_a_rating_published_without_a_count(
    cli,
):
    # Issue 30: "N and Games count games rated" ('N 30 → 37' invented 30 earlier games).
    # Sokolov's profile gives his published 2615 without a game count; the ledger rated two
    # of his games (8.3.1: not the one against the unrated Kim).
    assert "N=2 " in cli("player", SOKOLOV)
    assert "N 0 → 2" in cli("explain", SOKOLOV, "--system", "FIDE", "--section", SECTION)


def test_k_still_counts_a_rating_published_without_a_count_as_past_thirty_games(cli):
    # 8.3.3: K = 40 "until they have completed events with at least 30 games"; Park (2310,
    # born 1995, published without a game count) keeps K = 20 as before issue 30.
    assert "Ro 2310 ΔR +8.20 K 20" in cli("crosstable", SECTION)


def test_explain_lists_a_game_as_counted_exactly_when_it_is_in_the_sums(
    ledger, store_url, tmp_path, monkeypatch
):
    # Issue 30: "a game is listed as counted exactly when it is in the sums". Under 10.0
    # (fide-2003) explain listed all 7 of Dr. 3400042's games at the 2005 Karl-Mala-
    # Gedenkturnier as "not counted … opponent without a rating", then gave Rc, W and We of
    # all 7.
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    karl_mala = Path(__file__).parent / "fixtures" / "real" / "karl-mala-2005.trf"
    args = ["import", "trf", str(karl_mala), "--register-players", "--actor", "director"]
    assert runner.invoke(app, [*args, "--store", store_url]).exit_code == 0
    section = "2005-07-28-9-karl-mala-gedenkturnier"
    explain = ["explain", "3400042", "--system", "FIDE", "--section", section, "--json"]
    result = runner.invoke(app, [*explain, "--rules-family", "fide", "--store", store_url])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    fide = out["fide"]
    assert "not_counted" not in fide
    assert len(fide["games"]) == out["result"]["games_after"] - out["result"]["games_before"] == 7
    assert sum(g["score"] for g in fide["games"]) == fide["W"] == 6.0
