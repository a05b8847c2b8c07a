"""Issue 30, cause 6: the FIDE pages add up, on a real tournament file
(tests/fixtures/lakeside-fide-open-2024.trf, rated under fide-2024 and summed on the list of
1 October 2024)."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app

LAKESIDE = Path(__file__).parent / "fixtures" / "lakeside-fide-open-2024.trf"
SOKOLOV = "14700011"


@pytest.fixture
def cli(ledger, store_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a PostgreSQL store's read model goes in the current folder
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--store", store_url])
        assert result.exit_code == 0, result.output
        return result.output

    run("import", "trf", str(LAKESIDE), "--register-players", "--actor", "director")
    run(
        "publish-list",
        "--family",
        "fide",
        "--name",
        "2024-10",
        "--as-of",
        "2024-10-01",
        "--actor",
        "director",
    )
    return lambda *args: run(*args, "--rules-family", "fide")


def test_w_d_l_are_the_players_results_not_only_the_games_against_rated_opponents(cli):
    # Issue 30: "W/D/L are the results". Sokolov beat Chen, beat the unrated Kim and drew Park:
    # 2/1/0, though his rating counts only the two games against rated opponents (8.3.1).
    assert "W/D/L=2/1/0" in cli("player", SOKOLOV)
