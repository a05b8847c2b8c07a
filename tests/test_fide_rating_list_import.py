"""`ratings-ledger import fide-list FILE` (issue 30, "FIDE's inputs as FIDE keeps them"): FIDE's
own rating-list file, as ratings.fide.com publishes it, recorded as FIDE opening balances (rating,
games, K per list) and the K and flags on the profile, for the players the ledger knows by FIDE
id; `--register-players` registers the others."""

import json
import shutil
from pathlib import Path

from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.bounds import INPUT_LIMITS
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections import queries
from projections.projector import View

FIXTURES = Path(__file__).parent / "fixtures" / "fide_list"
COMBINED = FIXTURES / "players_list_foa.txt"  # Leko, August 2026 (SOURCES.md)
STANDARD = FIXTURES / "standard_jan23frl.txt"  # three rows of January 2023


def run(store_url: str, *args: str):
    return CliRunner().invoke(
        app, ["import", "fide-list", *args, "--actor", "office", "--store", store_url]
    )


def payloads(ledger, kind: str) -> list[dict]:
    return [e.payload for e in read_entries(ledger) if e.type == kind]


def test_the_combined_excerpt_imports_with_each_list_s_rating_games_and_k(ledger, store_url):
    # The combined list's SRtng/SGm/SK, RRtng/RGm/Rk, BRtng/BGm/BK: Leko 2676, 2700, 2738, 0
    # games, K 10 each (the row as FIDE published it).
    result = run(store_url, str(COMBINED), "--as-of", "2026-08-01", "--register-players")
    assert result.exit_code == 0, result.output
    balances = {b["system"]: b for b in payloads(ledger, "OpeningBalanceRecorded")}
    assert {s: (b["rating"], b["games"], b["k"]) for s, b in balances.items()} == {
        "FIDE": (2676, 0, 10),
        "FIDE_RAPID": (2700, 0, 10),
        "FIDE_BLITZ": (2738, 0, 10),
    }
    assert {b["as_of"] for b in balances.values()} == {"2026-08-01"}
    (profile,) = payloads(ledger, "PlayerRegistered")[-1:]
    assert (profile["member_id"], profile["fide_id"], profile["fide_k"]) == ("703303", "703303", 10)
    assert (profile["federation"], profile["sex"], profile["birth_year"]) == ("HUN", "m", 1979)


def test_the_list_s_flags_are_recorded_on_the_profiles_of_the_players_it_knows(ledger, store_url):
    # FIDE's list: `i` inactive (B.02 7.2.2), `w` woman; the Flag column of January 2023. Only
    # the players the ledger knows are recorded without --register-players.
    led = Ledger(ledger)
    led.register("P1", fide_id="25121731")
    led.register("P3", fide_id="4804929")
    result = run(store_url, str(STANDARD), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["as_of"], summary["rows"], summary["matched"]) == ("2023-01-01", 3, 2)
    assert summary["skipped"] == 1  # 5045886 is not in the ledger
    flags = {
        p["member_id"]: (p["fide_flags"], p["fide_k"])
        for p in payloads(ledger, "PlayerProfileUpdated")
    }
    assert flags == {"P1": ("i", 40), "P3": ("w", 20)}
    ratings = {
        b["player"] if "player" in b else b["member_id"]: b["rating"]
        for b in payloads(ledger, "OpeningBalanceRecorded")
    }
    assert ratings == {"P1": 1063, "P3": 1876}


def test_a_list_s_profiles_and_balances_are_one_write(ledger, store_url):
    # Issue 32's leftovers: "`import fide-list` appends profiles and balances in two writes
    # (validated first) — make it one write": one signature, on the write's last entry.
    from ledger.evidence.tables import links_of

    before = ledger.recorder.max_notification_id() or 0
    result = run(store_url, str(COMBINED), "--as-of", "2026-08-01", "--register-players")
    assert result.exit_code == 0, result.output
    with links_of(ledger.recorder) as links:
        rows = links.rows_after(before, None)
    kinds = [n.topic.rpartition(":")[2] for n, _ in rows]
    assert kinds == ["PlayerRegistered", *["OpeningBalanceRecorded"] * 3]
    assert [bool(signature) for _, signature in rows] == [False, False, False, True]


