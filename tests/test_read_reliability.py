"""Reads never fail: on a missing store (one line, nothing created), beside concurrent writers
and readers, and over a stored row that is not an entry."""

import sqlite3
import subprocess
import sys
import threading
import uuid
from contextlib import closing
from pathlib import Path

import pytest
from projection_helpers import Ledger, round_robin
from typer.testing import CliRunner

from ledger.application import RatingsLedger
from ledger.entrypoints.cli import app
from ledger.entrypoints.web.app import Site
from ledger.log import UNREADABLE, read_entries
from projections import queries
from projections.projector import View

PLAYERS = [f"{20000001 + i}" for i in range(6)]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize(
    "command",
    [
        ["player", PLAYERS[0]],
        ["history", PLAYERS[0], "--system", "OTBR"],
        ["rating", PLAYERS[0], "--system", "OTBR", "--as-of", "2024-01-01"],
        ["catch-up"],
        ["problems"],
        ["log"],
    ],
)
def test_a_read_on_a_missing_store_fails_with_one_line_and_creates_nothing(
    tmp_path: Path, command: list[str]
):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    result = run(*command, "--store", store)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: no ledger at {store}: check --store, or set one up with "
        "`ratings-ledger init --actor NAME`\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.postgres
def test_a_read_on_an_empty_postgresql_schema_creates_no_tables(postgres_url: str, tmp_path: Path):
    import psycopg

    schema = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        result = run("player", PLAYERS[0], "--store", f"{postgres_url}?schema={schema}")
        assert result.exit_code == 1
        assert result.stderr.startswith("error: no ledger at ")
        with psycopg.connect(postgres_url) as conn:
            tables = "select count(*) from pg_tables where schemaname = %s"
            assert conn.execute(tables, [schema]).fetchone() == (0,)
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def section(n: int) -> dict:
    group = [PLAYERS[(n + k) % len(PLAYERS)] for k in range(3)]
    return round_robin(f"S{n}", group, f"2024-01-{1 + n:02d}")


def test_sixteen_concurrent_player_reads_during_writes_all_succeed(tmp_path: Path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(*PLAYERS, adult=True)
    ledger.submit(section(0))
    writer = threading.Thread(target=lambda: [ledger.submit(section(n)) for n in range(1, 9)])
    writer.start()
    readers = [
        subprocess.Popen(
            [sys.executable, "-m", "ledger", "player", PLAYERS[i % 6], "--store", store],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(16)
    ]
    outcomes = [(r.wait(), r.stderr.read()) for r in readers]
    writer.join()
    ledger.app.close()
    assert [(code, err) for code, err in outcomes if code != 0] == []


def test_threads_catching_up_one_read_model_apply_each_entry_once(tmp_path: Path):
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(*PLAYERS, adult=True)
    ledger.submit(*(section(n) for n in range(6)))
    path = tmp_path / "ledger.view.db"
    errors: list[BaseException] = []
    found: list = []

    def read() -> None:
        try:
            with closing(View(path)) as v:
                v.catch_up(read_entries(ledger.app, v.last_position))
                found.append(queries.player(v, PLAYERS[0]))
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ledger.app.close()
    assert errors == []
    assert len(found) == 8 and all(f == found[0] for f in found)


@pytest.fixture
def broken_store(tmp_path: Path) -> tuple[str, int]:
    """A ledger whose last stored row's state was replaced by bytes that are not JSON."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(*PLAYERS[:3], adult=True)
    ledger.submit(section(0))
    position = ledger.app.recorder.max_notification_id()
    ledger.app.close()
    with sqlite3.connect(tmp_path / "ledger.db") as db:
        db.execute("update stored_events set state = ? where rowid = ?", [b"\xff{not", position])
    return store, position


def test_an_unreadable_stored_row_is_read_as_unreadable_at_its_position(broken_store):
    # Issue 10: "A stored row with non-JSON state gives a JSONDecodeError traceback"; reading
    # the log never fails on one row: it is there, at its position, marked unreadable.
    store, position = broken_store
    with closing(RatingsLedger(store)) as ledger:
        found = [e for e in read_entries(ledger) if e.position == position]
    assert len(found) == 1 and UNREADABLE in found[0].payload


@pytest.mark.parametrize("command", [["log"], ["log", "--json"]])
def test_the_log_shows_an_unreadable_stored_row_and_goes_on(broken_store, command: list[str]):
    store, position = broken_store
    result = run(*command, "--store", store)
    assert result.exit_code == 0, result.output
    assert str(position) in result.stdout.splitlines()[-1] or UNREADABLE in result.stdout
    assert result.stderr == ""


def test_a_read_stops_at_an_unreadable_stored_row_with_one_line_naming_its_position(
    broken_store,
):
    # Its signature can no longer be checked (docs/decisions.md, "Signed writes"): the catch-up
    # rates nothing of it and says where, in one line; issue 28: the read answers from the
    # ledger as verified before it, and the line is a warning.
    store, position = broken_store
    result = run("player", PLAYERS[0], "--store", store)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"warning: entry {position} fails verification")
    assert result.stderr.count("\n") == 1


def test_the_web_site_on_a_missing_store_answers_503_and_creates_nothing(tmp_path: Path):
    site = Site(f"sqlite:///{tmp_path / 'ledger.db'}")
    seen: list[str] = []
    body = b"".join(site({"PATH_INFO": "/", "REQUEST_METHOD": "GET"}, lambda s, h: seen.append(s)))
    assert seen == ["503 Service Unavailable"]
    assert b"no ledger at" in body
    assert list(tmp_path.iterdir()) == []


def test_a_connection_opened_before_a_rebuild_reads_the_model_it_opened_whole(tmp_path: Path):
    """SQLite opens a database's `-wal` and `-shm` by name at its first read, after the file
    itself: a reader that connected just before a rebuild moved a new model in must read the
    old model whole, never its file with the new model's log (projections/modelfile.py)."""
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    ledger = Ledger(RatingsLedger(store))
    ledger.register(*PLAYERS, adult=True)
    ledger.submit(section(0))
    path = tmp_path / "ledger.view.db"
    with closing(View(path)) as first:
        first.catch_up(read_entries(ledger.app, first.last_position))
        before = first.last_position
    stale = sqlite3.connect(path)  # the file is open; its log and shared memory not yet
    with closing(View(path)) as rebuilt:
        rebuilt.rebuild(read_entries(ledger.app, 0))
        ledger.submit(section(1))  # committed into the new model's write-ahead log
        rebuilt.catch_up(read_entries(ledger.app, rebuilt.last_position))
        after = rebuilt.last_position
        query = "select value from meta where key = 'last_position'"
        assert int(stale.execute(query).fetchone()[0]) == before
        stale.close()
        with closing(View(path)) as fresh:
            assert fresh.last_position == after > before
    ledger.app.close()
