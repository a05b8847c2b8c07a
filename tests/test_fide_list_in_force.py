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
from projections.proofs import BundleError

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


def test_explain_names_the_list_row_each_tournament_is_rated_from(view):
    # Issue 30: "the page shows ... the list row the tournament is rated from": LATE's Ro is
    # the January list's row, INSIDE's the February list's (10.65), DEC's the profile's rating.
    for section, source in (("LATE", "list 2023-01"), ("INSIDE", "list 2023-02")):
        assert explain(view, X, "FIDE", section=section)["fide"]["Ro_from"] == source
    said = explain(view, X, "FIDE", section="DEC")["fide"]["Ro_from"]
    assert said == "the FIDE rating his profile publishes"


@pytest.fixture
def proved(tmp_path):
    """The ledger of `STEPS` made by the command line (which commits each list's ratings):
    (X's bundle for the March list, the checkpoint it is proved against, the command line)."""
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
    return bundle, Checkpoint.parse(cli("checkpoint")), cli


def test_a_proof_of_that_period_recomputes_the_item_from_the_list_it_started_under(proved):
    # Issue 30, cause 2: LATE (28 January – 3 February, February's period) is rated from the
    # January list's ratings; the bundle carries that list's rows of X and his opponents,
    # and the offline check rates LATE and INSIDE again from them and the February list's.
    bundle, held, _ = proved
    [january] = bundle["previous"]["older"]
    assert set(january["rows"]) == {X, Y, Z}
    said = verify_bundle(bundle, held)
    assert said["recomputed"] is True and said["items"] == 2
    assert "why_not_recomputed" not in said


def test_a_bundle_with_that_items_ro_altered_is_refused_in_one_line(proved, tmp_path):
    # The attack: X's January rating (LATE's Ro) raised by 100 in the bundle. Its row is no
    # longer the one the January list committed; `verify-rating` refuses in one line (exit 1).
    bundle, held, cli = proved
    row = bundle["previous"]["older"][0]["rows"][X]
    leaf = json.loads(row["leaf"])
    leaf["state"][0] += 100
    row["leaf"] = json.dumps(leaf, sort_keys=True, separators=(",", ":"))
    with pytest.raises(
        BundleError, match="^a row is not under the committed root of list '2023-01'$"
    ):
        verify_bundle(bundle, held)
    (tmp_path / "b.json").write_text(json.dumps(bundle))
    (tmp_path / "c.txt").write_text(held.text())
    (tmp_path / "trusted.txt").write_text(cli("trusted-keys"))
    args = ["verify-rating", str(tmp_path / "b.json"), "--checkpoint", str(tmp_path / "c.txt")]
    result = CliRunner().invoke(app, [*args, "--trusted", str(tmp_path / "trusted.txt")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: a row is not under the committed root of list '2023-01'"
    ]


def test_a_bundle_that_drops_the_list_the_item_started_under_is_not_recomputed(proved):
    # Without the January list the check cannot rate LATE from its Ro: it proves the row and
    # says why it does not recompute it, as before issue 30's bundles carried older lists.
    bundle, held, _ = proved
    del bundle["previous"]["older"]
    said = verify_bundle(bundle, held)
    assert said["recomputed"] is False
    assert "section:LATE started on 2023-01-28" in said["why_not_recomputed"]


def test_a_bundle_that_passes_another_list_as_the_older_one_is_refused(proved):
    # The older lists must be the consecutive ones before the previous list (the February
    # list given again as January's is not).
    bundle, held, _ = proved
    february = {k: bundle["previous"][k] for k in ("published", "committed", "rows")}
    bundle["previous"]["older"] = [february]  # proved rows, of the wrong list
    with pytest.raises(BundleError, match="^the older lists the bundle gives are not those before"):
        verify_bundle(bundle, held)


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
