"""Issue 20: the player card's club ("a player card (name, title, federation, FIDE id, birth
year, club) on the page and in its JSON"; "list pages filterable by ... club"): an optional
profile field, shown on the player page, in its JSON and in `player`, and a list filter."""

from __future__ import annotations

import json

import pytest
from projection_helpers import Ledger, round_robin
from test_web import get
from typer.testing import CliRunner

from ledger import events
from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.log import read_entries

ANN, BEA, CY, DEE = "30000001", "30000002", "30000003", "30000004"
CLUBS = {ANN: "Dublin CC", BEA: "Dublin CC", CY: "Cork CC", DEE: None}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Four players, three with a club; a round robin; the uschess list 2024-06."""
    store = f"sqlite:///{tmp_path_factory.mktemp('club') / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    try:
        for member, club in CLUBS.items():
            ledger.register(member, name=f"Player {member}", **({"club": club} if club else {}))
        ledger.submit(round_robin("JUN", list(CLUBS), "2024-05-04"))
    finally:
        ledger.app.close()
    published = CliRunner().invoke(
        app,
        ["publish-list", "--family", "uschess", "--name", "2024-06", "--as-of", "2024-06-01"]
        + ["--actor", "director", "--store", store],
    )
    assert published.exit_code == 0, published.output
    return store


def test_a_registered_club_is_on_the_player_page_and_in_its_json(store):
    site = Site(store)
    assert get(site, f"/api/players/{ANN}").json()["card"]["club"] == "Dublin CC"
    assert "<dt>Club</dt><dd>Dublin CC</dd>" in get(site, f"/players/{ANN}").text
    assert get(site, f"/api/players/{DEE}").json()["card"]["club"] is None
    assert "<dt>Club</dt>" not in get(site, f"/players/{DEE}").text


def test_the_player_command_shows_the_card_with_its_club(store):
    out = CliRunner().invoke(app, ["player", CY, "--json", "--store", store])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["card"]["club"] == "Cork CC"
    table = CliRunner().invoke(app, ["player", CY, "--store", store]).stdout
    assert table.splitlines()[0] == f"{CY}  Player {CY}  (Cork CC)"


@pytest.mark.parametrize(
    ("club", "ids"),
    [("Dublin CC", {ANN, BEA}), ("Cork CC", {CY}), ("Galway CC", set())],
)
def test_a_list_page_filters_by_club(store, club, ids):
    site = Site(store)
    out = get(site, "/api/lists/2024-06", f"system=OTBR&club={club.replace(' ', '+')}").json()
    assert out["filters"] == {"club": club}
    assert {r["id"] for r in out["rows"]} == ids
    assert out["total"] == 4
    page = get(site, "/lists/2024-06").text
    assert "<option>Cork CC</option>" in page and "<option>Dublin CC</option>" in page


def test_a_changed_club_is_a_profile_update_of_that_field_alone(tmp_path):
    ledger = Ledger(RatingsLedger(f"sqlite:///{tmp_path / 'ledger.db'}"))
    try:
        ledger.register(ANN, name="Ann")
        ledger.register(ANN, club="Dublin CC")
        last = list(read_entries(ledger.app))[-1]
    finally:
        ledger.app.close()
    assert last.type == "PlayerProfileUpdated"
    assert (last.payload["name"], last.payload["club"]) == ("Ann", "Dublin CC")


def test_an_entry_recorded_before_clubs_reads_as_no_club():
    # Old entries keep their bytes: a PlayerRegistered payload without the field decodes with
    # the default, so the same stored bytes (and their signatures) still verify and project.
    old = {"member_id": ANN, "name": "Ann", "birth_date": None, "adult": None, "fide": None}
    assert events.decode("PlayerRegistered", state=json.dumps(old).encode()).club is None


def test_a_profile_without_a_club_is_stored_in_the_read_model_as_before_clubs(store):
    # "old stored entries keep their bytes": and a ledger without clubs keeps its read model's
    # bytes (and digest): an absent club is left out of the players table's profile JSON.
    import sqlite3

    from ledger.store import view_path

    assert CliRunner().invoke(app, ["catch-up", "--store", store]).exit_code == 0
    db = sqlite3.connect(view_path(store, None))
    profiles = {pid: json.loads(p) for pid, p in db.execute("select id, profile from players")}
    db.close()
    assert "club" not in profiles[DEE]
    assert profiles[ANN]["club"] == "Dublin CC"
