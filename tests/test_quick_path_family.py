"""The fast read path on a ledger of any family (issue 30, after "A ledger's federation is a
fact in it"): a plain `player` on a FIDE ledger is answered by ledger/entrypoints/quick.py from
a read model whose meta records, read verified by its catch-up, that FIDE is the ledger's
family at the chain link it was built to; anything less is left to the full command."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints import quick
from ledger.entrypoints.cli import app
from ledger.roles import Role

X, Y, Z = "50000021", "50000022", "50000023"
FIDE = {X: 1600, Y: 1800, Z: 2000}


def ok(store: str, *args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--store", store])
    assert result.exit_code == 0, result.output
    return result.stdout


def fast(store: str, *args: str) -> dict[str, object] | None:
    """What the fast path's answer function finds (None: it declines), printing nothing."""
    asked = quick._parsed(["player", X, "--store", store, *args])
    assert asked is not None
    return quick._player(*asked[:4])


def _fide_ledger(tmp_path: Path) -> str:
    """A ledger set up with `init --family fide`, `td` its tournament director, three
    FIDE-rated players and a round robin, its FIDE read model caught up."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ok(store, "init", "--actor", "director", "--family", "fide")
    with closing(RatingsLedger(store)) as writer:
        writer.roles.grant("td", Role.TOURNAMENT_DIRECTOR, actor="director")
        led = Ledger(writer)
        for pid, rating in FIDE.items():
            led.register(pid, adult=True, fide={"rating": rating, "date": "2022-12-01"})
        led.submit(round_robin("DEC", [X, Y, Z], "2022-12-10", "2022-12-11"))
    ok(store, "catch-up")
    return store


@pytest.fixture
def fide_store(tmp_path: Path) -> str:
    return _fide_ledger(tmp_path)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_fide_ledgers_plain_player_is_answered_by_the_fast_path_as_the_full_command(
    fide_store, capsys, json_flag
):
    # Brief: "a FIDE ledger's plain `player` is answered by the fast path ... and equals the
    # full path's output".
    expected = ok(fide_store, "player", X, *json_flag)
    capsys.readouterr()
    found = fast(fide_store)
    assert found is not None and found["family"] == "fide"
    assert quick.answer(["player", X, "--store", fide_store, *json_flag]) is True
    assert capsys.readouterr().out == expected


def test_a_family_change_appended_after_the_model_was_built_makes_the_fast_path_decline(
    fide_store,
):
    # Brief: "a FederationChanged appended after the model was built makes the fast path
    # decline"; the full command catches the ledger's new family's model up, and the fast path
    # answers from it again.
    ok(fide_store, "set-family", "uschess", "--actor", "director")
    assert fast(fide_store) is None
    assert json.loads(ok(fide_store, "player", X, "--json"))["family"] == "uschess"
    found = fast(fide_store)
    assert found is not None and found["family"] == "uschess"


def test_a_model_whose_meta_names_another_family_as_the_ledgers_is_not_trusted(fide_store):
    # "the fast path answers from the read model whose meta says it is the ledger's family at
    # exactly the ledger's head": a FIDE model at the head that records another family (or
    # none, a model caught up before the record existed) declines until a catch-up records it.
    model = Path(fide_store[len("sqlite:///") :]).with_name("ledger.fide.view.db")
    for value in ("uschess", None):
        with closing(sqlite3.connect(model)) as db, db:
            db.execute("delete from meta where key = 'ledger_family'")
            if value is not None:
                db.execute("insert into meta values ('ledger_family', ?)", [value])
        assert fast(fide_store) is None
    ok(fide_store, "player", X)
    assert fast(fide_store) is not None


def test_a_family_change_signed_behind_the_ledgers_back_is_left_to_the_full_command(
    fide_store,
):
    # The log's unverified word picks the model, never the answer: a FederationChanged to ICU
    # a TD signed and appended outside the ledger leaves `player` to the full command, which
    # still answers in FIDE (issue 30: "read verified, like authority").
    from tamper_helpers import insert

    from ledger.domain import ROLES_KEY

    with closing(RatingsLedger(fide_store)) as writer:
        version = writer.records.roles().version
        key = writer.keyring.private_key("td")
    state = {"timestamp": "2026-01-01T00:00:00+00:00", "family": "icu", "actor": "td"}
    topic = "ratings-ledger:FederationChanged"
    insert(fide_store, ROLES_KEY, version + 1, topic, json.dumps(state).encode(), key, True)
    assert json.loads(ok(fide_store, "player", X, "--json"))["family"] == "fide"
    assert fast(fide_store) is None
    assert fast(fide_store, "--rules-family", "icu") is None
