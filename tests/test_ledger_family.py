"""Issue 30, cause 5: "The ledger does not know it is a FIDE ledger. Every command and the site
default to US Chess"; "What to build": "A ledger's federation is a fact in it. `init --family
fide|uschess|icu` (and a director's write to change it) sets the family every command, export
and page uses by default"."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner, Result

from ledger.application import RatingsLedger
from ledger.entrypoints import quick
from ledger.entrypoints.cli import app
from ledger.federation import ledger_family
from ledger.reading import open_ledger
from ledger.roles import Role

X, Y, Z = "50000011", "50000012", "50000013"
FIDE = {X: 1600, Y: 1800, Z: 2000}


def invoke(store: str, *args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--store", store])


def ok(store: str, *args: str) -> str:
    result = invoke(store, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def entries(store: str) -> int:
    return len(json.loads(ok(store, "log", "--json")))


@pytest.fixture(scope="module")
def fide_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A ledger set up with `init --family fide`: three players with FIDE ratings, a round
    robin before the list `2023-01` (published without --family) and one after it."""
    store = f"sqlite:///{tmp_path_factory.mktemp('fide') / 'ledger.db'}"
    ok(store, "init", "--actor", "director", "--family", "fide")
    with closing(RatingsLedger(store)) as writer:
        led = Ledger(writer)
        for pid, rating in FIDE.items():
            fide = {"rating": rating, "date": "2022-12-01", "games": 100, "federation": "USA"}
            led.register(pid, adult=True, fide=fide)
        led.submit(round_robin("DEC", [X, Y, Z], "2022-12-10", "2022-12-11"))
    publish = ("publish-list", "--name", "2023-01", "--as-of", "2023-01-01")
    ok(store, *publish, "--actor", "director")
    with closing(RatingsLedger(store)) as writer:  # its roles granted already: none recorded
        Ledger(writer).submit(round_robin("JAN", [X, Y, Z], "2023-01-10", "2023-01-11"))
    return store


@pytest.mark.parametrize(
    "command",
    [
        ("player", X, "--json"),
        ("list", "--system", "FIDE", "--as-of", "2023-02-01", "--json"),
        ("history", X, "--system", "FIDE", "--json"),
        ("explain", X, "--system", "FIDE", "--section", "JAN", "--json"),
        ("prove", X, "--list", "2023-01"),
    ],
    ids=lambda c: c[0],
)
def test_a_fide_ledgers_commands_rate_under_fide_without_the_flag(fide_store, command):
    # "`init --family fide` ... sets the family every command ... uses by default": each read
    # says without --rules-family what it says with `--rules-family fide`.
    assert ok(fide_store, *command) == ok(fide_store, *command, "--rules-family", "fide")


def test_a_fide_ledgers_player_is_rated_in_fide_and_no_us_chess_model_is_made(fide_store):
    # Cause 5: "grandmasters show as 'unrated → 2643P7'": the FIDE rating the player was
    # registered with (1600) is his FIDE row's start, and no US Chess read model is built.
    out = json.loads(ok(fide_store, "player", X, "--json"))
    assert out["family"] == "fide" and set(out["ratings"]) == {"FIDE"}
    [first] = [
        r
        for r in json.loads(ok(fide_store, "history", X, "--system", "FIDE", "--json"))
        if r["item_key"] == "section:DEC"
    ]
    assert first["pre_rating"] == FIDE[X]
    ledger_file = Path(fide_store.removeprefix("sqlite:///"))
    assert not ledger_file.with_name("ledger.view.db").exists()
    assert ledger_file.with_name("ledger.fide.view.db").exists()


def test_the_published_list_without_family_is_the_ledgers_family(fide_store):
    # "`publish-list --family` ... defaults to it": the list published above is FIDE's.
    log = json.loads(ok(fide_store, "log", "--json"))
    [published] = [e for e in log if e["type"] == "ListPublished"]
    assert published["payload"]["family"] == "fide"


def test_the_log_names_the_family_it_was_set_up_with(fide_store):
    # "`log` ... name[s] the family": the set-up entry carries it.
    [first] = [line for line in ok(fide_store, "log").splitlines() if "LedgerInitialized" in line]
    assert first.split()[-2:] == ["director", "family=fide"]


