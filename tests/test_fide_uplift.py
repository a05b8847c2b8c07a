"""FIDE's one-time uplift of 1 March 2024 as a recorded fact: entered once by a director,
applied to the list of its date by the FIDE read model, in history and explain, and a what-if
replay without it."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.commands import PublishList, RecordFideUplift, parse
from ledger.entrypoints.cli import app
from ledger.errors import AccessDenied, InvalidCommand
from projections import queries
from projections.explain import explain
from projections.projector import View
from projections.what_if import WhatIf

X, Y, Z = "50000001", "50000002", "50000003"
UPLIFT = {"effective": "2024-03-01", "reason": "FIDE Council, 15 December 2023"}


@pytest.fixture
def led(ledger):
    led = Ledger(ledger)
    for pid, rating in ((X, 1500), (Y, 1900), (Z, 2100)):
        fide = {"rating": rating, "date": "2024-01-01", "games": 100, "federation": "USA"}
        led.register(pid, adult=True, fide=fide)
    led.submit(round_robin("FEB", [X, Y, Z], "2024-02-10", "2024-02-11"))
    led.app.lists.publish(
        parse(PublishList, {"family": "fide", "name": "2024-03", "as_of": "2024-03-01"}),
        actor="director",
    )
    led.app.decisions.record_fide_uplift(parse(RecordFideUplift, UPLIFT), actor="director")
    led.submit(round_robin("MAR", [X, Y, Z], "2024-03-10", "2024-03-11"))
    return led


def rows(view: View, player: str) -> dict[str, dict]:
    return {r["kind"]: r for r in queries.history(view, player, "FIDE")}


def test_every_rating_below_2000_on_the_list_is_raised_by_four_tenths_of_the_gap(led, tmp_path):
    # FIDE, 1 March 2024: R' = R + 0.4 × (2000 − R) below 2000; 2000 and above unchanged.
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    for player in (X, Y):
        listed, raised = rows(view, player)["list"], rows(view, player)["uplift"]
        before = listed["official_rating"]
        assert raised["pre_rating"] == before
        assert raised["official_rating"] == int(before + 0.4 * (2000 - before) + 0.5)
    assert "uplift" not in rows(view, Z)
    # The next period is rated from the uplifted list (10.65 / 7.1: Ro is the list's rating).
    march = [r for r in queries.history(view, X, "FIDE") if r["item_key"] == "section:MAR"]
    assert march[0]["pre_rating"] == rows(view, X)["uplift"]["official_rating"]


def test_explain_shows_the_uplift_and_recomputes_it(led, tmp_path):
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    out = explain(view, X, "FIDE", section="uplift:2024-03-01")
    assert out["result"]["recomputes"] is True
    assert out["values"]["share"] == 0.4 and out["values"]["list"] == "2024-03"


def test_a_what_if_replay_without_the_uplift_keeps_the_list_as_computed(led, tmp_path):
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    without = View(tmp_path / "without.db", "fide", WhatIf(without_uplift=True))
    led.catch_up(without)
    assert "uplift" not in rows(without, X)
    assert rows(without, X)["list"] == rows(view, X)["list"]
    assert (
        queries.player(without, X)["ratings"]["FIDE"]["rating"]
        < queries.player(view, X)["ratings"]["FIDE"]["rating"]
    )


def test_the_uplift_is_entered_once_and_only_by_a_director(led):
    with pytest.raises(InvalidCommand, match="already recorded for 2024-03-01"):
        led.app.decisions.record_fide_uplift(parse(RecordFideUplift, UPLIFT), actor="director")
    other = {**UPLIFT, "effective": "2024-04-01"}
    with pytest.raises(AccessDenied):
        led.app.decisions.record_fide_uplift(parse(RecordFideUplift, other), actor="office")


def test_the_cli_verb_records_it_and_the_replay_option_leaves_it_out(ledger, store_url, tmp_path):
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["fide-uplift", "--effective", "2024-03-01", "--reason", "FIDE Council", "--actor"]
        + ["director", "--store", store_url, "--json", "--view", str(tmp_path / "u.db")],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["entries"][0]["type"] == "FideUpliftRecorded"
    result = runner.invoke(
        app,
        ["replay", "--rules-family", "fide", "--without-uplift", "--to", str(tmp_path / "w.db")]
        + ["--store", store_url],
    )
    assert result.exit_code == 0, result.output


def test_a_player_first_seen_after_the_uplift_enters_at_his_raised_profile_rating(led, tmp_path):
    # The uplift raised "every rating below 2000 on that list": a profile rating dated before
    # 1 March 2024 was on that list, so a player the model did not hold yet (no FIDE history in
    # the ledger) enters raised; one dated on or after it, or undated, is taken as in force.
    old, new, undated, top = "50000004", "50000005", "50000006", "50000007"
    for pid, when in ((old, "2024-02-01"), (new, "2024-03-01"), (undated, None)):
        fide = {"rating": 1600, "games": 100, "federation": "USA"}
        fide |= {"date": when} if when else {}
        led.register(pid, adult=True, fide=fide)
    fide = {"rating": 2100, "date": "2024-02-01", "games": 100, "federation": "USA"}
    led.register(top, adult=True, fide=fide)
    led.submit(round_robin("LATE", [old, new, undated, top], "2024-03-15", "2024-03-16"))
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    without = View(tmp_path / "without.db", "fide", WhatIf(without_uplift=True))
    led.catch_up(without)

    def pre(v: View, player: str) -> float:
        [row] = [r for r in queries.history(v, player, "FIDE") if r["item_key"] == "section:LATE"]
        return row["pre_rating"]

    assert pre(view, old) == 1760  # 1600 + 0.4 × (2000 − 1600)
    assert (pre(view, new), pre(view, undated), pre(view, top)) == (1600, 1600, 2100)
    assert pre(without, old) == 1600  # the what-if without the uplift
