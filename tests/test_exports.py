"""Exports: `list` (the monthly rating supplement), `export-history` and `crosstable`.

The ledger: the TRF fixture's seven players (by FIDE id, with names), an opening balance for
the first, and the fixture's section imported as `submit` would take it.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.commands import RecordOpeningBalance, RegisterPlayer, parse
from ledger.entrypoints.cli.exporting import register
from ledger.entrypoints.interchange import exports, trf, validated
from ledger.rules.rounding import round_half_up

TRF = Path(__file__).parent / "fixtures" / "riverside-open-2024.trf"
SECTION_ID = "2024-05-04-riverside-spring-open-2024"
NAMES = ["Ann Lee", "Ben Ortiz", "Chloe Park", "Dev Rao", "Eli Novak", "Fay Chen", "Gus Kim"]
IDS = [f"200000{n}" for n in range(1, 8)]
# The fixture's points column (81-84): "Points" each player scored, byes included.
POINTS = [3.5, 2.0, 0.5, 2.0, 1.5, 2.0, 2.0]


@pytest.fixture
def run(ledger: RatingsLedger, store_url: str, tmp_path: Path) -> Callable[..., Result]:
    ledger.players.register(
        *(parse(RegisterPlayer, {"id": i, "name": n}) for i, n in zip(IDS, NAMES, strict=True)),
        actor="td",
    )
    balance = {"player": IDS[0], "system": "OTBR", "as_of": "2024-01-01"}
    balance |= {"rating": 1900.0, "games": 40, "peak": 1950.0}
    ledger.players.record_opening_balance(parse(RecordOpeningBalance, balance), actor="office")
    section = validated(trf.to_section(trf.read_trf(TRF)))
    ledger.sections.submit(section, actor="td")
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    register(app)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(
            app, [*args, "--store", store_url, "--view", str(tmp_path / "view.db")]
        )

    return invoke


def ok(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return result.stdout


def history(run: Callable[..., Result], player: str) -> list[dict[str, Any]]:
    return json.loads(ok(run("export-history", player, "--system", "OTBR", "--json")))


def test_the_supplement_lists_the_ratings_in_effect_on_the_date(
    run: Callable[..., Result],
) -> None:
    # Brief: "every player's rating in effect on that date, with N, established flag, floor";
    # as-of: "after every item that ended on or before it".
    before = json.loads(ok(run("list", "--system", "OTBR", "--as-of", "2024-05-04", "--json")))
    assert before == [
        {
            "id": IDS[0],
            "name": "Ann Lee",
            "system": "OTBR",
            "rating": 1900.0,
            "official_rating": 1900,
            "games": 40,
            # §1: "established if it is based upon more than 25 games".
            "established": True,
            # §5: "subtracting 200 points from the highest attained established rating"
            # (1950 → 1700).
            "floor": 1700,
            "rated_on": "2024-01-01",
        }
    ]
    after = json.loads(ok(run("list", "--system", "OTBR", "--as-of", "2024-05-05", "--json")))
    assert [r["id"] for r in after] == IDS
    for row in after:
        assert row["official_rating"] == round_half_up(row["rating"])
        assert row["established"] == (row["games"] > 25)
        assert row["floor"] >= 100  # §5: "The absolute rating floor for all ratings is 100."
        assert row["rated_on"] == "2024-05-05"
    assert after[0]["games"] == 44


def test_the_supplement_as_csv_has_one_row_per_player(run: Callable[..., Result]) -> None:
    text = ok(run("list", "--system", "OTBR", "--as-of", "2024-06-01", "--csv"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == exports.SUPPLEMENT_COLUMNS
    assert [r["id"] for r in rows] == IDS
    assert [r["established"] for r in rows] == ["true"] + ["false"] * 6
    as_json = json.loads(ok(run("list", "--system", "OTBR", "--as-of", "2024-06-01", "--json")))
    assert [r["official_rating"] for r in rows] == [str(r["official_rating"]) for r in as_json]


def test_the_supplement_as_text_marks_provisional_ratings(run: Callable[..., Result]) -> None:
    lines = ok(run("list", "--system", "OTBR", "--as-of", "2024-06-01")).splitlines()
    assert len(lines) == len(IDS)
    assert "P" not in lines[0].split()[3]  # Ann Lee: established
    assert all(line.split()[3].endswith(f"P{line.split()[5]}") for line in lines[1:])


def test_list_needs_an_iso_date_and_one_format(run: Callable[..., Result]) -> None:
    bad = run("list", "--system", "OTBR", "--as-of", "June 1")
    assert (bad.exit_code, bad.stderr) == (
        2,
        "error: --as-of: 'June 1' is not a date (YYYY-MM-DD)\n",
    )
    both = run("list", "--system", "OTBR", "--as-of", "2024-06-01", "--csv", "--json")
    assert (both.exit_code, both.stderr) == (2, "error: --csv and --json: choose one\n")


def test_export_history_is_the_players_changes_in_rating_order(
    run: Callable[..., Result],
) -> None:
    text = ok(run("export-history", IDS[0], "--system", "OTBR", "--csv"))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == exports.HISTORY_EXPORT_COLUMNS
    assert [r["item_key"] for r in rows] == [f"opening:{IDS[0]}:OTBR", f"section:{SECTION_ID}"]
    assert rows[1]["pre_rating"] == rows[0]["post_rating"]
    assert (rows[1]["games_before"], rows[1]["games_after"]) == ("40", "44")
    # Issue 20 (one CLI convention): a table by default, CSV with --csv.
    table = ok(run("export-history", IDS[0], "--system", "OTBR")).splitlines()
    assert table[0].split() == list(exports.HISTORY_EXPORT_COLUMNS)


def test_export_history_of_an_unknown_player_exits_1(run: Callable[..., Result]) -> None:
    result = run("export-history", "99999999", "--system", "OTBR")
    assert (result.exit_code, result.stderr) == (
        1,
        "error: player '99999999' is not in the ledger\n",
    )


def test_the_crosstable_has_one_line_per_player_with_results_total_and_ratings(
    run: Callable[..., Result],
) -> None:
    # Brief: "pair number, name/id, per-round results like `W4 L2 D3 B--`, total, `pre -> post`
    # per system with `P<n>` for provisional ratings (N ≤ 25 after the section, n = games)".
    lines = ok(run("crosstable", SECTION_ID)).splitlines()
    assert lines[0] == f"Riverside Spring Open 2024 ({SECTION_ID})"
    assert lines[1] == "2024-05-04 to 2024-05-05  G/90+30  submitted"
    rounds = ["Rd", "1", "Rd", "2", "Rd", "3", "Rd", "4"]
    assert lines[2].split() == ["Pair", "Player", *rounds, "Total", "OTBR"]
    rows = [line.split() for line in lines[3:]]
    assert [r[0] for r in rows] == [str(n) for n in range(1, 8)]
    assert rows[0][:8] == ["1", "Ann", "Lee", IDS[0], "W4", "W6", "D2", "W5"]
    cells = [r[4:8] for r in rows]
    assert cells[1] == ["D5", "H--", "D1", "D3"]  # a half-point bye
    assert cells[2] == ["L6", "F5", "U--", "D2"]  # forfeit loss, zero-point bye
    assert cells[4] == ["D2", "X3", "F4", "L1"]  # forfeit win; an unrated loss is a forfeit
    assert cells[6] == ["B--", "W4", "L6", "U--"]  # pairing-allocated bye; absent
    # The totals are the file's own points column.
    assert [float(r[8]) for r in rows] == POINTS
    for n, player in enumerate(IDS):
        (change,) = [h for h in history(run, player) if h["item_key"] == f"section:{SECTION_ID}"]
        post = change["official_rating"]
        games = change["games_after"]
        assert rows[n][-1] == (str(post) if games > 25 else f"{post}P{games}")
        pre = "unrated" if change["pre_rating"] is None else str(round_half_up(1900.0))
        assert rows[n][-3:-1] == [pre, "→"]


def test_the_crosstable_shows_the_systems_asked_for(run: Callable[..., Result]) -> None:
    # G/90+30 is rated in OTBR only: no player has an OTBQ rating from it.
    lines = ok(run("crosstable", SECTION_ID, "--system", "OTBQ")).splitlines()
    assert lines[2].split()[-1] == "OTBQ"
    assert all(line.split()[-1] == "-" for line in lines[3:])


def test_a_withdrawn_or_unknown_section_has_no_crosstable(
    run: Callable[..., Result], ledger: RatingsLedger
) -> None:
    unknown = run("crosstable", "NO-SUCH-SECTION")
    assert (unknown.exit_code, unknown.stderr) == (
        1,
        "error: section 'NO-SUCH-SECTION' is not in the ledger\n",
    )
    ledger.sections.withdraw(SECTION_ID, reason="irregular pairings", actor="office")
    withdrawn = run("crosstable", SECTION_ID)
    assert (withdrawn.exit_code, withdrawn.stderr) == (
        1,
        f"error: section '{SECTION_ID}' was withdrawn\n",
    )


@pytest.mark.parametrize(
    ("change", "text"),
    [
        # §1: provisional while N ≤ 25; the US Chess crosstable writes the games as P<n>.
        (exports.RatingChange(None, 0, 1432.6, 1433, 4), "unrated → 1433P4"),
        (exports.RatingChange(1500.4, 25, 1510.0, 1510, 26), "1500P25 → 1510"),
        (exports.RatingChange(1500.5, 26, 1490.0, 1490, 30), "1501 → 1490"),
    ],
)
def test_a_rating_change_is_written_pre_to_post_with_p_while_provisional(
    change: exports.RatingChange, text: str
) -> None:
    assert change.text() == text