def _director_ledger(tmp_path: Path) -> str:
    """A FIDE ledger whose director is `director`, `td` a tournament director and `ann` a
    director no longer."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ok(store, "init", "--actor", "director", "--family", "fide")
    with closing(RatingsLedger(store)) as writer:
        writer.roles.grant("td", Role.TOURNAMENT_DIRECTOR, actor="director")
        writer.roles.grant("ann", Role.DIRECTOR, actor="director")
        writer.roles.revoke("ann", Role.DIRECTOR, actor="director")
    return store


def test_set_family_by_a_director_changes_the_default(tmp_path):
    # "a director's write to change it ... sets the family every command ... uses by default";
    # "nothing is re-rated by the change": the FIDE model keeps every history row.
    store = _director_ledger(tmp_path)
    with closing(RatingsLedger(store)) as writer:
        led = Ledger(writer)
        for pid, rating in FIDE.items():
            led.register(pid, adult=True, fide={"rating": rating, "date": "2022-12-01"})
        led.submit(round_robin("DEC", [X, Y, Z], "2022-12-10", "2022-12-11"))
    assert json.loads(ok(store, "player", X, "--json"))["family"] == "fide"
    fide_history = ("history", X, "--system", "FIDE", "--json", "--rules-family", "fide")
    before = ok(store, *fide_history)
    out = ok(store, "set-family", "uschess", "--actor", "director", "--reason", "the office")
    assert "recorded FederationChanged at position" in out and "family=uschess" in out
    assert ledger_family(store) == "uschess"
    player = json.loads(ok(store, "player", X, "--json"))
    assert player["family"] == "uschess" and "FIDE" not in player["ratings"]
    assert ok(store, *fide_history) == before
    # its family already: nothing recorded
    count = entries(store)
    assert "nothing new to record" in ok(store, "set-family", "uschess", "--actor", "director")
    assert entries(store) == count


@pytest.mark.parametrize("actor", ["td", "ann"], ids=["a-td", "a-revoked-director"])
def test_set_family_by_anyone_but_a_director_is_refused_and_appends_nothing(tmp_path, actor):
    # Brief: "a TD or revoked director is refused with exit 4 and nothing appended".
    store = _director_ledger(tmp_path)
    before = entries(store)
    result = invoke(store, "set-family", "uschess", "--actor", actor)
    assert result.exit_code == 4
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "may not set-family" in result.stderr
    assert entries(store) == before
    assert ledger_family(store) == "fide"


@pytest.mark.parametrize("command", [("init", "--family", "xyz"), ("set-family", "xyz")])
def test_an_unknown_family_is_one_line_naming_the_known_ones(tmp_path, command):
    # Brief: "An unknown family is one line, exit 2, naming the known ones."
    new = f"sqlite:///{tmp_path / 'new.db'}"
    store = _director_ledger(tmp_path) if command[0] == "set-family" else new
    result = invoke(store, *command, "--actor", "director")
    assert result.exit_code == 2
    assert result.stderr == "error: family: 'xyz' is not one of uschess, fide, icu\n"


def test_init_dry_run_previews_the_family_and_makes_nothing(tmp_path):
    # Brief: "`init --dry-run` previews it."
    store = tmp_path / "new.db"
    out = ok(f"sqlite:///{store}", "init", "--actor", "ed", "--family", "icu", "--dry-run")
    assert out.splitlines()[0] == "would record LedgerInitialized at position 1: family=icu"
    assert not store.exists()


def test_an_old_ledger_without_the_field_is_us_chess(tmp_path, monkeypatch):
    # "None on ledgers made before = uschess": a set-up entry stored without `family` (as every
    # ledger before issue 30) rates under US Chess, in the fast path too.
    from ledger.domain import Roles
    from ledger.writes import roles as role_writes

    def before_issue_30(**fields):
        fields.pop("family")
        record = Roles(**fields, family=None)
        del record.pending_events[0].__dict__["family"]  # stored as an old ledger's
        return record

    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    monkeypatch.setattr(role_writes, "Roles", before_issue_30)
    with closing(RatingsLedger(store)) as writer:
        writer.roles.initialize(actor="director")
    monkeypatch.undo()
    [first] = [e for e in json.loads(ok(store, "log", "--json")) if e["position"] == 1]
    assert "family" not in first["payload"]
    assert ledger_family(store) == "uschess"
    with closing(RatingsLedger(store)) as writer:
        Ledger(writer).register(X, adult=True)
    assert json.loads(ok(store, "player", X, "--json"))["family"] == "uschess"
    assert quick.answer(["player", X, "--store", store]) is True


def test_the_fact_survives_verify_and_anchor(tmp_path):
    # Brief: "the fact survives verify/anchor (the chain and signatures check)".
    store = _director_ledger(tmp_path)
    ok(store, "set-family", "icu", "--actor", "director")
    anchor = tmp_path / "anchor.json"
    anchor.write_text(ok(store, "anchor", "--actor", "director"))
    assert "every signature checks" in ok(store, "verify", "--anchor", str(anchor))
    with closing(open_ledger(store)) as reader:
        assert ledger_family(reader) == "icu"


def test_a_change_signed_by_a_td_behind_the_ledgers_back_changes_no_family(tmp_path):
    # "verified the way authority is read": a FederationChanged a TD signed and appended
    # outside the ledger (chain and tree resealed) is refused by verify and ignored by the
    # family read, as a forged grant is.
    from tamper_helpers import insert

    from ledger.domain import ROLES_KEY
    from ledger.evidence import verify

    store = _director_ledger(tmp_path)
    with closing(RatingsLedger(store)) as writer:
        version = writer.records.roles().version
        key = writer.keyring.private_key("td")
    state = {"timestamp": "2026-01-01T00:00:00+00:00", "family": "icu", "actor": "td"}
    topic = "ratings-ledger:FederationChanged"
    forged = insert(store, ROLES_KEY, version + 1, topic, json.dumps(state).encode(), key, True)
    with closing(open_ledger(store)) as reader:
        found = verify(reader)
        assert found.broken is not None and found.broken.position == forged
        assert "set-family takes director" in found.broken.reason
        assert ledger_family(reader) == "fide"
