"""The same ledger rated under FIDE 10.0 and the ICU rules, one read model per family."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from projections import queries
from projections.projector import View

P, Q, R, S = "40000001", "40000002", "40000003", "40000004"


def fide(rating, games=100):
    return {"rating": rating, "date": "2024-01-01", "games": games, "federation": "USA"}


@pytest.fixture
def led(ledger):
    led = Ledger(ledger)
    led.register(P, adult=True, fide=fide(2300))
    led.register(Q, adult=True, fide=fide(2300))
    led.register(R, adult=True, fide=fide(2400))
    led.register(S, adult=True)
    return led


def swiss(section_id="SW", time_control="G/90;d30", online=False, end="2024-06-01"):
    section = round_robin(section_id, [P, Q, R], end, time_control=time_control, online=online)
    # p beats q and r; q and r do not meet: a Swiss, not a round robin.
    section["games"] = [
        {"round": 1, "white": P, "black": Q, "result": "1-0"},
        {"round": 2, "white": R, "black": P, "result": "0-1"},
    ]
    return section


def test_fide_rates_with_the_table_expectancy_and_k_15(led, tmp_path):
    # FIDE 10.61 Rc = average of the opponents (2350); 10.63 D = −50 → PD .43 (10.1b, 47–53);
    # 10.64 We = PD × n = 0.86, K = 15 under 2400 after 30 games, ΔR = 15 × (2 − 0.86) = 17.1.
    # (A section of 2003: 10.0 is in force until the 2022 text, docs/decisions.md.)
    led.submit(swiss(end="2003-06-01"))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    row = queries.history(view, P, "FIDE")[-1]
    assert row["rules"] == "fide-2003"
    assert row["pre_rating"] == 2300.0
    assert row["post_rating"] == pytest.approx(2317.1)
    assert row["official_rating"] == 2317
    assert queries.player(view, P)["ratings"]["FIDE"]["games"] == 102


def test_fide_2024_rates_each_game_with_k_20(led, tmp_path):
    # B.02 (2024) 8.3.1–8.3.2: D = 0 → PD .50, ΔR +.50; D = −100 → PD .36 (8.1.2, 99–106),
    # ΔR +.64; 8.3.3 K = 20 under 2400 after 30 games: 20 × 1.14 = 22.8; 8.3.4 rounds it to 23.
    led.submit(swiss())
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    row = queries.history(view, P, "FIDE")[-1]
    assert (row["rules"], row["k"], row["expected"]) == ("fide-2024", 20, 0.86)
    assert row["post_rating"] == pytest.approx(2322.8)
    assert row["official_rating"] == 2323
    assert queries.player(view, P)["ratings"]["FIDE"]["wins"] == 2  # W/D/L counts his games


@pytest.mark.parametrize(("time_control", "online"), [("G/5;d0", False), ("G/90;d30", True)])
def test_fide_leaves_online_and_fast_sections_unrated(led, tmp_path, time_control, online):
    led.submit(swiss(time_control=time_control, online=online))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    assert queries.history(view, P, "FIDE") == []


def test_families_do_not_share_a_read_model(tmp_path):
    View(tmp_path / "v.db", "fide").close()
    with pytest.raises(ValueError, match="rates under 'fide'"):
        View(tmp_path / "v.db", "uschess")


def test_each_family_is_its_own_read_model_from_the_cli(tmp_path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(P, adult=True, fide=fide(2300))
    led.register(Q, adult=True, fide=fide(2300))
    led.register(R, adult=True, fide=fide(2400))
    led.submit(swiss())
    led.app.close()
    runner = CliRunner()
    us = json.loads(runner.invoke(app, ["player", P, "--json", "--store", store]).stdout)
    fi = runner.invoke(app, ["player", P, "--json", "--rules-family", "fide", "--store", store])
    assert set(us["ratings"]) == {"OTBR"}
    assert set(json.loads(fi.stdout)["ratings"]) == {"FIDE"}
    assert (tmp_path / "ledger.fide.view.db").exists()
    wrong = runner.invoke(
        app,
        [
            "player",
            P,
            "--rules-family",
            "icu",
            "--view",
            str(tmp_path / "ledger.view.db"),
            "--store",
            store,
        ],
    )
    assert wrong.exit_code == 2
    assert "uschess" in wrong.stderr


def test_icu_rates_new_players_by_performance_against_an_opening_list(ledger, tmp_path):
    # ICU: "New (unrated) players ... are processed by the Performance Rating Formula":
    # Rp = Rc + Dp; with 50 % against two 1800s, Rp = 1800 (Dp = 0 at p = .50, FIDE 10.1a).
    led = Ledger(ledger)
    led.register(P, Q, R, adult=True)
    led.opening(Q, "ICU", 1800.0, 100)
    led.opening(R, "ICU", 1800.0, 100)
    section = round_robin("ICU1", [P, Q, R], "2024-06-01")
    section["games"] = [
        {"round": 1, "white": P, "black": Q, "result": "1-0"},
        {"round": 2, "white": R, "black": P, "result": "1-0"},
    ]
    led.submit(section)
    view = View(tmp_path / "icu.db", "icu")
    led.catch_up(view)
    row = queries.history(view, P, "ICU")[-1]
    assert row["formula"] == "performance"
    assert row["post_rating"] == pytest.approx(1800.0)
    us = View(tmp_path / "us.db")
    led.catch_up(us)
    assert "ICU" not in queries.player(us, Q)["ratings"]


def test_an_opening_balance_whose_peak_reached_2400_rates_him_with_k_10(ledger, tmp_path):
    # Issue 30: "K 10 for a player who once reached 2400 cannot be recorded ... an opening
    # balance's `peak` of 2400 or more is ignored". B.02 (2024) 8.3.3: K = 10 "once a player's
    # published rating has reached 2400 and remains at that level subsequently". Rated 2343
    # with a peak of 2405, P's win against a 2343 (D = 0, PD .50) is ΔR = 10 × .50 = 5.
    led = Ledger(ledger)
    led.register(P, Q, adult=True)
    led.opening(P, "FIDE", 2343.0, 100, peak=2405.0)
    led.opening(Q, "FIDE", 2343.0, 100)
    section = round_robin("K10", [P, Q], "2024-06-01")
    section["games"] = [{"round": 1, "white": P, "black": Q, "result": "1-0"}]
    led.submit(section)
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    assert queries.history(view, P, "FIDE")[-1]["k"] == 10
    assert queries.history(view, Q, "FIDE")[-1]["k"] == 20  # 8.3.3: under 2400, 30+ games
