"""The read commands' contract: `player --json`, `history`, `rating --as-of`, `rebuild`."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

A, B, C = "20000001", "20000002", "20000003"


@pytest.fixture
def cli(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(A, B, C, adult=True)
    ledger.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    ledger.submit(round_robin("MAR", [A, B], "2024-03-02", results={(A, B): "0-1"}))
    ledger.app.close()
    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, [*args, "--store", store])

    return run


def test_player_json_has_one_entry_per_system(cli):
    result = cli("player", A, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["id"] == A
    otbr = out["ratings"]["OTBR"]
    for key in ("rating", "official_rating", "games", "wins", "draws", "losses", "floor"):
        assert key in otbr
    assert isinstance(otbr["established"], bool)
    assert otbr["games"] == 3
    assert otbr["official_rating"] == int(otbr["rating"] + 0.5)


def test_history_lists_each_change_in_rating_order(cli):
    out = json.loads(cli("history", A, "--system", "OTBR", "--json").stdout)
    assert [r["item_key"] for r in out] == ["section:JAN", "section:MAR"]
    assert out[1]["pre_rating"] == out[0]["post_rating"]


def test_rating_as_of_a_date(cli):
    jan = json.loads(cli("history", A, "--system", "OTBR", "--json").stdout)[0]
    out = json.loads(cli("rating", A, "--system", "OTBR", "--as-of", "2024-02-01", "--json").stdout)
    assert out["rating"] == jan["post_rating"]


def test_a_bad_date_exits_2_naming_the_option(cli):
    result = cli("rating", A, "--system", "OTBR", "--as-of", "Feb 1")
    assert result.exit_code == 2
    assert "--as-of" in result.stderr


def test_an_unknown_player_is_an_error(cli):
    result = cli("player", "99999999")
    assert result.exit_code == 1
    assert "99999999" in result.stderr


def test_rebuild_prints_the_digest_of_the_same_read_model(cli):
    first = cli("rebuild").stdout
    second = cli("rebuild").stdout
    assert "digest" in first
    assert first.split("digest ")[1] == second.split("digest ")[1]
