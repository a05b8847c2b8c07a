"""`explain`: every number behind a change, recomputed through the rules from stored standings."""

import json
import random
from datetime import date

import pytest
from projection_helpers import Ledger, generator, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections import queries
from projections.explain import explain, render
from projections.projector import View


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    module = generator()
    root = tmp_path_factory.mktemp("explain")
    store = f"sqlite:///{root / 'ledger.db'}"
    module.generate(store, 120, 5000, 9, date(2023, 1, 1), 3)
    app_ = RatingsLedger(store)
    view = View(root / "view.db")
    view.catch_up(read_entries(app_))
    app_.close()
    yield view
    view.close()


def history_rows(view):
    """(player, system, history row) of every rating change, through the front door."""
    return [
        (pid, system, row)
        for pid in queries.profiles(view)
        for system in queries.systems_of(view, pid)
        for row in queries.history(view, pid, system)
    ]


def test_every_explained_change_recomputes_to_the_stored_rating(generated):
    # Issue contract: "explain's numbers recompute to the stored rating".
    rows = [(player, system, row["item_key"]) for player, system, row in history_rows(generated)]
    sample = random.Random(3).sample(rows, 60)
    kinds = set()
    for player, system, key in sample:
        out = explain(generated, player, system, section=key)
        assert out["result"]["recomputes"], (player, system, key)
        kinds.add(out["item"]["kind"])
    assert "section" in kinds


def test_a_section_explanation_shows_each_step_and_what_fed_it(generated):
    player, system, key = next(
        (player, system, row["item_key"])
        for player, system, row in history_rows(generated)
        if row["formula"] == "standard" and row["pre_rating"] is not None
    )
    out = explain(generated, player, system, section=key)
    steps = out["steps"]
    assert steps["step2"]["N'"] == min(steps["step2"]["N"], steps["step2"]["N*"])  # §3
    k = steps["standard"]["K"]
    # §4.2: K = 800/(N' + m) outside the dual-rated exception.
    if steps["standard"]["K_rule"].startswith("K = 800"):
        assert k == pytest.approx(800 / (steps["step2"]["N'"] + steps["standard"]["m"]))
    positions = [f["position"] for f in out["fed_by"]]
    assert positions == sorted(positions)
    assert any("submitted" in f["what"] for f in out["fed_by"])
    assert "recomputed" in render(out)


def test_explain_from_the_command_line_by_section_or_date(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    a, b, c, d = "50000001", "50000002", "50000003", "50000004"
    led.register(a, b, c, d, adult=True)
    led.submit(round_robin("JAN", [a, b, c, d], "2024-01-06"))
    led.app.close()
    runner = CliRunner()
    by_section = runner.invoke(
        app, ["explain", a, "--system", "OTBR", "--section", "JAN", "--json", "--store", store]
    )
    assert by_section.exit_code == 0, by_section.output
    out = json.loads(by_section.stdout)
    assert out["steps"]["step1"]["rating"] == 1300.0  # §2.3: an adult without ratings
    assert out["result"]["recomputes"]
    by_date = runner.invoke(
        app, ["explain", a, "--system", "OTBR", "--as-of", "2024-02-01", "--store", store]
    )
    assert by_date.exit_code == 0
    assert "§1 Step 1" in by_date.stdout
    both = runner.invoke(app, ["explain", a, "--system", "OTBR", "--store", store])
    assert both.exit_code == 2
