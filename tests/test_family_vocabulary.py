"""Issue 30, cause 7: one family vocabulary in every command (`replay`, `estimate`)."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger import estimate as est
from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.entrypoints.cli import app
from ledger.log import read_entries
from projections.projector import View
from projections.what_if import WhatIf

PLAYERS = [f"6100000{i}" for i in range(1, 6)]


@pytest.fixture
def store(tmp_path):
    """FIDE-rated players in a 2024 round robin at a standard rate of play, and a list."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(*PLAYERS, adult=True)
    for p, r in zip(PLAYERS, (1900, 2000, 2100, 2200, 2300), strict=True):
        led.opening(p, "FIDE", float(r), 60)
        led.opening(p, "ICU", float(r), 60)
    led.submit(round_robin("Y24", PLAYERS, "2024-06-01", time_control="G/120"))
    listed = {"family": "fide", "name": "2024-07", "as_of": "2024-07-01"}
    led.app.lists.publish(parse(PublishList, listed), actor="director")
    led.app.close()
    return url


def rules_of_rows(store, path, what_if, family="fide"):
    ledger = RatingsLedger(store)
    view = View(path, family, what_if)
    view.rebuild(read_entries(ledger))
    ledger.close()
    rows = view.db.execute("select kind, rules from history where formula != 'opening'")
    found = rows.fetchall()
    assert "section" in {r[0] for r in found}
    return {r[1] for r in found}


def test_a_fide_what_if_rates_every_section_and_list_under_the_version_it_names(store, tmp_path):
    # Issue 30: "`replay --rules` takes every family's versions" (the FIDE reader rates by it).
    assert rules_of_rows(store, tmp_path / "real.db", None) == {"fide-2024"}
    assert rules_of_rows(store, tmp_path / "w.db", WhatIf("fide-2022")) == {"fide-2022"}
    listed = View(tmp_path / "w.db", "fide").db.execute(
        "select rules from history where kind = 'list'"
    )
    assert {r[0] for r in listed.fetchall()} == {"fide-2022"}  # the list closed under it too


def test_an_icu_what_if_rates_every_section_under_the_version_it_names(store, tmp_path):
    # Issue 30: "`replay --rules` takes every family's versions".
    rules = rules_of_rows(store, tmp_path / "w.db", WhatIf("icu-2005"), "icu")
    assert rules == {"icu-2005"}


def test_a_section_may_name_a_fide_version_and_the_fide_reader_rates_by_it(tmp_path):
    # Issue 30: "one family vocabulary in every command": the door took only US Chess's
    # versions as a section's `rules`; a FIDE version is now taken and honoured under FIDE.
    url = f"sqlite:///{tmp_path / 'hinted.db'}"
    led = Ledger(RatingsLedger(url))
    led.register(*PLAYERS, adult=True)
    for p, r in zip(PLAYERS, (1900, 2000, 2100, 2200, 2300), strict=True):
        led.opening(p, "FIDE", float(r), 60)
    led.submit(
        {**round_robin("H24", PLAYERS, "2024-06-01", time_control="G/120"), "rules": "fide-2022"}
    )
    led.app.close()
    assert rules_of_rows(url, tmp_path / "real.db", None) == {"fide-2022"}


def test_replay_with_rules_family_fide_takes_a_fide_version(store, tmp_path):
    # Issue 30: "`replay --rules-family fide --rules fide-2024` says 'unknown version …
    # known: uschess-2015, uschess-2020, uschess-2024'".
    runner = CliRunner()
    args = ["replay", "--to", str(tmp_path / "r.db"), "--store", store, "--rules-family", "fide"]
    out = runner.invoke(app, [*args, "--rules", "fide-2024"])
    assert out.exit_code == 0, out.output
    wrong = runner.invoke(
        app,
        [
            "replay",
            "--to",
            str(tmp_path / "u.db"),
            "--store",
            store,
            "--rules-family",
            "fide",
            "--rules",
            "uschess-2024",
        ],
    )
    assert wrong.exit_code == 2
    assert "unknown fide version 'uschess-2024'; known: fide-" in wrong.stderr


def test_a_replay_refuses_an_amendment_the_family_has_no_parameter_for(store, tmp_path):
    # Issue 30: "reasons are true": a US Chess parameter is not silently ignored under FIDE.
    out = CliRunner().invoke(
        app,
        [
            "replay",
            "--to",
            str(tmp_path / "a.db"),
            "--store",
            store,
            "--rules-family",
            "fide",
            "--amend",
            "bonus_multiplier=10@2024-01-01",
        ],
    )
    assert out.exit_code == 2
    assert "'bonus_multiplier' is not a rules parameter of fide" in out.stderr


def test_a_replay_without_the_uplift_is_refused_for_a_family_without_one(store, tmp_path):
    # Issue 30: "reasons are true": US Chess and the ICU record no FIDE uplift to leave out.
    args = ["replay", "--to", str(tmp_path / "w.db"), "--store", store, "--without-uplift"]
    out = CliRunner().invoke(app, [*args, "--rules-family", "icu"])
    assert out.exit_code == 2
    assert "--without-uplift: the icu family has no uplift to leave out" in out.stderr


def section(result="1-0", system="OTBR"):
    return est.load_section(
        {
            "start_date": "2024-03-01",
            "end_date": "2024-03-03",
            "time_control": "G/90+30",
            "system": system,
            "players": [{"id": "a", "unrated": True}, {"id": "b", "rating": 1850.25, "games": 40}],
            "games": [{"white": "a", "black": "b", "result": result}],
        }
    )


@pytest.mark.parametrize(
    ("rules", "system", "named"),
    [("fide-2024", "OTBR", "FIDE"), ("fide-2024", "rapid", "FIDE_RAPID"), ("icu", "OTBR", "ICU")],
)
def test_estimate_labels_fide_and_icu_results_with_their_own_system_names(rules, system, named):
    # Issue 30: "`estimate` labels FIDE and ICU results `"system": "OTBR"`".
    assert est.estimate(section(system=system), rules)["system"] == named


def test_a_first_event_lost_to_a_player_rated_1850_25_says_it_is_disregarded():
    # Issue 30: "with `fide-2024` a player whose one game was against an opponent rated
    # 1850.25 gets 'no games against rated opponents'": 8.2.1 disregards a zero first event.
    lost = est.estimate(section("0-1"), "fide-2024")["players"][0]
    assert lost["reason"] == "8.2.1: a score of zero in the first event is disregarded"
    won = est.estimate(section("1-0"), "fide-2024")["players"][0]
    assert won["reason"] == "7.1.4: 1 games against rated opponents, at least 5"


def test_the_estimate_command_prints_the_fide_list(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(section().model_dump(mode="json", exclude_none=True)))
    out = CliRunner().invoke(app, ["estimate", str(path), "--rules", "fide-2024"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["system"] == "FIDE"
