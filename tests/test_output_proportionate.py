"""Output proportionate (issue 31: "Import prints 424 lines for 283 players; `register` ends on a
dangling '0 ratings changed (0 items re-rated):'; `correct --dry-run` prints '0 ratings would
change (1 items re-rated):' and not what changed in the report; a refused merge exits 3, which
the README reserves for write races"): a summary line per file, the details under `--verbose`
or `--json`, a dry run that shows what would change, and exit codes as the README gives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.cli.import_report import FEW, _report

runner = CliRunner()
TRF = Path(__file__).parent / "fixtures" / "real" / "karl-mala-2005.trf"  # 283 players
A, B, C = "80000001", "80000002", "80000003"


@pytest.fixture
def store(tmp_path: Path) -> str:
    """A ledger holding A, B and C, rated in section JAN (a round robin)."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(A, B, C, adult=True)
    for p, r in zip((A, B, C), (1500.0, 1600.0, 1700.0), strict=True):
        led.opening(p, "OTBR", r, 60, wins=25, draws=10, losses=25)
    led.submit(round_robin("JAN", [A, B, C], "2025-01-04"))
    led.app.close()
    return url


def run(store: str, *args: str) -> Result:
    return runner.invoke(app, [*args, "--store", store])


def test_an_import_of_283_players_prints_a_handful_of_lines(tmp_path: Path) -> None:
    # Issue 31: "Import prints 424 lines for 283 players: a summary line per file, the details
    # (per-player matches, warnings beyond the first few) under --verbose or in --json".
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run(store, "init", "--actor", "director").exit_code == 0
    args = ("import", "trf", str(TRF), "--actor", "director", "--register-players")
    result = run(store, *args, "--rules", "fide")
    assert result.exit_code == 0, result.output
    section = "2005-07-28-9-karl-mala-gedenkturnier"
    assert result.stdout.splitlines()[:4] == [
        f"read {TRF}: 283 records",
        f"section {section}: 283 players, 980 games, 21 byes; 1 with no rated game",
        "registered 283 new players",
        "recorded 284 entries at positions 3–286: 283 PlayerRegistered, 1 SectionSubmitted",
    ]
    assert result.stdout.splitlines()[4].startswith("receipt ")
    assert len(result.stdout.splitlines()) <= 6  # the receipt and perhaps its checkpoint
    assert len(result.stderr.splitlines()) <= FEW + 1
    assert "member X" not in result.output  # the 137 member ids assigned: --verbose


def test_verbose_and_json_give_the_details_a_summary_leaves_out(tmp_path: Path) -> None:
    # Issue 31: "the details (per-player matches ...) under --verbose or in --json".
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run(store, "init", "--actor", "director").exit_code == 0
    args = ("import", "trf", str(TRF), "--actor", "director", "--register-players", "--dry-run")
    verbose = run(store, *args, "--verbose")
    assert verbose.exit_code == 0, verbose.output
    assigned = [line for line in verbose.stderr.splitlines() if ": member X" in line]
    assert len(assigned) == 137  # "137 players without a FIDE id get the member ids ..."
    summary = json.loads(run(store, *args, "--json").stdout)
    assert len(summary["matched"]) == 283
    assert sum(m["by"] == "assigned" for m in summary["matched"]) == 137


def test_warnings_beyond_the_first_few_are_counted_not_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 31: "warnings beyond the first few" are details, under --verbose or in --json.
    summary: dict[str, Any] = {
        "files": [{"file": "a.trf", "records": 9}],
        "warnings": [f"a.trf line {n}: odd" for n in range(1, 11)],
        "sections": [],
        "players_registered": [],
    }
    _report(summary, [], [], dry_run=False, as_json=False, listed=False)
    err = capsys.readouterr().err.splitlines()
    assert err == [
        *(f"warning: a.trf line {n}: odd" for n in range(1, FEW + 1)),
        f"warning: {10 - FEW} more warnings (--verbose or --json shows them)",
    ]
    _report(summary, [], [], dry_run=False, as_json=False, listed=False, verbose=True)
    assert len(capsys.readouterr().err.splitlines()) == 10


def test_a_register_that_changes_no_rating_says_so_without_a_dangling_colon(
    store: str, tmp_path: Path
) -> None:
    # Issue 31: "`register` ends on a dangling '0 ratings changed (0 items re-rated):' (say
    # nothing or 'no rating changed')".
    players = tmp_path / "players.json"
    players.write_text(json.dumps([{"id": "80000009", "name": "New Player", "adult": True}]))
    result = run(store, "register", str(players), "--actor", "td")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "no rating changed"
    assert "0 ratings" not in result.stdout and "re-rated" not in result.stdout


def test_a_dry_run_correction_shows_the_reports_difference_and_what_would_change(
    store: str, tmp_path: Path
) -> None:
    # Issue 31: "`correct --dry-run` prints '0 ratings would change (1 items re-rated):' and
    # not what changed in the report: show the report's difference (games/results
    # added/removed/changed) and what would change"; grammar "1 item".
    fixed = tmp_path / "fixed.json"
    fixed.write_text(
        json.dumps(round_robin("JAN", [A, B, C], "2025-01-04", results={(A, B): "0-1"}))
    )
    args = ("correct", "JAN", str(fixed), "--reason", "wrong result", "--actor", "admin")
    result = run(store, *args, "--dry-run")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:2] == [
        "the report: 1 changed, 0 added, 0 removed:",
        f"  round 1: {A} 1-0 {B} → {A} 0-1 {B}",
    ]
    assert lines[2].startswith("would record SectionCorrected at position ")
    assert lines[3] == "3 ratings would change (1 item re-rated):"
    as_json = json.loads(run(store, *args, "--dry-run", "--json").stdout)
    assert as_json["report_changes"] == [f"round 1: {A} 1-0 {B} → {A} 0-1 {B}"]
    assert as_json["items_re_rated"] == 1


def test_a_refused_merge_exits_2_not_the_write_race_code_3(store: str) -> None:
    # Issue 31: "a refused merge exits 3, which the README reserves for write races: give it
    # the right code (2 bad input, or 4 roles) per the README's table". A and B both play JAN.
    before = len(json.loads(run(store, "log", "--json").stdout))
    result = run(store, "merge-players", A, B, "--reason", "same", "--actor", "admin")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: '{A}' and '{B}' both play in section 'JAN': a person cannot play himself, "
        "so they are two people\n"
    )
    assert len(json.loads(run(store, "log", "--json").stdout)) == before
    assert run(store, "merge-players", A, B, "--reason", "same", "--actor", "td").exit_code == 4
