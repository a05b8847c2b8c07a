"""Issue 20: "a PostgreSQL store without the `postgres` extra installed prints a 60-line
traceback instead of one line saying what to install": one line naming the extra, exit 1,
for reads and writes alike (the missing module simulated: `import psycopg` fails)."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from ledger.entrypoints.cli import app

STORE = "postgresql://someone@127.0.0.1:5432/ledger"


@pytest.mark.parametrize(
    "args",
    [
        ("log", "--store", STORE),
        ("player", "12345678", "--store", STORE),
        ("verify", "--store", STORE),
        ("init", "--actor", "ed", "--store", STORE),
        ("init", "--actor", "ed", "--store", STORE + "?schema=federation"),
    ],
    ids=lambda a: a[0],
)
def test_a_postgresql_store_without_the_extra_is_one_line_saying_what_to_install(
    monkeypatch, tmp_path, args
):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # `import psycopg` raises ImportError
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, list(args))
    assert out.exit_code == 1
    assert out.stdout == ""
    assert out.stderr == (
        "error: a PostgreSQL store needs the postgres extra, not installed here: "
        "pip install 'ratings-ledger[postgres]'\n"
    )
