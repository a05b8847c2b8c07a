"""Issue 30, cause 2: "FIDE rates a tournament that started before a list was published from
the ratings of the list in force when it started" (Rating Regulations 2002, 9.11: "the list
published 1.1 is used for events commencing 1.1-31.3"; Title Regulations 1.4.6a)."""

import json

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.commands import PublishList, parse
from ledger.entrypoints.cli import app
from ledger.evidence.checkpoints import Checkpoint
from projections import queries
from projections.explain import explain, render
from projections.projector import View
from projections.proof_check import verify_bundle

X, Y, Z = "50000011", "50000012", "50000013"
# December's section, the January list, January's, the February list, a section from Jan 28
# to Feb 3 (February's period) and one inside February, the March list
STEPS = [
    ("DEC", "2022-12-10", "2022-12-11"),
    ("2023-01",),
    ("JAN", "2023-01-10", "2023-01-11"),
    ("2023-02",),
    ("LATE", "2023-01-28", "2023-02-03"),
    ("INSIDE", "2023-02-10", "2023-02-11"),
    ("2023-03",),
]


def entered(led: Ledger, publish) -> Ledger:
    """The players and `STEPS`, each list published by `publish(led, name)` (which returns the
    ledger to go on with)."""
    for pid, rating in ((X, 1600), (Y, 1800), (Z, 2000)):
        fide = {"rating": rating, "date": "2022-12-01", "games": 100, "federation": "USA"}
        led.register(pid, adult=True, fide=fide)
    for step in STEPS:
        if len(step) == 1:
            led = publish(led, step[0])
        else:
            led.submit(round_robin(step[0], [X, Y, Z], step[1], step[2]))
    return led


@pytest.fixture
def view(ledger, tmp_path):
    def publish(led: Ledger, name: str) -> Ledger:
        command = {"family": "fide", "name": name, "as_of": f"{name}-01"}
        led.app.lists.publish(parse(PublishList, command), actor="director")
        return led

    led = entered(Ledger(ledger), publish)
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    return view


def row(view: View, player: str, key: str) -> dict:
    [found] = [r for r in queries.history(view, player, "FIDE") if r["item_key"] == key]
    return found


def test_a_tournament_that_started_under_the_january_list_is_rated_from_its_ratings(view):
    # "a tournament that started before a list was published [is rated] from the ratings of
    # the list in force when it started": Jan 28 – Feb 3 is in February's period (summed on
    # the March list) but its Ro is each player's rating on the January list.
    for player in (X, Y, Z):
        january, february = row(view, player, "list:fide:1"), row(view, player, "list:fide:2")
        if player != Y:  # Y's January section nets to nothing
            assert january["official_rating"] != february["official_rating"]
        late = row(view, player, "section:LATE")
        assert late["pre_rating"] == january["post_rating"]
        assert (late["detail"]["list"], late["detail"]["ro_list"]) == ("2023-03", "2023-01")
        assert late["detail"]["ro"] == january["post_rating"]
        # its ΔR is still summed on its own period's list, from the February list's Ro
        assert row(view, player, "list:fide:3")["pre_rating"] == february["post_rating"]


def test_a_tournament_inside_its_period_is_rated_from_the_periods_opening_list(view):
    # 10.65 unchanged: a section that started after the February list uses its ratings.
    for player in (X, Y, Z):
        inside = row(view, player, "section:INSIDE")
        assert inside["pre_rating"] == row(view, player, "list:fide:2")["post_rating"]
        assert "ro_list" not in inside["detail"]


def test_explain_recomputes_a_tournament_rated_from_an_earlier_list(view):
    for player in (X, Y, Z):
        out = explain(view, player, "FIDE", section="LATE")
        assert out["result"]["recomputes"] is True, player
        # the explanation shows the section's own Ro and the list it came from
        assert out["fide"]["Ro_list"] == "2023-01"
        assert out["fide"]["Ro"] == row(view, player, "list:fide:1")["post_rating"]
        assert f"Ro {out['fide']['Ro']:.4f} (list 2023-01)" in render(out)
    assert "Ro_list" not in explain(view, X, "FIDE", section="INSIDE")["fide"]


def test_a_proof_of_that_period_says_why_it_is_not_recomputed(tmp_path):
    # The bundle carries the previous list's rows only: LATE's Ro is the January list's, so
    # the offline check proves the row but does not recompute it from another list's.
    store = f"sqlite:///{tmp_path / 'ledger.db'}"

    def cli(*args: str) -> str:
        result = CliRunner().invoke(app, [*args, "--store", store])
        assert result.exit_code == 0, result.output
        return result.output

    def publish(led: Ledger, name: str) -> Ledger:
        led.app.close()  # the command line publishes and commits the list's ratings
        publish_list = ("publish-list", "--family", "fide", "--actor", "director")
        cli(*publish_list, "--name", name, "--as-of", f"{name}-01")
        return Ledger(RatingsLedger(store))

    entered(Ledger(RatingsLedger(store)), publish).app.close()
    bundle = json.loads(cli("prove", X, "--list", "2023-03", "--rules-family", "fide"))
    said = verify_bundle(bundle, Checkpoint.parse(cli("checkpoint")))
    assert said["recomputed"] is False
    assert "section:LATE started on 2023-01-28" in said["why_not_recomputed"]


def test_a_late_report_is_rated_from_the_list_in_force_when_it_started(ledger, tmp_path):
    # A section of 20–21 January reported after the February list's cutoff is rated in the
    # next period (late items) and, having started under the January list, from its ratings.
    def publish(led: Ledger, name: str) -> Ledger:
        command = {"family": "fide", "name": name, "as_of": f"{name}-01"}
        led.app.lists.publish(parse(PublishList, command), actor="director")
        if name == "2023-02":
            led.submit(round_robin("REPORTED_LATE", [X, Y, Z], "2023-01-20", "2023-01-21"))
        return led

    led = entered(Ledger(ledger), publish)
    view = View(tmp_path / "fide.db", "fide")
    led.catch_up(view)
    for player in (X, Z):
        late = row(view, player, "section:REPORTED_LATE")
        assert late["detail"]["list"] == "2023-03"
        assert late["detail"]["ro_list"] == "2023-01"
        assert late["pre_rating"] == row(view, player, "list:fide:1")["post_rating"]
