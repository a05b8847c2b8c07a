"""Each read model is bound to its ledger: its own file per store, refused against another
ledger or ahead of it, and an edited one caught by `verify --view`."""

import sqlite3
import uuid
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.cli.common import ViewPath
from ledger.store import view_path

A, B, C = "20000001", "20000002", "20000003"


def make_ledger(store: str, players=(A, B, C), section="JAN") -> None:
    ledger = Ledger(RatingsLedger(store))
    ledger.register(*players, adult=True)
    ledger.submit(round_robin(section, list(players), "2024-01-06"))
    ledger.app.close()


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    make_ledger(url)
    return url


def test_a_postgresql_store_gets_a_view_file_named_after_host_port_database_and_schema():
    url = "postgresql://ed:secret@db.example:6543/fed?schema=club/a"
    assert view_path(url, None) == Path("ratings-ledger.db.example-6543-fed-club_a.view.db")
    assert view_path("postgresql://ed@h/fed", None, "fide") == Path(
        "ratings-ledger.h-5432-fed-public.fide.view.db"
    )
    assert view_path("sqlite:///x/ledger.db", None) == Path("x/ledger.view.db")


def test_the_view_option_help_names_the_real_default_file():
    text = ViewPath.__metadata__[0].help
    assert "ratings-ledger.HOST-PORT-DB-SCHEMA.view.db" in text
    assert "LEDGER.view.db" in text


@pytest.mark.postgres
def test_two_postgresql_schemas_read_from_one_folder_keep_apart(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import psycopg

    schemas = [f"test_{uuid.uuid4().hex[:16]}" for _ in range(2)]
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        monkeypatch.chdir(tmp_path)
        first, second = (f"{postgres_url}?schema={s}" for s in schemas)
        make_ledger(first, (A, B), "ONE")
        make_ledger(second, (C, "20000004"), "TWO")
        assert run("player", A, "--store", first).exit_code == 0
        shown = run("player", A, "--store", second)
        assert shown.exit_code == 1, shown.output
        assert shown.stderr == f"error: player {A!r} is not in the ledger\n"
        assert run("player", C, "--store", second).exit_code == 0
        assert len(list(tmp_path.glob("ratings-ledger.*.view.db"))) == 2
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def test_a_read_model_opened_against_another_ledger_is_refused_with_one_line(
    store: str, tmp_path: Path
):
    other = f"sqlite:///{tmp_path / 'other.db'}"
    make_ledger(other)
    assert run("player", A, "--store", store).exit_code == 0
    view = str(tmp_path / "ledger.view.db")
    result = run("player", A, "--store", other, "--view", view)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the read model ")
    assert "another ledger" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_read_model_records_its_ledger_and_the_chain_link_it_was_built_to(
    store: str, tmp_path: Path
):
    assert run("catch-up", "--store", store).exit_code == 0
    meta = dict(sqlite3.connect(tmp_path / "ledger.view.db").execute("select * from meta"))
    head = run("verify", "--digest", "--store", store).stdout.strip()
    assert meta["built_to"] == head
    assert meta["ledger_store"] == store
    assert len(meta["ledger_id"]) == 32


def test_a_checkpoint_ahead_of_the_ledger_refuses_catch_up_with_one_line(
    store: str, tmp_path: Path
):
    assert run("catch-up", "--store", store).exit_code == 0
    with sqlite3.connect(tmp_path / "ledger.view.db") as db:
        db.execute("update meta set value = '9999' where key = 'last_position'")
    result = run("catch-up", "--store", store)
    assert result.exit_code == 1
    assert "up to position 9999" in result.stderr
    assert result.stderr.count("\n") == 1


def test_verify_view_matches_an_untouched_read_model(store: str):
    assert run("catch-up", "--store", store).exit_code == 0
    make_ledger_more = Ledger(RatingsLedger(store))
    make_ledger_more.submit(round_robin("FEB", [A, B], "2024-02-03"))
    make_ledger_more.app.close()
    assert run("player", A, "--store", store).exit_code == 0  # incremental
    result = run("verify", "--view", "--store", store)
    assert result.exit_code == 0, result.output
    assert "matches its rebuild" in result.stdout


@pytest.mark.parametrize(
    "edit",
    [
        "update ratings set rating = rating + 100 where player = '20000001'",
        "update meta set value = value - 1 where key = 'last_position'",
    ],
)
def test_verify_view_finds_an_edited_read_model(store: str, tmp_path: Path, edit: str):
    assert run("catch-up", "--store", store).exit_code == 0
    with sqlite3.connect(tmp_path / "ledger.view.db") as db:
        db.execute(edit)
    result = run("verify", "--view", "--store", store)
    assert result.exit_code == 1
    assert "differs from its rebuild" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_ledger_restored_from_a_backup_and_written_again_is_refused_not_read_stale(
    store: str, tmp_path: Path
):
    # Issue: "Back up at position 278, submit, restore the backup, submit again: the write
    # reports '0 ratings changed', `player` shows 1591 (a fresh rebuild: 1552)". The write
    # report's catch-up now checks the binding and records it, so the restored ledger's model
    # is refused with one line and a rebuild hint; the write itself still reports success.
    import json
    import shutil

    db = Path(store[len("sqlite:///") :])
    view = tmp_path / "v.db"
    assert run("catch-up", "--store", store, "--view", str(view)).exit_code == 0
    shutil.copy(db, tmp_path / "backup.db")
    section = tmp_path / "s.json"
    section.write_text(json.dumps(round_robin("FEB", [A, B, C], "2024-02-03")))
    first = run("submit", str(section), "--actor", "td", "--store", store, "--view", str(view))
    assert first.exit_code == 0, first.output
    shutil.copy(tmp_path / "backup.db", db)
    section.write_text(
        json.dumps(round_robin("FEB", [A, B, C], "2024-02-03", results={(A, B): "0-1"}))
    )
    again = run("submit", str(section), "--actor", "td", "--store", store, "--view", str(view))
    assert again.exit_code == 0, again.output
    assert "warning: recorded; the ratings report could not be made" in again.output
    assert "rebuild" in again.output
    read = run("player", A, "--store", store, "--view", str(view))
    assert read.exit_code != 0
    assert len(read.output.strip().splitlines()) == 1 and "rebuild" in read.output
