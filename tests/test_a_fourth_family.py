"""A fourth family costs one package, a fifth system that family's package (issue 29: "what it
now takes to add a fifth rating system to a family and a fourth family (files touched)").

The fourth family is tests/fixtures/fourth_family/toyelo/, plain Elo (K 20, one system `ELO`).
Here it is put under `ledger.rules` and named in the registry's `NAMES`, the two things a real
one would be: its folder `ledger/rules/toyelo/` and its name in ledger/rules/families.py. No
other module is changed or patched (the fifth system changes only the package's `FAMILY`)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

import ledger.rules
from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.params import When
from ledger.entrypoints.web.players import player_data
from ledger.estimate import load_section
from ledger.log import read_entries
from ledger.rules import families
from ledger.rules.family import Family
from projections import explain, queries, schema
from projections.projector import View
from projections.queries.common import system_order
from projections.rating import history_layout, rater_class

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "fourth_family"
NAME = "toyelo"
PACKAGE = f"ledger.rules.{NAME}"
CACHES = (families.family, rater_class, history_layout, schema.history_columns)
A, B, C = "30000001", "30000002", "30000003"


def _forget() -> None:
    for cache in CACHES:
        cache.cache_clear()
    for module in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[module]
    if hasattr(ledger.rules, NAME):  # the attribute an import of the package set
        delattr(ledger.rules, NAME)


@pytest.fixture
def toyelo(monkeypatch: pytest.MonkeyPatch) -> Iterator[Family]:
    """The fixture package as `ledger.rules.toyelo`, named in the registry; all undone after."""
    monkeypatch.setattr(ledger.rules, "__path__", [*ledger.rules.__path__, str(FIXTURE)])
    monkeypatch.setattr(families, "NAMES", (*families.NAMES, NAME))
    _forget()
    yield families.family(NAME)
    _forget()


@pytest.fixture
def led(tmp_path: Path) -> Iterator[Ledger]:
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    yield ledger
    ledger.app.close()


def rated(led: Ledger, path: Path) -> View:
    view = View(path, NAME)
    led.catch_up(view)
    return view


def test_a_fourth_family_rates_a_section_by_its_own_rules(toyelo, led, tmp_path):
    # "Each family implements it in its own package with its own state type and tables":
    # 1500 beats 1500 and 1500: E = 1/(1+10^0) = 0.5 a game, K 20.
    led.register(A, B, C, adult=True)
    for player in (A, B, C):
        led.opening(player, "ELO", 1500, 30)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    view = rated(led, tmp_path / "toyelo.db")
    ratings = {p: queries.player(view, p)["ratings"]["ELO"] for p in (A, B, C)}
    assert {p: r["rating"] for p, r in ratings.items()} == {A: 1520.0, B: 1500.0, C: 1480.0}
    assert ratings[A] == {
        "rating": 1520.0,
        "official_rating": 1520,
        "games": 32,
        "wins": 2,
        "draws": 0,
        "losses": 0,
        "rated_on": "2024-01-06",
    }
    row = queries.history(view, A, "ELO")[-1]
    assert (row["rules"], row["formula"], row["pre_rating"], row["post_rating"]) == (
        "toyelo-k20",
        "elo",
        1500.0,
        1520.0,
    )
    assert (row["m"], row["score"], row["expected"], row["k"]) == (2, 2.0, 1.0, 20.0)
    assert [r["kind"] for r in queries.history(view, A, "ELO")] == ["opening", "section"]
    view.close()


def test_a_fourth_family_leaves_an_unrated_players_games_unrated(toyelo, led, tmp_path):
    # The toy family's own rule, kept by its rater alone: "an unrated player's games are not
    # rated"; 1600 beating 1400 gains 20 × (1 − 1/(1+10^(−200/400))).
    led.register(A, B, C, adult=True)
    led.opening(A, "ELO", 1600, 30)
    led.opening(B, "ELO", 1400, 30)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    view = rated(led, tmp_path / "toyelo.db")
    gain = 20 * (1 - 1 / (1 + 10 ** (-200 / 400)))
    assert queries.player(view, A)["ratings"]["ELO"]["rating"] == pytest.approx(1600 + gain)
    assert queries.player(view, B)["ratings"]["ELO"]["rating"] == pytest.approx(1400 - gain)
    assert queries.player(view, C)["ratings"] == {}
    view.close()


def test_a_fourth_familys_model_is_rebuilt_with_the_same_rows(toyelo, led, tmp_path):
    # "catch-up, cascade and rebuild as collaborators": the family's rows are the same however
    # the model was made, and a correction re-rates through the cascade.
    led.register(A, B, C, adult=True)
    for player in (A, B, C):
        led.opening(player, "ELO", 1500, 30)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    led.submit(round_robin("FEB", [C, B, A], "2024-02-03"))
    caught = rated(led, tmp_path / "caught.db")
    led.correct(round_robin("JAN", [A, B, C], "2024-01-06", results={(A, B): "0-1"}))
    led.catch_up(caught)
    rebuilt = View(tmp_path / "rebuilt.db", NAME)
    rebuilt.rebuild(read_entries(led.app))
    rows = {p: queries.history(caught, p, "ELO") for p in (A, B, C)}
    assert rows == {p: queries.history(rebuilt, p, "ELO") for p in (A, B, C)}
    assert rows[A][1]["score"] == 1.0  # the corrected section: he lost to B
    caught.close()
    rebuilt.close()


def test_the_player_page_and_the_history_show_a_fourth_familys_system(toyelo, led, tmp_path):
    # "reads go through one door": the site's player page and the CLI's history read it.
    led.register(A, B, adult=True)
    led.opening(A, "ELO", 1500, 30)
    led.opening(B, "ELO", 1500, 30)
    led.submit(round_robin("JAN", [A, B], "2024-01-06"))
    view = rated(led, tmp_path / "toyelo.db")
    page = player_data(view, A, When())
    assert list(page["ratings"]) == ["ELO"] and page["ratings"]["ELO"]["rating"] == 1510.0
    assert queries.systems_of(view, B) == ["ELO"]
    assert [r["post_rating"] for r in queries.history(view, B, "ELO")] == [1500.0, 1490.0]
    view.close()


def test_the_command_line_reads_a_fourth_familys_own_read_model(toyelo, tmp_path):
    # "reads go through one door": `player` and `history --rules-family toyelo` make its read
    # model beside the store (`Family.view_suffix`) and show its rows.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(store))
    led.register(A, B, adult=True)
    led.opening(A, "ELO", 1500, 30)
    led.opening(B, "ELO", 1500, 30)
    led.submit(round_robin("JAN", [A, B], "2024-01-06"))
    led.app.close()
    runner, family = CliRunner(), ["--rules-family", NAME, "--store", store]
    shown = json.loads(runner.invoke(app, ["player", A, "--json", *family]).stdout)
    assert shown["ratings"]["ELO"]["rating"] == 1510.0
    lines = runner.invoke(app, ["history", B, "--system", "elo", *family]).stdout.splitlines()
    assert [line.split()[4] for line in lines] == ["1500.00", "1490.00"]  # after each
    assert (tmp_path / "ledger.toyelo.view.db").exists()


def test_explain_recomputes_a_fourth_familys_row_and_says_why_one_is_unrated(toyelo, led, tmp_path):
    # "a typed rater protocol … how it … rates an item, explains a row": `explain` rates the
    # item again through the family's rater and finds the stored rating.
    led.register(A, B, C, adult=True)
    led.opening(A, "ELO", 1600, 30)
    led.opening(B, "ELO", 1400, 30)
    led.submit(round_robin("JAN", [A, B, C], "2024-01-06"))
    view = rated(led, tmp_path / "toyelo.db")
    x = explain.explain(view, A, "ELO", "JAN")
    assert x["rules"] == {"version": "toyelo-k20"}
    assert x["item"]["follows"].startswith("plain Elo")
    assert x["result"]["recomputes"] is True
    assert "not_rated" in explain.explain(view, C, "ELO", "JAN")
    view.close()


def test_a_fourth_familys_estimator_rates_the_contracts_section(toyelo):
    # "each fact kind is declared once": `estimate` finds a family's estimator by its
    # `Family.estimator` ("module:function"), here the toy family's own.
    section = load_section(
        {
            "start_date": "2024-05-01",
            "end_date": "2024-05-01",
            "players": [
                {"id": "a", "rating": 1500, "games": 40},
                {"id": "b", "rating": 1500, "games": 40},
                {"id": "c", "unrated": True, "games": 0},
            ],
            "games": [
                {"white": "a", "black": "b", "result": "1-0"},
                {"white": "c", "black": "a", "result": "1-0"},
            ],
        }
    )
    module, _, function = toyelo.estimator.partition(":")
    out = getattr(importlib.import_module(module), function)(section, None, False)
    assert out["rules"] == "toyelo-k20"
    assert [p["post_rating"] for p in out["players"]] == [1510.0, 1490.0, None]
    assert [p["games_after"] for p in out["players"]] == [41, 41, 0]


# A fifth system: which systems a family keeps is its `Family.systems`, and which one a
# section is rated in its `list_for` (FIDE's by rate of play; US Chess's by the time control
# ranges of its package). Here the toy family's package alone gains `BLITZ`.
BLITZ = "BLITZ"


def blitz_or_elo(minutes: int, day: date) -> str:
    return BLITZ if minutes <= 10 else "ELO"


@pytest.fixture
def with_blitz(toyelo: Family, monkeypatch: pytest.MonkeyPatch) -> Family:
    """The family package's `FAMILY` with a second system, its lists showing both."""
    own = dataclasses.replace(
        toyelo, systems=("ELO", BLITZ), list_system=None, list_for=blitz_or_elo
    )
    monkeypatch.setattr(sys.modules[f"{PACKAGE}.family"], "FAMILY", own)
    families.family.cache_clear()
    return families.family(NAME)


