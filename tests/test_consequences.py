"""Corrections, withdrawals, overrides and amendments print the ratings they change."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app

A, B, C, D = "80000001", "80000002", "80000003", "80000004"


@pytest.fixture
def cli(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, B, C, D, adult=True)
    for p, r in zip((A, B, C, D), (1500.0, 1600.0, 1700.0, 1800.0), strict=True):
        led.opening(p, "OTBR", r, 60, wins=25, draws=10, losses=25)
    led.submit(round_robin("JAN", [A, B, C], "2025-01-04"))
    led.submit(round_robin("FEB", [C, D], "2025-02-01"))
    led.app.close()
    fixed = tmp_path / "fixed.json"
    fixed.write_text(
        json.dumps(round_robin("JAN", [A, B, C], "2025-01-04", results={(A, B): "0-1"}))
    )
    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, [*args, "--store", store])

    run("rebuild")
    return run, fixed


def log_length(run):
    return len(json.loads(run("log", "--json").stdout))


def test_a_dry_run_correction_shows_the_cascade_and_appends_nothing(cli):
    run, fixed = cli
    before = log_length(run)
    out = run(
        "correct",
        "JAN",
        str(fixed),
        "--reason",
        "wrong result",
        "--actor",
        "admin",
        "--dry-run",
        "--json",
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["dry_run"]
    changed = {c["player"] for c in report["changed"]}
    # A and B swap a result; C played both of them (JAN) and D played C later (FEB).
    assert {A, B} <= changed
    a = next(c for c in report["changed"] if c["player"] == A)
    assert a["after"]["rating"] < a["before"]["rating"]
    assert log_length(run) == before
    assert (
        json.loads(run("player", A, "--json").stdout)["ratings"]["OTBR"]["rating"]
        == (a["before"]["rating"])
    )


def test_a_correction_prints_before_and_after_and_the_model_follows(cli):
    run, fixed = cli
    dry = json.loads(
        run(
            "correct", "JAN", str(fixed), "--reason", "r", "--actor", "admin", "--dry-run", "--json"
        ).stdout
    )
    out = run("correct", "JAN", str(fixed), "--reason", "r", "--actor", "admin")
    assert out.exit_code == 0, out.output
    assert "recorded SectionCorrected" in out.stdout
    assert f"{A} OTBR" in out.stdout
    a = next(c for c in dry["changed"] if c["player"] == A)
    now = json.loads(run("player", A, "--json").stdout)["ratings"]["OTBR"]["rating"]
    assert now == a["after"]["rating"]


def test_withdrawing_a_section_reports_the_players_it_reverts(cli):
    run, _ = cli
    out = run("withdraw", "FEB", "--reason", "not rateable", "--actor", "admin", "--json")
    report = json.loads(out.stdout)
    assert {c["player"] for c in report["changed"]} == {C, D}


def test_a_retroactive_amendment_reports_the_re_rated_players(cli):
    # Real history: B = 10 for 2025 sections, recorded after they were rated (§4.2 bonus).
    run, _ = cli
    out = run(
        "amend-rules",
        "--parameter",
        "bonus_multiplier",
        "--value",
        "10",
        "--effective",
        "2025-01-01",
        "--until",
        "2026-01-01",
        "--reason",
        "2025 B",
        "--actor",
        "director",
        "--json",
    )
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["items_re_rated"] >= 2
    assert report["entries"][0]["type"] == "RulesAmended"


def test_an_override_reports_its_effect(cli):
    run, _ = cli
    out = run(
        "override",
        "--player",
        D,
        "--action",
        "adjust_rating",
        "--value",
        "1750",
        "--effective",
        "2025-03-01",
        "--reason",
        "review",
        "--actor",
        "director",
        "--json",
    )
    report = json.loads(out.stdout)
    assert report["changed"][0]["after"]["rating"] == 1750.0
