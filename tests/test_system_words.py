"""A system as its family calls it wherever a person reads one (issue 30, "One family
vocabulary in every command": "results carry the family's own system names (FIDE
standard/rapid/blitz, ICU)"; brief: "`player` and the history/list page navigation show system
codes (`FIDE_RAPID`) ...: use the words everywhere a person reads a system (keep codes in JSON
and in `--system` values)")."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints import quick
from ledger.entrypoints.cli import app

X, Y, Z = "50000041", "50000042", "50000043"
RAPID = "G/25;+10"  # FIDE rapid and blitz 1.2: more than 10 and less than 60 minutes


def ok(store: str, *args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--store", store])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A FIDE ledger: a standard and a rapid round robin, then the list `2023-01`."""
    store = f"sqlite:///{tmp_path_factory.mktemp('words') / 'ledger.db'}"
    ok(store, "init", "--actor", "director", "--family", "fide")
    with closing(RatingsLedger(store)) as writer:
        led = Ledger(writer)
        for pid, rating in {X: 1600, Y: 1800, Z: 2000}.items():
            led.register(pid, adult=True, fide={"rating": rating, "date": "2022-12-01"})
        led.submit(round_robin("STD", [X, Y, Z], "2022-12-10"))
        led.submit(round_robin("RAP", [X, Y, Z], "2022-12-17", time_control=RAPID))
    ok(store, "publish-list", "--name", "2023-01", "--as-of", "2023-01-01", "--actor", "director")
    return store


def test_player_names_each_system_in_words_on_both_paths_and_codes_in_json(store, capsys):
    # "use the words everywhere a person reads a system (keep codes in JSON)": the full
    # command and the fast path print "FIDE standard" and "FIDE rapid"; --json keys stay codes.
    full = ok(store, "player", X)
    assert "  FIDE standard " in full and "  FIDE rapid " in full and "FIDE_RAPID" not in full
    capsys.readouterr()
    assert quick.answer(["player", X, "--store", store]) is True
    assert capsys.readouterr().out == full
    assert set(json.loads(ok(store, "player", X, "--json"))["ratings"]) == {"FIDE", "FIDE_RAPID"}


def test_rating_says_the_system_in_words_and_takes_its_code(store):
    # "keep codes ... in `--system` values": `--system FIDE_RAPID` answers "FIDE rapid".
    out = ok(store, "rating", X, "--system", "FIDE_RAPID", "--as-of", "2023-01-01")
    assert out.startswith(f"{X} FIDE rapid on 2023-01-01: ")


def test_the_history_and_list_pages_navigate_by_words_and_link_by_code(store, tmp_path: Path):
    # "the history/list page navigation show system codes": each link's text is the
    # family's word, its address keeps the code (?system=FIDE_RAPID).
    from test_web import get

    from ledger.entrypoints.web.app import Site

    site = Site(store, tmp_path / "web-fide.db", "fide")
    history = get(site, f"/players/{X}/history", "system=FIDE_RAPID").text
    listed = get(site, "/lists/2023-01", "system=FIDE_RAPID").text
    for page in (history, listed):
        assert "system=FIDE_RAPID' aria-current='page'>FIDE rapid</a>" in page
        assert ">FIDE standard</a>" in page and ">FIDE_RAPID<" not in page
    assert "<title>History of 50000041 (FIDE rapid)" in history
    assert " in FIDE rapid</p>" in listed