def test_a_fifth_system_is_opened_rated_ordered_and_shown_from_its_family_alone(
    with_blitz, led, tmp_path
):
    # "capability flags become behaviour of the protocol … `system_order` hard-codes US
    # Chess's order though `Family.systems` exists": the door takes an opening in it, the
    # rater rates a G/5 section in it, and the read core orders it by `Family.systems`
    # (ELO before BLITZ, against the alphabet) on the player page and in his systems.
    led.register(A, B, adult=True)
    for player in (A, B):
        led.opening(player, "ELO", 1500, 30)
        led.opening(player, BLITZ, 1500, 30)
    led.submit(round_robin("JAN", [A, B], "2024-01-06"))
    led.submit(round_robin("FEB", [B, A], "2024-02-03", time_control="G/5"))
    view = rated(led, tmp_path / "toyelo.db")
    page = player_data(view, A, When())
    assert {s: r["rating"] for s, r in page["ratings"].items()} == {"ELO": 1510.0, BLITZ: 1490.0}
    assert list(page["ratings"]) == ["ELO", BLITZ]
    assert queries.systems_of(view, A) == ["ELO", BLITZ]
    assert sorted([BLITZ, "ELO", "OTHER"], key=system_order(view)) == ["ELO", BLITZ, "OTHER"]
    view.close()
