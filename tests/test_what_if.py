"""What-if replays under other rules, and the diff between two read models."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections import queries
from projections.compare import diff, render
from projections.projector import View
from projections.what_if import WhatIf

PLAYERS = [f"6000000{i}" for i in range(1, 7)]


@pytest.fixture
def store(tmp_path):
    """Established players in a 2024 and a 2025 round robin (the later one won by an underdog)."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(*PLAYERS, adult=True)
    for p, r in zip(PLAYERS, (1500, 1600, 1700, 1800, 1900, 2000), strict=True):
        led.opening(p, "OTBR", float(r), 60, wins=25, draws=10, losses=25)
    led.submit(round_robin("Y24", PLAYERS, "2024-06-01"))
    led.submit(round_robin("Y25", PLAYERS, "2025-06-07"))
    led.submit(round_robin("Y25B", PLAYERS[:2], "2025-07-05"))
    led.app.close()
    return url


def build(store, path, what_if=None):
    ledger = RatingsLedger(store)
    view = View(path, "uschess", what_if)
    view.rebuild(read_entries(ledger))
    ledger.close()
    return view


def test_a_replay_under_the_ledgers_own_rules_equals_the_real_read_model(store, tmp_path):
    # Issue contract: "the what-if replay of the ledger's own rules equals the real read model".
    real = build(store, tmp_path / "real.db")
    what_if = build(store, tmp_path / "what-if.db", WhatIf())
    assert what_if.digest() == real.digest()


def test_b_10_for_2025_changes_only_ratings_from_2025_sections(store, tmp_path):
    # Real history: US Chess rated 2025 sections with B = 10 retroactively. §4.2's bonus
    # max(0, K(S − E) − B√m') is larger with B = 10, so the 2025 winner ends higher.
    real = build(store, tmp_path / "real.db")
    amend = {
        "parameter": "bonus_multiplier",
        "value": 10,
        "effective": "2025-01-01",
        "until": "2026-01-01",
    }
    b10 = build(store, tmp_path / "b10.db", WhatIf(None, (amend,)))
    real_rows = {r["item_key"]: r for r in queries.history(real, PLAYERS[0], "OTBR")}
    b10_rows = {r["item_key"]: r for r in queries.history(b10, PLAYERS[0], "OTBR")}
    assert b10_rows["section:Y24"] == real_rows["section:Y24"]
    assert b10_rows["section:Y25"]["bonus_multiplier"] == 10.0
    assert b10_rows["section:Y25"]["bonus"] > real_rows["section:Y25"]["bonus"]
    d = diff(str(tmp_path / "real.db"), str(tmp_path / "b10.db"), "OTBR")
    assert d["compared"] == len(PLAYERS)
    assert d["changed"] >= 1
    winner = next(x for x in d["largest"] if x["player"] == PLAYERS[0])
    assert winner["change"] > 0


def test_the_diff_names_who_gained_a_bonus_under_b_10_and_by_how_much(store, tmp_path):
    # §4.2: bonus = max(0, K(S − E) − B√m'): with B = 10 instead of 12 the 2025 winner's bonus
    # grows (by 2√5 for m = 5, plus what his opponents' higher intermediate ratings add in
    # Step 5). The diff lists each changed bonus with its value before and after; 2024 none.
    build(store, tmp_path / "real.db")
    amend = {"parameter": "bonus_multiplier", "value": 10, "effective": "2025-01-01"}
    b10 = build(store, tmp_path / "b10.db", WhatIf(None, (amend,)))
    d = diff(str(tmp_path / "real.db"), str(tmp_path / "b10.db"), "OTBR")
    assert d["players_gaining_a_bonus"] == d["bonuses_changed"] >= 1
    for x in d["bonuses"]:
        assert x["item"].startswith("section:Y25") and x["b"] - x["a"] >= 2 * 5**0.5
        row = next(
            r for r in queries.history(b10, x["player"], "OTBR") if r["item_key"] == x["item"]
        )
        assert row["bonus"] == x["b"] and row["bonus_multiplier"] == 10.0
    assert d["bonuses"][0]["player"] == PLAYERS[0]
    assert d["new_bonuses"] == sum(1 for x in d["bonuses"] if x["a"] == 0)
    gaining = f"{d['players_gaining_a_bonus']} players gaining a bonus ({d['new_bonuses']} new):"
    assert f"bonuses: {d['bonuses_changed']} changed, {gaining}" in render(d).splitlines()


def test_b_12_from_february_2023_against_the_old_14(tmp_path):
    # Real history: B = 12 applied from 2023-02-01 retroactively; a replay keeping B = 14 for
    # 2023 shows what the change did to a section of 2023-03 (and nothing to one of 2022).
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(*PLAYERS, adult=True)
    for p, r in zip(PLAYERS, (1500, 1600, 1700, 1800, 1900, 2000), strict=True):
        led.opening(p, "OTBR", float(r), 60, wins=25, draws=10, losses=25)
    led.submit(round_robin("Y22", PLAYERS, "2022-10-01"))
    led.submit(round_robin("Y23", PLAYERS, "2023-03-04"))
    led.app.close()
    real = build(url, tmp_path / "real.db")
    amend = {"parameter": "bonus_multiplier", "value": 14, "effective": "2023-02-01"}
    b14 = build(url, tmp_path / "b14.db", WhatIf(None, (amend,)))
    real_rows = {r["item_key"]: r for r in queries.history(real, PLAYERS[0], "OTBR")}
    b14_rows = {r["item_key"]: r for r in queries.history(b14, PLAYERS[0], "OTBR")}
    assert real_rows["section:Y23"]["bonus_multiplier"] == 12.0
    assert b14_rows["section:Y23"]["bonus_multiplier"] == 14.0
    assert b14_rows["section:Y22"] == real_rows["section:Y22"]
    assert b14_rows["section:Y23"]["post_rating"] < real_rows["section:Y23"]["post_rating"]


def test_replay_and_diff_from_the_command_line(store, tmp_path):
    runner = CliRunner()
    real = tmp_path / "ledger.view.db"
    assert runner.invoke(app, ["rebuild", "--store", store]).exit_code == 0
    out = runner.invoke(
        app,
        [
            "replay",
            "--to",
            str(tmp_path / "b10.db"),
            "--amend",
            "bonus_multiplier=10@2025-01-01..2026-01-01",
            "--compare",
            str(real),
            "--store",
            store,
        ],
    )
    assert out.exit_code == 0, out.output
    assert "changed" in out.stdout
    result = runner.invoke(app, ["diff", str(real), str(tmp_path / "b10.db"), "--json"])
    assert json.loads(result.stdout)["changed"] >= 1
    bad = runner.invoke(
        app, ["replay", "--to", str(tmp_path / "x.db"), "--amend", "bonus=ten", "--store", store]
    )
    assert bad.exit_code == 2
    assert "--amend" in bad.stderr
    rules = runner.invoke(
        app, ["replay", "--to", str(tmp_path / "r.db"), "--rules", "uschess-2015", "--store", store]
    )
    assert rules.exit_code == 0, rules.output