def test_the_rater_uses_the_imported_k(ledger, store_url, tmp_path):
    # 8.3.3: a player at 2343 whose list says K 10 ("reached 2400") changes by 10·(W − We).
    rows = COMBINED.read_text().splitlines()
    line = rows[1].replace("703303 ", "999001 ").replace("2676", "2343")
    listed = tmp_path / "standard_may24frl.txt"
    listed.write_text(rows[0] + "\n" + line + "\n")
    led = Ledger(ledger)
    led.register("X", fide_id="999001")
    for pid, rating in (("Y", 2200), ("Z", 2300)):
        led.register(pid, fide={"rating": rating, "date": "2024-05-01", "games": 100})
    result = run(store_url, str(listed))
    assert result.exit_code == 0, result.output
    led.submit(round_robin("MAY", ["X", "Y", "Z"], "2024-05-10", results={("X", "Z"): "1/2-1/2"}))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    (row,) = [r for r in queries.history(view, "X", "FIDE") if r["item_key"] == "section:MAY"]
    # 8.1.2: D 143 → 0.69, D 43 → 0.56; W 1.5; K 10
    assert row["post_rating"] - row["pre_rating"] == 10 * (1.5 - 1.25)


def test_a_file_over_the_limit_is_refused_by_its_size_first(
    ledger, store_url, tmp_path, monkeypatch
):
    # common rules: "Size limit first"; a refused write appends nothing (exit 2, one line).
    big = tmp_path / "players_list_foa.txt"
    shutil.copy(COMBINED, big)
    monkeypatch.setitem(INPUT_LIMITS, "fide-list", INPUT_LIMITS["fide-list"]._replace(size=100))
    before = len(list(read_entries(ledger)))
    result = run(store_url, str(big), "--as-of", "2026-08-01", "--register-players")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "at most 100 bytes" in result.output
    assert len(list(read_entries(ledger))) == before


def test_a_dry_run_records_nothing(ledger, store_url):
    before = len(list(read_entries(ledger)))
    result = run(
        store_url, str(COMBINED), "--as-of", "2026-08-01", "--register-players", "--dry-run"
    )
    assert result.exit_code == 0, result.output
    assert "would record 3 opening balances and 1 profiles" in result.output
    assert len(list(read_entries(ledger))) == before


def test_without_a_date_in_the_name_or_header_the_import_asks_for_as_of(ledger, store_url):
    # The combined file's headings name no month (SRtng) and its name carries none.
    result = run(store_url, str(COMBINED))
    assert result.exit_code == 2
    assert "give --as-of" in result.output


def test_a_second_import_keeps_the_first_opening_balances(ledger, store_url):
    # ledger/writes/players.py: at most one opening balance per system; the rows are left.
    assert (
        run(store_url, str(COMBINED), "--as-of", "2026-08-01", "--register-players").exit_code == 0
    )
    result = run(store_url, str(COMBINED), "--as-of", "2026-09-01", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["opening_balances"] == 0
    assert json.loads(result.output)["skipped"] == 3


def test_a_bad_row_is_refused_in_one_line_naming_it_and_nothing_is_appended(
    ledger, store_url, tmp_path
):
    # common rules: every error is one line (exit 2, bad input); a refused write appends nothing.
    rows = COMBINED.read_text().splitlines()
    bad = tmp_path / "players_list_foa.txt"
    bad.write_text(rows[0] + "\n" + rows[1] + "\n" + rows[1].replace("2676", "26x6") + "\n")
    before = len(list(read_entries(ledger)))
    result = run(store_url, str(bad), "--as-of", "2026-08-01", "--register-players")
    assert result.exit_code == 2
    assert result.output == f"error: {bad}:3: SRtng '26x6' is not a number\n"
    assert len(list(read_entries(ledger))) == before
