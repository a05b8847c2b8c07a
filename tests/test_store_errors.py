"""Errors for a store that is down or missing (issue 31: "A stopped PostgreSQL prints a literal
`\\n\\t`; a wrong database name waits 5 s and says 'couldn't get a connection'; `serve` on a
busy port does not say which port"): one line naming the store, its host, port or database,
without waiting longer than a connection needs."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from typer.testing import CliRunner

from ledger import store as stores
from ledger.entrypoints.cli import app
from ledger.errors import StoreError

runner = CliRunner()
CLOSED = "postgresql://postgres@127.0.0.1:1/test"  # nothing listens on port 1


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stderr


def one_line(stderr: str) -> str:
    """The error line, once checked to be the only one and free of escaped control characters."""
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith("error: ")
    assert "\\n" not in stderr and "\\t" not in stderr  # issue 31: "a literal `\n\t`"
    return stderr


@pytest.mark.parametrize("command", [("log",), ("verify",), ("player", "12345678")])
def test_a_stopped_postgresql_is_one_line_naming_its_host_and_port(command: tuple[str]) -> None:
    # Issue 31: "A stopped PostgreSQL prints a literal `\n\t`".
    code, stderr = run(*command, "--store", CLOSED)
    line = one_line(stderr)
    assert code == 1
    assert f"cannot open store {CLOSED}: " in line
    assert '"127.0.0.1", port 1 failed: Connection refused' in line
    assert "couldn't get a connection" not in line


def test_creating_a_schema_on_a_stopped_postgresql_is_one_line() -> None:
    # Issue 31: "A stopped PostgreSQL prints a literal `\n\t`" (init's schema, the message that
    # printed it).
    code, stderr = run("init", "--actor", "director", "--store", CLOSED + "?schema=nowhere")
    line = one_line(stderr)
    assert code == 1
    assert "cannot create schema 'nowhere'" in line and "port 1 failed" in line


@pytest.mark.postgres
def test_a_wrong_database_name_is_one_line_naming_it_at_once(postgres_url: str) -> None:
    # Issue 31: "a wrong database name waits 5 s and says 'couldn't get a connection'".
    missing = f"no_such_ledger_{uuid.uuid4().hex[:8]}"
    url = urlsplit(postgres_url)._replace(path="/" + missing, query="").geturl()
    code, stderr = run("log", "--store", url)
    line = one_line(stderr)
    assert code == 1
    assert f'database "{missing}" does not exist' in line
    assert f'"{urlsplit(url).hostname}", port {urlsplit(url).port or 5432} failed' in line
    started = time.monotonic()
    with pytest.raises(StoreError, match="does not exist"):
        stores.reach(url, again=True)
    assert time.monotonic() - started < 3  # a generous bound: the server says so at once


def test_opening_a_postgresql_store_waits_at_most_two_seconds_for_its_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 31: errors for a store that is down "without waiting longer than a connection
    # needs": the one connection that says why is bounded by its connect timeout, under the
    # pool's 5 s wait.
    asked: dict[str, object] = {}

    def connect(**kwargs: object) -> None:
        asked.update(kwargs)
        raise psycopg.OperationalError("connection failed: timeout expired")

    monkeypatch.setattr(psycopg, "connect", connect)
    with pytest.raises(StoreError, match=r"^cannot open store .*: timeout expired$"):
        stores.reach("postgresql://ann@db.example:6543/ratings", again=True)
    assert asked["connect_timeout"] == stores.POSTGRES_REACH_TIMEOUT_SECONDS == 2
    assert (asked["host"], asked["port"], asked["dbname"]) == ("db.example", "6543", "ratings")
    assert stores.POSTGRES_REACH_TIMEOUT_SECONDS < stores.POSTGRES_CONNECT_TIMEOUT_SECONDS


def test_serve_on_a_busy_port_names_the_port(tmp_path: Path) -> None:
    # Issue 31: "`serve` on a busy port does not say which port".
    store = f"sqlite:///{tmp_path / 'ledger.db'}"
    assert run("init", "--actor", "director", "--store", store)[0] == 0
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, stderr = run("serve", "--port", str(port), "--store", store)
    assert code == 1
    assert one_line(stderr) == (
        f"error: cannot listen on 127.0.0.1 port {port}: Address already in use\n"
    )
